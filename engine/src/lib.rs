//! landspeed: a DPDK traffic engine.
//!
//! Dependencies point one way: `main → cli → runtime → tx/rx → {wire, pace,
//! limits, dpdk} → landspeed-sys`. `wire`, `pace`, `limits` and `config` are
//! pure and never touch DPDK, so they are unit-tested without an EAL.
#![forbid(unsafe_op_in_unsafe_fn)]

pub mod certify;
pub mod cli;
pub(crate) mod clock;
pub(crate) mod config;
pub(crate) mod counter;
pub(crate) mod depart;
pub mod doctor;
pub mod dpdk;
pub mod error;
pub mod hook;
pub(crate) mod input;
pub mod limits;
pub mod outcome;
pub mod output;
pub(crate) mod pace;
#[cfg(test)]
mod props;
pub(crate) mod report;
pub mod result;
pub(crate) mod rng;
pub(crate) mod runtime;
pub(crate) mod rx;
pub mod scrape;
pub mod serve;
pub(crate) mod stats;
pub(crate) mod tx;
pub(crate) mod tx_payload;
pub(crate) mod units;
pub mod wire;

pub use error::{Error, Result};

/// The streams of the profile `text`, as the TX path builds their frames
/// (for tests that rebuild a capture's frames with [`wire::FrameBuilder`]).
pub fn profile_streams(text: &str) -> std::result::Result<Vec<wire::spec::StreamSpec>, String> {
    config::load_str(text, "profile")
        .map(|p| p.streams)
        .map_err(|e| e.to_string())
}
