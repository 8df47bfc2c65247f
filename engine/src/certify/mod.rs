//! RFC 2544 certification: throughput, latency, frame loss and back-to-back
//! against a device under test, and the report a lab hands over.
//!
//! The pieces, and which way they depend:
//!
//! - [`model`]: the typed result of a certification ([`model::Certification`])
//!   and of one trial ([`model::Trial`]). Every output (the JSON, the CSV,
//!   the HTML report, the JUnit XML) is rendered from one `Certification`,
//!   so they always hold the same figures.
//! - the searches (throughput by binary search, the loss curve, back-to-back
//!   by binary search on burst length, the latency trials) drive a
//!   [`model::Tester`]: anything that runs one trial and says what it
//!   measured. The runtime implements it over DPDK ports; the unit tests
//!   implement it over a simulated device with a known answer.
//!
//! - the outputs, each rendered from a `Certification`: [`csv`], [`html`]
//!   (with its charts from [`svg`]) and [`junit`]; they format every figure
//!   through [`format`], so the same figure reads the same in all of them.
//!
//! - [`progress`] estimates where a certification stands and how long it
//!   has to go; [`display`] shows it on standard error.
//!
//! This module is pure: it never touches DPDK.
#![forbid(unsafe_code)]

pub mod conformance;
pub mod criteria;
pub mod csv;
pub mod display;
pub mod format;
pub mod html;
pub mod junit;
pub mod latency;
pub mod model;
pub mod progress;
pub mod round;
pub mod search;
pub mod svg;
pub mod table;
pub mod tester;
pub mod verdict;

#[cfg(test)]
#[path = "agree_tests.rs"]
mod agree_tests;
#[cfg(test)]
pub(crate) mod sample;
