//! The typed result of an RFC 2544 certification and of each trial in it.
//!
//! Rates are given at two layers, as RFC 2544 and the labs that use it do:
//! L1 (the frame plus preamble, start delimiter and inter-frame gap: 20
//! bytes more per frame) and L2 (the frame with its FCS). "% of line" is
//! always at L1, where 100 % is the port's line rate whatever the size.

//!
//! This file holds the whole ([`Certification`]), the [`Tester`] the
//! searches drive and what each trial asks of it; the parts are in files
//! of their own under `model/`: trial.rs what a trial measured, rows.rs
//! each test's rows, settings.rs the settings, hooks.rs the
//! device-under-test hooks, host.rs the tester as a report describes it.

mod hooks;
mod host;
mod rows;
mod settings;
mod trial;

pub use hooks::{DutHooks, HookRun, OnFailure, HOOK_TIMEOUT_S};
pub use host::{Host, HostPort, TesterTask};
pub use rows::{
    why_tester, AddressRow, BackToBackRow, Bound, Criterion, LatencyRow, LossCurve, LossPoint,
    RecoveryRow, ResetRow, ThroughputRow, GIVEN_UP,
};
pub use settings::{AddressSettings, LatencyDefinition, Learning, Settings, IMIX, RFC2544_SIZES};
pub use trial::{
    bunched, frames_later_than, DirectionFigures, LearningRun, PortFrames, Trial, LEARNING_FRAMES,
    LEARNING_GAP_S, LEARNING_STALL_MS, QUEUE_FLOOR_NS,
};

use serde::{Deserialize, Serialize};

/// The topology of N ports in a mesh (RFC 2889's fully and partially
/// meshed traffic): its rows are the aggregate only, every sending port
/// at once, with the figures of each port-to-port pair.
pub const MESH: &str = "mesh";

use crate::outcome::Problem;

/// One trial the searches ask the tester to run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TrialSpec {
    /// Which direction (index into [`Tester::directions`]) sends; `None`
    /// sends on every direction at once (the aggregate of a bidirectional
    /// topology).
    pub direction: Option<usize>,
    /// Ethernet frame size with FCS, bytes.
    pub frame_size: u32,
    /// Offered load in % of the line rate at L1 (0 < rate ≤ 100).
    pub rate_pct: f64,
    /// How long frames are sent, seconds (ignored when `burst` is set).
    pub duration_s: f64,
    /// Back-to-back: send exactly this many frames at line rate, then stop.
    pub burst: Option<u64>,
    /// Wait this long after the last frame before counting, seconds, so
    /// late frames are counted in this trial and never in the next.
    pub settle_s: f64,
    /// A step in the offered load (RFC 2544 section 26.5's recovery):
    /// `rate_pct` for the step's `after_s`, then its `to_pct` until the
    /// trial's end.
    pub step: Option<RateStep>,
    /// Reset the device this long into the trial (RFC 2544 section 26.6),
    /// with the profile's reset hook.
    pub reset_at_s: Option<f64>,
    /// An address search's trial (RFC 2889 5.7, 5.8): each stream sent
    /// goes to the first this many addresses of its destination set, the
    /// device's table is cleared first (`certify.dut.flush`) and those
    /// addresses taught by learning frames, whatever
    /// `certify.learning` says.
    pub addresses: Option<u64>,
    /// With `addresses`: the learning frames' rate, frames/s, each
    /// address taught once.
    pub learning_fps: Option<f64>,
}

/// A step in a trial's offered load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateStep {
    /// Seconds at the trial's rate before the step.
    pub after_s: f64,
    /// The rate after the step, % of line at L1.
    pub to_pct: f64,
}

/// Runs trials: the runtime over DPDK ports, or a simulation in tests.
pub trait Tester {
    /// The directions this topology measures, e.g. `["port 0 → port 1"]`,
    /// or two for a bidirectional topology.
    fn directions(&self) -> Vec<String>;
    /// The line rate at L1 in bit/s of the sending port(s).
    fn line_bps(&self) -> u64;
    /// Send learning frames (RFC 2544 section 23(b)) before the trial
    /// `spec`: from each receiving port of its directions toward the
    /// device, with the test frames' destination address as their
    /// source, so a switch learns where that address is.
    fn learn(&mut self, spec: &TrialSpec) -> crate::Result<()>;
    /// Wait `seconds` for the device to restabilise after a trial (RFC
    /// 2544 section 23(e)); a signal cuts it short.
    fn rest(&mut self, seconds: f64);
    /// Run a device-under-test hook: `command` by `sh -c` in a process
    /// group of its own, with `env` added to its environment, killed
    /// (its whole group) after `timeout_s`; what it did, its output
    /// kept.
    fn hook(
        &mut self,
        hook: &str,
        command: &str,
        timeout_s: f64,
        env: &[(&str, String)],
    ) -> HookRun;
    /// Reset the device under test with the `reset` hook of `dut`: its
    /// run, or an error naming the hook and why it failed (or that there
    /// is none).
    fn reset_device(&mut self, dut: &DutHooks) -> crate::Result<HookRun> {
        let Some(command) = dut.reset.as_deref() else {
            return Err(crate::Error::Certify(
                "no reset hook: the profile's certify.dut has no `reset:` command".into(),
            ));
        };
        let run = self.hook(
            "reset",
            command,
            dut.timeout_s,
            &[("LANDSPEED_HOOK", "reset".into())],
        );
        match run.failure() {
            None => Ok(run),
            Some(why) => Err(crate::Error::Certify(format!(
                "certify.dut.reset `{command}` {why}{}",
                run.output_tail()
            ))),
        }
    }
    /// Run one trial and return what it measured. An error ends the
    /// certification (the results so far are still written).
    fn trial(&mut self, spec: &TrialSpec) -> crate::Result<Trial>;
    /// The fewest destination addresses of a stream sent (the address
    /// caching search's most, unless the settings give one).
    fn destinations(&self) -> u64;
    /// The receiving port of `direction` (`None`: every receiving port),
    /// as the profile names it, for messages (`port p1 received nothing`).
    fn rx_port(&self, direction: Option<usize>) -> String;
    /// True once a signal asked the certification to stop: the searches
    /// stop after the current trial and the result is marked incomplete.
    fn stopped(&self) -> bool;
}

/// How the reason of a latency not measured for want of a throughput
/// rate begins (the outputs gather those under one sentence).
pub const NO_RATE: &str = "no throughput rate";

/// The six RFC 2544 tests and RFC 2889's address searches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Test {
    /// Section 26.1.
    Throughput,
    /// Section 26.2.
    Latency,
    /// Section 26.3.
    Loss,
    /// Section 26.4.
    BackToBack,
    /// Section 26.5.
    Recovery,
    /// Section 26.6.
    Reset,
    /// RFC 2889 section 5.7: address caching capacity.
    AddressCaching,
    /// RFC 2889 section 5.8: address learning rate.
    LearningRate,
}

impl Test {
    /// All eight, in the RFCs' order.
    pub const ALL: [Test; 8] = [
        Test::Throughput,
        Test::Latency,
        Test::Loss,
        Test::BackToBack,
        Test::Recovery,
        Test::Reset,
        Test::AddressCaching,
        Test::LearningRate,
    ];

    /// The name the settings, the criteria and the CSV use.
    pub fn key(self) -> &'static str {
        match self {
            Test::Throughput => "throughput",
            Test::Latency => "latency",
            Test::Loss => "loss",
            Test::BackToBack => "back_to_back",
            Test::Recovery => "recovery",
            Test::Reset => "reset",
            Test::AddressCaching => "address_caching",
            Test::LearningRate => "learning_rate",
        }
    }

    /// The test by its key (`back-to-back` is taken for `back_to_back`).
    pub fn from_key(key: &str) -> Option<Test> {
        Test::ALL
            .into_iter()
            .find(|t| t.key() == key.replace('-', "_"))
    }

    /// Its title in the report.
    pub fn title(self) -> &'static str {
        match self {
            Test::Throughput => "Throughput",
            Test::Latency => "Latency",
            Test::Loss => "Frame loss rate",
            Test::BackToBack => "Back-to-back frames",
            Test::Recovery => "System recovery",
            Test::Reset => "Reset",
            Test::AddressCaching => "Address caching capacity",
            Test::LearningRate => "Address learning rate",
        }
    }

    /// Its section of RFC 2544 (of RFC 2889 for the address searches:
    /// see [`rfc`](Self::rfc)).
    pub fn section(self) -> &'static str {
        match self {
            Test::Throughput => "26.1",
            Test::Latency => "26.2",
            Test::Loss => "26.3",
            Test::BackToBack => "26.4",
            Test::Recovery => "26.5",
            Test::Reset => "26.6",
            Test::AddressCaching => "5.7",
            Test::LearningRate => "5.8",
        }
    }

    /// The RFC its section is of: `RFC 2544` or `RFC 2889`.
    pub fn rfc(self) -> &'static str {
        match self {
            Test::AddressCaching | Test::LearningRate => "RFC 2889",
            _ => "RFC 2544",
        }
    }

    /// True when `c` holds results of this test.
    pub fn has_results(self, c: &Certification) -> bool {
        match self {
            Test::Throughput => !c.throughput.is_empty(),
            Test::Latency => !c.latency.is_empty(),
            Test::Loss => !c.loss.is_empty(),
            Test::BackToBack => !c.back_to_back.is_empty(),
            Test::Recovery => !c.recovery.is_empty(),
            Test::Reset => !c.reset.is_empty(),
            Test::AddressCaching => !c.address_caching.is_empty(),
            Test::LearningRate => !c.learning_rate.is_empty(),
        }
    }
}

/// A frame size as the outputs write it: the bytes with FCS, or `IMIX`
/// for [`IMIX`]; padded as a number is when a width is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u32);

impl Size {
    /// With its unit: `1518 B`, or `IMIX`.
    pub fn bytes(self) -> String {
        match self.0 {
            IMIX => "IMIX".to_string(),
            z => format!("{z} B"),
        }
    }
}

/// Frame sizes in words: `64, 1518 B`; `64 B, IMIX` when one is the
/// IMIX.
pub fn sizes_text(sizes: &[u32]) -> String {
    if sizes.contains(&IMIX) {
        let each: Vec<String> = sizes.iter().map(|&z| Size(z).bytes()).collect();
        return each.join(", ");
    }
    let each: Vec<String> = sizes.iter().map(u32::to_string).collect();
    format!("{} B", each.join(", "))
}

impl std::fmt::Display for Size {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            IMIX => f.pad("IMIX"),
            z => std::fmt::Display::fmt(&z, f),
        }
    }
}

/// A whole certification: what every output is rendered from.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Certification {
    /// landspeed's version.
    pub landspeed: String,
    /// DPDK's version.
    pub dpdk: String,
    /// The profile it ran.
    pub profile: String,
    /// What was certified, as the profile's `certify.device` describes it
    /// (model, firmware, ports: free text); `None` when it does not.
    #[serde(default)]
    pub device: Option<String>,
    /// The host the tester ran on: CPU, kernel, each port's driver and
    /// link (the versions are `landspeed` and `dpdk`).
    #[serde(default)]
    pub host: Host,
    /// When it started, UTC, RFC 3339.
    pub started: String,
    /// Topology: `one_way`, `bidirectional`, `loopback` or [`MESH`].
    pub topology: String,
    /// The directions measured.
    pub directions: Vec<String>,
    /// Line rate at L1, bit/s.
    pub line_bps: u64,
    /// The ports, as the run saw them (name, driver).
    pub ports: Vec<String>,
    /// What it ran with.
    pub settings: Settings,
    /// Throughput per direction and size.
    pub throughput: Vec<ThroughputRow>,
    /// Latency per direction and size.
    pub latency: Vec<LatencyRow>,
    /// Frame loss curves per direction and size.
    pub loss: Vec<LossCurve>,
    /// Back-to-back per direction and size.
    pub back_to_back: Vec<BackToBackRow>,
    /// System recovery per direction and size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub recovery: Vec<RecoveryRow>,
    /// Reset per direction.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reset: Vec<ResetRow>,
    /// Address caching capacity (RFC 2889 5.7) per size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub address_caching: Vec<AddressRow>,
    /// Address learning rate (RFC 2889 5.8) per size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub learning_rate: Vec<AddressRow>,
    /// The profile's acceptance criteria and whether each was met.
    pub criteria: Vec<Criterion>,
    /// Every test ran to its end (false after a signal or an error).
    pub complete: bool,
    /// Why it stopped early, when it did.
    pub stopped_by: Option<String>,
    /// What cast doubt on the figures (tester-bound trials, link loss...).
    pub problems: Vec<Problem>,
    /// Each test the settings planned for a direction and size that has
    /// no figure, and why (see [`NotMeasured`]); empty in results of
    /// older versions.
    #[serde(default)]
    pub not_measured: Vec<NotMeasured>,
    /// Every setting below what RFC 2544 asks (a shorter trial, fewer
    /// trials, a coarser step, learning off...): the certification's
    /// figures are not RFC-conformant where this is not empty.
    #[serde(default)]
    pub nonconformant: Vec<Deviation>,
    /// How latency was timestamped, in words (where the departure and
    /// the arrival times come from).
    #[serde(default)]
    pub latency_method: String,
    /// The tester baseline the latency rows were corrected with, when
    /// the certification was given one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineInfo>,
    /// The verdict, as the terminal's last line, the exit status and
    /// every report state it; `None` until the certification is judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<VerdictRecord>,
    /// The frames the tester sent, a line per stream: its headers,
    /// addresses, ports and how they vary (see
    /// [`super::tester::frames`]); empty in results of older versions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub frames: Vec<String>,
    /// The tester's lcores: each task's role, lcore, CPU, port and
    /// queues (see [`super::tester::tasks`]); empty in results of older
    /// versions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<TesterTask>,
}

impl Certification {
    /// The rows of an address search: `address_caching`'s for
    /// [`Test::AddressCaching`], else `learning_rate`'s.
    pub fn address_rows(&self, test: Test) -> &[AddressRow] {
        match test {
            Test::AddressCaching => &self.address_caching,
            _ => &self.learning_rate,
        }
    }
}

/// One setting a certification ran with that is below RFC 2544's.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Deviation {
    /// The profile's key (`certify.trial`).
    pub setting: String,
    /// What it was, in words (`2 s`).
    pub value: String,
    /// What RFC 2544 asks, in words and with its section (`at least 60 s
    /// (section 24)`).
    pub rfc: String,
}

/// The baseline a certification subtracted from its latency rows.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct BaselineInfo {
    /// The file it was read from, as given.
    pub file: String,
    /// When the calibration behind it started, UTC, RFC 3339.
    pub recorded: String,
    /// The profile the calibration ran.
    pub profile: String,
}

/// A certification's verdict, as it is written to every output.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct VerdictRecord {
    /// One word: `pass`, `fail`, `not_judged`, `doubt`, `figures`,
    /// `incomplete` or `error`.
    pub state: String,
    /// The verdict line, without the exit status (`FAIL: 1 of 4
    /// acceptance criteria not met`).
    pub text: String,
    /// The exit status of `landspeed rfc2544`.
    pub exit: u8,
}

/// A test the settings planned for one direction and frame size that
/// measured nothing there, and why: latency at a size whose throughput
/// search found no rate, latency whose trials timestamped no frame, a
/// test the certification stopped before (a signal or an error).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct NotMeasured {
    /// The test: `throughput`, `latency`, `loss`, `back_to_back`,
    /// `recovery` or `reset`.
    pub test: String,
    /// Direction label.
    pub direction: String,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
    /// Why nothing was measured, in words.
    pub reason: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_json_holds_the_device_and_the_host_and_older_json_loads() {
        let mut c = crate::certify::search::blank(&Settings::default(), vec!["a → b".into()], 1);
        c.device = Some("SW-48".into());
        c.host.kernel = "Linux 6.1.0".into();
        c.host.ports.push(HostPort {
            name: "t0".into(),
            device: "net_af_packet0".into(),
            driver: "net_af_packet".into(),
            link: "up, 10 Gbit/s, full duplex".into(),
        });
        c.not_measured.push(NotMeasured {
            test: "latency".into(),
            direction: "a → b".into(),
            frame_size: 64,
            reason: "no throughput rate: none of the 11 throughput trial(s) at this size passed"
                .into(),
        });
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(
            v["not_measured"],
            serde_json::json!([{
                "test": "latency",
                "direction": "a → b",
                "frame_size": 64,
                "reason": "no throughput rate: none of the 11 throughput trial(s) at this size passed"
            }])
        );
        assert_eq!(v["device"], "SW-48");
        assert_eq!(v["host"]["kernel"], "Linux 6.1.0");
        assert_eq!(v["host"]["ports"][0]["driver"], "net_af_packet");
        assert_eq!(v["host"]["ports"][0]["link"], "up, 10 Gbit/s, full duplex");
        let mut old = v.clone();
        let o = old.as_object_mut().unwrap();
        o.remove("device");
        o.remove("host");
        o.remove("not_measured");
        let back: Certification = serde_json::from_value(old).unwrap();
        assert_eq!((back.device, back.host), (None, Host::default()));
        assert!(back.not_measured.is_empty());
        let again: Certification = serde_json::from_value(v).unwrap();
        assert_eq!(again, c);
    }
}
