//! landspeed: a DPDK traffic engine.
//!
//! Dependencies point one way: `main → cli → runtime → tx/rx → {wire, pace,
//! limits, dpdk} → landspeed-sys`. `wire`, `pace`, `limits` and `config` are
//! pure and never touch DPDK, so they are unit-tested without an EAL.
#![forbid(unsafe_op_in_unsafe_fn)]

pub mod cli;
pub mod config;
pub mod counter;
pub mod dpdk;
pub mod error;
pub mod limits;
pub mod pace;
pub mod report;
pub mod result;
pub mod rng;
pub mod runtime;
pub mod rx;
pub mod tx;
pub mod units;
pub mod wire;

pub use error::{Error, Result};
