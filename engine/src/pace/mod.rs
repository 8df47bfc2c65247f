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
//! | `schedule`    | exact [`Schedule`], [`WeightedRoundRobin`]                |
//! | `pattern`     | [`Pattern`] (CBR, Poisson, on/off) and its [`Pacer`]      |
//! | `mode`        | [`TxMode`], gap-mode planning and gap frames              |
//! | `measure`     | [`DepartureRecorder`] and its [`PaceSummary`]             |
//! | `trace`       | the departure [`Trace`] file format                       |
//! | `replay`      | bottleneck [`replay()`] of a departure trace              |
//! | `tsc`         | TSC frequency measurement, tick/ns conversion             |
//!
//! [`Schedule`]: schedule::Schedule
//! [`WeightedRoundRobin`]: schedule::WeightedRoundRobin
//! [`Pacer`]: pattern::Pacer
//! [`Pattern`]: pattern::Pattern
//! [`TxMode`]: mode::TxMode
//! [`DepartureRecorder`]: measure::DepartureRecorder
//! [`PaceSummary`]: measure::PaceSummary
//! [`Rate`]: rate::Rate
//! [`Layer`]: rate::Layer
//! [`RateSpec`]: rate::RateSpec
//! [`Trace`]: trace::Trace
//! [`replay()`]: replay::replay
#![forbid(unsafe_code)]

pub mod measure;
pub mod mode;
pub mod pattern;
pub mod rate;
pub mod replay;
pub mod schedule;
pub mod trace;
pub mod tsc;
