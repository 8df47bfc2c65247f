//! Departure scheduling on the TSC clock, rate units, traffic patterns,
//! TX modes, departure measurement and bottleneck replay.
//!
//! Everything here is pure: no DPDK, no `unsafe`. The TX loop asks a
//! [`Schedule`] (or a [`Pacer`] for non-constant patterns) for each frame's
//! absolute departure TSC, waits for it according to its [`TxMode`], and
//! records what the PMD accepted in a [`DepartureRecorder`]. The pacing
//! guide (`docs/pacing.md`) gives the arithmetic and when to use what.
//!
//! | file          | what                                                     |
//! |---------------|----------------------------------------------------------|
//! | `rate`        | [`Rate`], [`Layer`], [`RateSpec`] parsing, line-rate arithmetic |
//! | `schedule`    | exact [`Schedule`], lcore split, [`WeightedRoundRobin`]   |
//! | `pattern`     | [`Pattern`] (CBR, Poisson, on/off) and its [`Pacer`]      |
//! | `mode`        | [`TxMode`], gap-mode planning and gap frames              |
//! | `measure`     | [`DepartureRecorder`] and its [`PaceSummary`]             |
//! | `trace`       | the departure [`Trace`] file format                       |
//! | `replay`      | bottleneck [`replay()`] and synthetic traces              |
//! | `tsc`         | TSC frequency measurement, tick/ns conversion             |

pub mod measure;
pub mod mode;
pub mod pattern;
pub mod rate;
pub mod replay;
pub mod schedule;
pub mod trace;
pub mod tsc;

pub use measure::{DepartureRecorder, PaceSummary};
pub use mode::{GapFrames, GapKind, GapPlanner, ModeError, TxMode};
pub use pattern::{Pacer, Pattern, PatternError};
pub use rate::{
    bits_per_frame, check_against_line, format_bps, line_at_layer, Layer, Rate, RateError,
    RateSpec, MIN_FRAME_SIZE, WIRE_OVERHEAD_BYTES,
};
pub use replay::{
    parse_size, replay, run_cli, synthesize, ReplayCliError, ReplayError, ReplayResult,
};
pub use schedule::{Schedule, ScheduleError, WeightedRoundRobin};
pub use trace::{Trace, TraceError};
pub use tsc::{measure_hz, ns_to_ticks, ticks_to_ns, TscSample};
