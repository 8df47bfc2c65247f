//! Clocks for one-way latency between two hosts (docs/two-host.md).
//!
//! The hot paths read only the TSC. To stamp and measure on a clock two
//! hosts keep synchronised (CLOCK_REALTIME or CLOCK_TAI, disciplined by
//! PTP or chrony), the main lcore pairs TSC readings with that clock at
//! start and every report interval, fits a mapping with its residual
//! ([`sync`]), and publishes it; a worker applies it with one
//! multiply-shift per burst.
//!
//! The module is pure: the readings (clock_gettime, adjtimex) come from
//! `dpdk::kclock`, the runtime pairs them; [`ptp`] encodes and decodes
//! the management messages that read `ptp4l`'s servo, whose socket the
//! runtime's `servo` module talks to. A NIC's own timestamp counter is
//! mapped onto the TSC the same way ([`nic`]): (NIC counter, TSC) pairs,
//! a fit with its residual, which joins the side's error; the NIC's
//! sampled IEEE 1588 TX timestamps give how far departures lie from their
//! software stamps ([`txstamp`]).
#![forbid(unsafe_code)]

pub mod nic;
pub mod ptp;
pub mod sync;
pub mod txstamp;
