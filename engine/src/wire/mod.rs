//! Frame layouts: Ethernet II, 802.1Q, IPv4, IPv6, UDP, TCP, PAUSE, the
//! encapsulations switches carry (MPLS, VXLAN, GRE), the payload stamp
//! and its fill; Internet checksums; the per-stream frame
//! builder and the receive-side dissector. Pure Rust: no DPDK, no `unsafe`.
//!
//! Every header has a typed view over a byte buffer (`XxxPacket<T>` with
//! `new_checked`, getters and setters) and a `XxxRepr` with `parse`/`emit`.
//! Parsers bound-check everything and never panic on any input bytes.
//! The byte-level format of the stamp is documented in `docs/wire-format.md`.

#![forbid(unsafe_code)]

pub mod builder;
pub mod checksum;
pub mod control;
pub mod dissect;
pub mod encap;
pub mod ethernet;
pub mod fill;
pub mod gre;
pub mod ipv4;
pub mod ipv6;
pub mod learn;
pub mod mpls;
pub mod pause;
pub mod spec;
pub mod stamp;
pub mod tcp;
pub mod udp;
pub mod vxlan;

#[cfg(test)]
mod encap_tests;
#[cfg(test)]
mod tests;

pub use builder::{CsumMode, FrameBuilder};
pub use dissect::{dissect, dissect_with, CorruptReason, DissectOptions, Dissected};
pub use ethernet::{EtherType, EthernetFrame, EthernetRepr, MacAddr, VlanRepr, VlanTag};
pub use ipv4::{Ipv4Packet, Ipv4Repr};
pub use ipv6::{Ipv6Packet, Ipv6Repr};
pub use pause::{PauseFrame, PauseRepr};
pub use spec::{
    AddrSet, IpSpec, L4Spec, PortSet, SizeSpec, SpecError, StreamSpec, ValueSet, Vary, VlanSpec,
};
pub use stamp::{Stamp, StampError, StampLayout};
pub use tcp::{TcpFlags, TcpPacket, TcpRepr};
pub use udp::{UdpPacket, UdpRepr};

/// IP protocol number of UDP.
pub const IPPROTO_UDP: u8 = 17;
/// IP protocol number of TCP.
pub const IPPROTO_TCP: u8 = 6;

/// Errors from the header views and representations.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// The buffer is shorter than the header (or the length a header field announces).
    #[error("{field}: need {need} bytes, buffer has {have}")]
    Truncated {
        /// Header or field whose bytes are missing.
        field: &'static str,
        /// Bytes required.
        need: usize,
        /// Bytes available.
        have: usize,
    },
    /// A header field holds a value this parser does not accept.
    #[error("{field}: unsupported or inconsistent value {value}")]
    BadField {
        /// Name of the field, e.g. `ipv4.version`.
        field: &'static str,
        /// Value found.
        value: u64,
    },
    /// A checksum did not verify.
    #[error("{field}: checksum mismatch")]
    Checksum {
        /// Name of the checksum field, e.g. `ipv4.checksum`.
        field: &'static str,
    },
}

/// Reads a big-endian u16 at `off`; callers have bound-checked the buffer.
#[inline]
pub(crate) fn be16(b: &[u8], off: usize) -> u16 {
    u16::from_be_bytes([b[off], b[off + 1]])
}

/// Reads a big-endian u32 at `off`; callers have bound-checked the buffer.
#[inline]
pub(crate) fn be32(b: &[u8], off: usize) -> u32 {
    u32::from_be_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
}

/// Writes a big-endian u16 at `off`; callers have bound-checked the buffer.
#[inline]
pub(crate) fn put16(b: &mut [u8], off: usize, v: u16) {
    b[off..off + 2].copy_from_slice(&v.to_be_bytes());
}

/// Writes a big-endian u32 at `off`; callers have bound-checked the buffer.
#[inline]
pub(crate) fn put32(b: &mut [u8], off: usize, v: u32) {
    b[off..off + 4].copy_from_slice(&v.to_be_bytes());
}

/// Returns `Err(Truncated)` unless `have >= need`.
#[inline]
pub(crate) fn need(field: &'static str, need: usize, have: usize) -> Result<(), WireError> {
    if have < need {
        Err(WireError::Truncated { field, need, have })
    } else {
        Ok(())
    }
}
