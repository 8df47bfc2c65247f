//! Durations in the profile (`run.duration`, `run.interval`): read and
//! printed by [`crate::units`], the one parser every command uses.

pub use crate::units::parse_duration;
