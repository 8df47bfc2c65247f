//! The end-to-end tests: one test binary, one module per area, each
//! running the `landspeed` binary as a child process (DPDK's EAL starts
//! once per process) and checking what it prints and writes.
//!
//! The harness runs the tests of every module on parallel threads. Two
//! runs at once would deschedule each other, so every run takes the
//! one-run-at-a-time lock of [`common`] ([`common::alone`]), and a test
//! that starts anything else that takes CPUs or the host's network
//! namespaces, hugepages or time (a lab, a peer, a pair of runs side by
//! side) holds it for its whole run.
//!
//! Run one module with `cargo test --profile ci --test e2e MODULE::`
//! (e.g. `lab::`), one test by its name.

#[path = "../common/mod.rs"]
mod common;

mod bench_quick;
mod capture;
mod certify;
mod cli_errors;
mod descheduled;
mod doctor;
mod encap;
mod faults;
mod hugepages;
mod lab;
mod memif;
mod nic_limits;
mod nic_stamps;
mod pacing_verdict;
mod pause;
mod port_errors;
mod profile_errors;
mod ptp_servo;
mod run_null;
mod rx_capture;
mod rx_check;
mod rx_split;
mod scale;
mod tap;
mod template_hold;
mod two_host;
mod virtio;
