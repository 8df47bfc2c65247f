//! Line-rate, I/O bus and CPU ceilings, TCP long-path figures, and the
//! end-of-run verdict that says which of them bound a transfer.
//!
//! Everything here is pure arithmetic: no DPDK, no I/O except reading two
//! sysfs files in [`bus::detect_from_sysfs`]. The model, its constants and
//! their sources are documented in `docs/limits.md`.
//!
//! Conventions: a frame size counts the whole Ethernet frame including the
//! FCS (as RFC 2544 does); rates name their layer (L1 adds 20 bytes of
//! preamble, SFD and inter-frame gap per frame, L2 is the frame, payload is
//! what the application gets).
#![forbid(unsafe_code)]

pub mod bus;
pub mod cli;
pub mod cpu;
pub mod host;
pub mod link;
pub mod nic;
pub mod pmd;
pub mod port_errors;
pub mod report;
pub mod tcp;
pub mod units;
pub mod verdict;

pub use bus::{detect_from_sysfs, Bus, BusCeiling, Direction};
pub use cli::{run_limits, LimitsArgs};
pub use cpu::CpuCeiling;
pub use link::{FrameSpec, IpVersion, L4Proto, LinkKind};
pub use report::LimitsPage;
pub use verdict::{
    decide, explain, verdict, Ceiling, Counters, Decision, Evidence, Limit, Observation, Reason,
    Verdict,
};

/// An error from the limits module; every variant names the input at fault.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LimitsError {
    /// A value is malformed or impossible (negative RTT, zero window, ...).
    #[error("invalid {field} `{value}`: {reason}")]
    Invalid {
        /// The option or field that carried the value (e.g. `rtt`).
        field: &'static str,
        /// The value as given.
        value: String,
        /// Why it was rejected and what is expected instead.
        reason: String,
    },
    /// A sysfs attribute could not be read or parsed.
    #[error("cannot read PCI device {pci_addr}: {path}: {reason}")]
    Sysfs {
        /// The PCI address asked about.
        pci_addr: String,
        /// The sysfs file concerned.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The JSON rendering failed (should not happen).
    #[error("cannot render JSON: {0}")]
    Json(String),
}

impl LimitsError {
    /// Shorthand for [`LimitsError::Invalid`].
    pub fn invalid(field: &'static str, value: impl ToString, reason: impl Into<String>) -> Self {
        LimitsError::Invalid {
            field,
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}

/// Smallest Ethernet frame (including FCS) the model accepts.
pub const MIN_FRAME_SIZE: u32 = 64;

/// Largest frame size the model accepts (jumbo frames beyond 16 KiB are not
/// carried by any common NIC).
pub const MAX_FRAME_SIZE: u32 = 16_384;

/// Checks a frame size (bytes, FCS included) against the accepted range.
pub fn check_frame_size(frame_size: u32) -> Result<u32, LimitsError> {
    if (MIN_FRAME_SIZE..=MAX_FRAME_SIZE).contains(&frame_size) {
        Ok(frame_size)
    } else {
        Err(LimitsError::invalid(
            "frame-size",
            frame_size,
            format!(
                "an Ethernet frame (FCS included) is {MIN_FRAME_SIZE}..={MAX_FRAME_SIZE} bytes"
            ),
        ))
    }
}
