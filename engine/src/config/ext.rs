//! The types config takes from the other modules, in one place.

pub use crate::limits::bus::Bus;
pub use crate::limits::link::LinkKind;
pub use crate::pace::mode::TxMode;
pub use crate::pace::pattern::Pattern;
pub use crate::pace::rate::{Layer, RateSpec};
pub use crate::wire::spec::StreamSpec;

/// `rate` for one of `all` TX tasks, `same_port` of which share its port:
/// a share of line rate is split among the tasks of the port, a bit or
/// frame rate among all tasks.
pub fn split_rate(rate: &RateSpec, all: usize, same_port: usize) -> Result<RateSpec, String> {
    let too_small = |parts: usize| {
        format!("{rate} cannot be split into {parts} parts of at least one unit each")
    };
    match *rate {
        RateSpec::Absolute { per_sec, layer } => {
            let per_sec = per_sec / all.max(1) as u64;
            if per_sec == 0 {
                return Err(too_small(all));
            }
            Ok(RateSpec::Absolute { per_sec, layer })
        }
        RateSpec::Line if same_port <= 1 => Ok(RateSpec::Line),
        RateSpec::Line => split_ppm(1_000_000, same_port).ok_or_else(|| too_small(same_port)),
        RateSpec::PercentOfLine { ppm } => {
            split_ppm(ppm, same_port).ok_or_else(|| too_small(same_port))
        }
    }
}

/// `ppm / parts` as a share of line rate, `None` when it rounds to zero.
fn split_ppm(ppm: u32, parts: usize) -> Option<RateSpec> {
    let ppm = ppm / parts.max(1) as u32;
    (ppm > 0).then_some(RateSpec::PercentOfLine { ppm })
}
