//! The settings a certification runs with ([`Settings`], RFC 2544's
//! defaults), when learning frames go out, what a device's latency is
//! measured between, and the frame sizes.

use serde::{Deserialize, Serialize};

use super::DutHooks;
use crate::units::L1_OVERHEAD;

/// The settings a certification ran with (its defaults are RFC 2544's).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Settings {
    /// Tests run, in order: `throughput`, `latency`, `loss`,
    /// `back_to_back`, `recovery`, `reset`, `address_caching`,
    /// `learning_rate`.
    pub tests: Vec<String>,
    /// Frame sizes with FCS, bytes.
    pub sizes: Vec<u32>,
    /// Trial length, seconds: every throughput confirmation and every
    /// loss trial (RFC 2544 section 24: at least 60 s).
    pub trial_s: f64,
    /// The throughput search's own trials, seconds, when shorter than
    /// `trial_s` (the rate each search settles on is confirmed by a
    /// trial of `trial_s`); `None`: every trial lasts `trial_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search_trial_s: Option<f64>,
    /// Wait after each trial before counting, seconds (late frames count
    /// in their own trial).
    pub settle_s: f64,
    /// Wait after counting before the next trial, seconds, so the device
    /// restabilises (RFC 2544 section 23(e): at least 5 s).
    #[serde(default)]
    pub restabilise_s: f64,
    /// Throughput search resolution, % of line.
    pub resolution_pct: f64,
    /// Loss accepted by the throughput search, % (0: NDR).
    pub loss_tolerance_pct: f64,
    /// Search bounds, % of line.
    pub lower_pct: f64,
    /// Search bounds, % of line.
    pub upper_pct: f64,
    /// A throughput trial whose p99 latency is above this fails like a
    /// loss, ns (other tests' trials are not held to it).
    pub max_p99_ns: Option<f64>,
    /// Latency trials per size.
    pub latency_trials: u32,
    /// Latency trial length, seconds.
    pub latency_trial_s: f64,
    /// How the device's latency is defined (RFC 1242 section 3.8).
    #[serde(default)]
    pub latency_definition: LatencyDefinition,
    /// Frame-loss step, % of line.
    pub loss_step_pct: f64,
    /// Back-to-back trials per size.
    pub back_to_back_trials: u32,
    /// Back-to-back: the longest burst tried, seconds at line rate.
    pub back_to_back_max_s: f64,
    /// When learning frames are sent (RFC 2544 section 23(b)).
    #[serde(default, deserialize_with = "learning_of")]
    pub learning: Learning,
    /// Recovery: seconds of overload before the drop (RFC 2544 section
    /// 26.5: at least 60 s).
    #[serde(default = "sixty")]
    pub recovery_overload_s: f64,
    /// Recovery: seconds at the reduced load after the drop.
    #[serde(default = "thirty")]
    pub recovery_reduced_s: f64,
    /// Recovery trials per size (RFC 2544: "a number of times").
    #[serde(default = "five")]
    pub recovery_trials: u32,
    /// Reset: seconds into the trial the device is reset.
    #[serde(default = "ten")]
    pub reset_at_s: f64,
    /// Reset: the trial's length, seconds (long enough for the device to
    /// come back).
    #[serde(default = "sixty")]
    pub reset_trial_s: f64,
    /// Reset trials.
    #[serde(default = "one")]
    pub reset_trials: u32,
    /// The wait after the learning frames, for the device to learn,
    /// seconds (RFC 2544 section 23(b): 2 s); 0 in results of older
    /// versions.
    #[serde(default)]
    pub learning_wait_s: f64,
    /// The device-under-test hooks (`certify.dut`), when the profile has
    /// any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dut: Option<DutHooks>,
    /// `--quick`: settings below RFC 2544's were asked for on purpose
    /// (they are still listed as not conformant).
    #[serde(default)]
    pub quick: bool,
    /// The IMIX the size [`IMIX`] stands for: frame sizes with FCS, sent
    /// in this order, repeating (RFC 6985's genome, spelled out); empty
    /// when the sizes name no IMIX.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub imix: Vec<u32>,
    /// An asymmetric load: each direction's share of the aggregate's
    /// offered load, % (in the order of the directions); empty: every
    /// direction offers the whole load.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub direction_loads: Vec<f64>,
    /// RFC 2889's address searches (`certify.addresses`): their ranges,
    /// the test frames' load and the learning frames' rate.
    #[serde(default)]
    pub addresses: AddressSettings,
}

/// The settings of RFC 2889's address caching capacity (5.7) and
/// address learning rate (5.8) searches (`certify.addresses`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct AddressSettings {
    /// Address caching: the fewest addresses the search tries.
    pub min: u64,
    /// Address caching: the most addresses it tries; `None`: the
    /// smallest destination MAC set of the streams sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max: Option<u64>,
    /// The test frames' offered load, % of line at L1 (RFC 2889: below
    /// what the device forwards, so a lost frame is a flooded or an
    /// unknown address's, not congestion).
    pub load_pct: f64,
    /// Address caching: the learning frames' rate, frames/s (below the
    /// device's learning rate).
    pub learning_fps: f64,
    /// Learning rate: the slowest rate the search tries, frames/s.
    pub rate_min_fps: f64,
    /// Learning rate: the fastest, frames/s; `None`: the learning
    /// frames at the receiving port's line rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_max_fps: Option<f64>,
    /// Learning rate: the search ends when its bounds are this close,
    /// frames/s.
    pub rate_resolution_fps: f64,
    /// Learning rate: the addresses each trial teaches; `None`: the
    /// capacity the address caching test found at the size, else the
    /// caching search's most.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub taught: Option<u64>,
}

impl Default for AddressSettings {
    /// From 1 address to each stream's set, test frames at 10 % of line,
    /// learning at 1,000 frames/s; the learning rate from 100 frames/s
    /// to line rate, to 100 frames/s.
    fn default() -> Self {
        AddressSettings {
            min: 1,
            max: None,
            load_pct: 10.0,
            learning_fps: 1000.0,
            rate_min_fps: 100.0,
            rate_max_fps: None,
            rate_resolution_fps: 100.0,
            taught: None,
        }
    }
}

/// Serde defaults of the recovery and reset settings.
fn sixty() -> f64 {
    60.0
}
fn thirty() -> f64 {
    30.0
}
fn ten() -> f64 {
    10.0
}
fn five() -> u32 {
    5
}
fn one() -> u32 {
    1
}

/// When learning frames go out (RFC 2544 section 23(b)): from each
/// receiving port toward the device, carrying the test frames'
/// destination address as their source, so a switch knows where to
/// forward the test frames before they come.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Learning {
    /// Before every trial (a switch whose table ages out between trials
    /// would otherwise flood).
    #[default]
    EveryTrial,
    /// Once, before the first trial.
    Once,
    /// Never.
    Off,
}

impl Learning {
    /// Its key in the profile and the outputs.
    pub fn key(self) -> &'static str {
        match self {
            Learning::EveryTrial => "every_trial",
            Learning::Once => "once",
            Learning::Off => "off",
        }
    }
}

/// `learning` as written: the key, or (results of older versions) a
/// flag: `true` sent learning frames before the first trial.
fn learning_of<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Learning, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Flag(bool),
        Key(Learning),
    }
    Ok(match Either::deserialize(d)? {
        Either::Flag(true) => Learning::Once,
        Either::Flag(false) => Learning::Off,
        Either::Key(k) => k,
    })
}

/// What a device's latency is measured between (RFC 1242 section 3.8).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LatencyDefinition {
    /// A store-and-forward device: from the last bit of the frame in to
    /// the first bit out (LIFO).
    #[default]
    StoreAndForward,
    /// A bit-forwarding device: from the first bit in to the first bit
    /// out (FIFO).
    BitForwarding,
}

impl LatencyDefinition {
    /// Its key in the profile and the outputs.
    pub fn key(self) -> &'static str {
        match self {
            LatencyDefinition::StoreAndForward => "store_and_forward",
            LatencyDefinition::BitForwarding => "bit_forwarding",
        }
    }

    /// What it measures, in words.
    pub fn text(self) -> &'static str {
        match self {
            LatencyDefinition::StoreAndForward => {
                "store-and-forward (RFC 1242 3.8): last bit in to first bit out"
            }
            LatencyDefinition::BitForwarding => {
                "bit-forwarding (RFC 1242 3.8): first bit in to first bit out"
            }
        }
    }
}

/// The frame size that stands for the settings' IMIX (no frame is 0
/// bytes): rows and trials of the IMIX carry it, and every output names
/// it `IMIX`.
pub const IMIX: u32 = 0;

/// RFC 2544's frame sizes for Ethernet (section 9.1), FCS included.
pub const RFC2544_SIZES: [u32; 7] = [64, 128, 256, 512, 1024, 1280, 1518];

impl Default for Settings {
    /// RFC 2544's defaults (sections 23, 24, 26): every test, the
    /// Ethernet sizes, 60 s trials, 2 s settle and 5 s to restabilise, a
    /// 0–100 % NDR search to 0.1 %, 20 latency trials of 120 s, 10 %
    /// loss steps, 50 back-to-back trials of bursts up to 2 s, learning
    /// frames before every trial and 2 s for the device to learn them.
    fn default() -> Settings {
        Settings {
            tests: ["throughput", "latency", "loss", "back_to_back"]
                .map(String::from)
                .to_vec(),
            sizes: RFC2544_SIZES.to_vec(),
            trial_s: 60.0,
            search_trial_s: None,
            settle_s: 2.0,
            restabilise_s: 5.0,
            resolution_pct: 0.1,
            loss_tolerance_pct: 0.0,
            lower_pct: 0.0,
            upper_pct: 100.0,
            max_p99_ns: None,
            latency_trials: 20,
            latency_trial_s: 120.0,
            latency_definition: LatencyDefinition::StoreAndForward,
            loss_step_pct: 10.0,
            back_to_back_trials: 50,
            back_to_back_max_s: 2.0,
            learning: Learning::EveryTrial,
            recovery_overload_s: 60.0,
            recovery_reduced_s: 30.0,
            recovery_trials: 5,
            reset_at_s: 10.0,
            reset_trial_s: 60.0,
            reset_trials: 1,
            learning_wait_s: 2.0,
            dut: None,
            quick: false,
            imix: Vec::new(),
            direction_loads: Vec::new(),
            addresses: AddressSettings::default(),
        }
    }
}

impl Settings {
    /// How long a throughput search trial lasts, seconds.
    pub fn search_trial(&self) -> f64 {
        self.search_trial_s.unwrap_or(self.trial_s)
    }

    /// The mean frame size with FCS of `size`, bytes: itself, or for
    /// [`IMIX`] the mean of the IMIX's sizes.
    pub fn mean_bytes(&self, size: u32) -> f64 {
        if size == IMIX && !self.imix.is_empty() {
            let sum: u64 = self.imix.iter().map(|&z| u64::from(z)).sum();
            sum as f64 / self.imix.len() as f64
        } else {
            f64::from(size)
        }
    }

    /// Frames per second at `pct` % of a line of `line_bps` (L1) for
    /// frames of `size` (the IMIX's mean size for [`IMIX`]).
    pub fn fps_at(&self, line_bps: u64, size: u32, pct: f64) -> f64 {
        line_bps as f64 * pct / 100.0 / ((self.mean_bytes(size) + L1_OVERHEAD as f64) * 8.0)
    }

    /// The share (0–1) of an aggregate trial's load that direction `d`
    /// offers: 1 unless `direction_loads` says less.
    pub fn share_of(&self, d: usize) -> f64 {
        self.direction_loads.get(d).map_or(1.0, |p| p / 100.0)
    }

    /// How many directions' worth of load an aggregate trial over `n`
    /// directions offers: `n`, or the sum of the shares.
    pub fn aggregate_shares(&self, n: usize) -> f64 {
        (0..n).map(|d| self.share_of(d)).sum()
    }
}
