//! `landspeed limits`: the command-line arguments and the entry point the
//! binary calls. Values arrive as text so that every impossible value is
//! rejected here with an error naming its option.

use super::bus::Bus;
use super::link::{FrameSpec, IpVersion, L4Proto, LinkKind};
use super::report::{LimitsPage, PageInputs};
use super::units::{
    parse_bytes, parse_distance_m, parse_duration_s, parse_positive, parse_rate_bps,
};
use super::LimitsError;

/// Default RTT of the TCP section: a long fat path.
pub const DEFAULT_RTT: &str = "500ms";
/// Default rate of the TCP section.
pub const DEFAULT_RATE: &str = "10G";
/// Default distance: the Land Speed Record cap.
pub const DEFAULT_DISTANCE: &str = "30000km";
/// The fastest CPU clock `--cpu-ghz` takes, in GHz.
pub const MAX_CPU_GHZ: f64 = 100.0;
/// The most cycles per frame `--cycles-per-frame` takes.
pub const MAX_CYCLES_PER_FRAME: f64 = 1e9;
/// The largest record `--record` takes, in Tb*m/s: the largest rate
/// (1.6 Tbit/s) over the longest distance (1,000,000 km).
pub const MAX_RECORD_TBMPS: f64 = 1.6e9;

/// Options of `landspeed limits`.
#[derive(Debug, Clone, PartialEq, clap::Args)]
pub struct LimitsArgs {
    /// Ethernet frame size in bytes, FCS included.
    #[arg(long, default_value_t = 9130)]
    pub frame_size: u32,
    /// IP version: 4 or 6.
    #[arg(long, default_value_t = 4)]
    pub ip: u8,
    /// Transport: udp or tcp (payload per frame).
    #[arg(long, value_enum, default_value_t = L4Proto::Udp)]
    pub l4: L4Proto,
    /// Frames carry one 802.1Q VLAN tag.
    #[arg(long)]
    pub vlan: bool,
    /// TCP segments without the timestamps option (default: with it).
    #[arg(long)]
    pub no_tcp_timestamps: bool,
    /// Links to list (repeatable or comma-separated): 10g, 10gbase-sr,
    /// 10gbase-w (wan), 1g, 25g, 40g, 100g, or a rate like 2.5g. Default: all.
    #[arg(long, value_delimiter = ',')]
    pub link: Vec<String>,
    /// Buses to list (repeatable or comma-separated): pcix-133,
    /// pci-x/133:mmrbc=4096, pcie3x8, pcie-gen3-x8:mps=256. Default: PCI-X
    /// 66/100/133/266 and PCIe gen 1-5 x8 (and gen3 x4, x16).
    #[arg(long, value_delimiter = ',')]
    pub bus: Vec<String>,
    /// CPU clock in GHz (e.g. 2.4): adds the CPU section.
    #[arg(long, allow_hyphen_values = true)]
    pub cpu_ghz: Option<String>,
    /// Cycles the receiving core spends per frame (with --cpu-ghz).
    #[arg(long, allow_hyphen_values = true)]
    pub cycles_per_frame: Option<String>,
    /// Round-trip time of the path, with its unit (e.g. 500ms, 15ms, 0.2s).
    /// Default 500ms.
    #[arg(long, allow_hyphen_values = true)]
    pub rtt: Option<String>,
    /// TCP window to evaluate (e.g. 17520, 64KiB, 625MB).
    #[arg(long, allow_hyphen_values = true)]
    pub window: Option<String>,
    /// Rate for the bandwidth-delay and bandwidth-distance products (e.g.
    /// 10G, 7.994G). Default 10G.
    #[arg(long, allow_hyphen_values = true)]
    pub rate: Option<String>,
    /// Path length for the bandwidth-distance product (e.g. 30000km);
    /// capped at 30,000 km as the Land Speed Record rules count it.
    #[arg(long, allow_hyphen_values = true)]
    pub distance: Option<String>,
    /// A standing record in Tb*m/s: shows the rate needed to beat it by 10 %.
    #[arg(long, allow_hyphen_values = true)]
    pub record: Option<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

impl Default for LimitsArgs {
    /// The same as `landspeed limits` with no options.
    fn default() -> Self {
        LimitsArgs {
            frame_size: 9130,
            ip: 4,
            l4: L4Proto::Udp,
            vlan: false,
            no_tcp_timestamps: false,
            link: Vec::new(),
            bus: Vec::new(),
            cpu_ghz: None,
            cycles_per_frame: None,
            rtt: None,
            window: None,
            rate: None,
            distance: None,
            record: None,
            json: false,
        }
    }
}

impl LimitsArgs {
    /// Parses and validates every option into the page inputs.
    pub fn inputs(&self) -> Result<PageInputs, LimitsError> {
        let ip = IpVersion::parse("ip", &self.ip.to_string())?;
        let frame = FrameSpec {
            ip,
            l4: self.l4,
            vlan: self.vlan,
            tcp_timestamps: !self.no_tcp_timestamps,
        };
        let links = if self.link.is_empty() {
            LinkKind::ALL.to_vec()
        } else {
            self.link
                .iter()
                .map(|s| s.parse())
                .collect::<Result<Vec<LinkKind>, _>>()?
        };
        let buses = if self.bus.is_empty() {
            Bus::default_set()
        } else {
            self.bus
                .iter()
                .map(|s| s.parse())
                .collect::<Result<Vec<Bus>, _>>()?
        };
        let cpu_hz = self
            .cpu_ghz
            .as_deref()
            .map(|s| bounded("cpu-ghz", s, "GHz", MAX_CPU_GHZ, "100 GHz").map(|g| g * 1e9))
            .transpose()?;
        let cycles_per_frame = match (self.cycles_per_frame.as_deref(), cpu_hz) {
            (Some(s), None) => {
                return Err(LimitsError::invalid(
                    "cycles-per-frame",
                    s.trim(),
                    "needs --cpu-ghz too: the CPU section divides the clock by the cycles",
                ))
            }
            (Some(s), Some(_)) => Some(bounded(
                "cycles-per-frame",
                s,
                "",
                MAX_CYCLES_PER_FRAME,
                "1,000,000,000",
            )?),
            (None, _) => None,
        };
        let rtt_s = parse_duration_s("rtt", self.rtt.as_deref().unwrap_or(DEFAULT_RTT))?;
        let window_bytes = self
            .window
            .as_deref()
            .map(|s| parse_bytes("window", s))
            .transpose()?;
        let rate_bps = parse_rate_bps("rate", self.rate.as_deref().unwrap_or(DEFAULT_RATE))?;
        let distance_m = parse_distance_m(
            "distance",
            self.distance.as_deref().unwrap_or(DEFAULT_DISTANCE),
        )?;
        let record_tbmps = self
            .record
            .as_deref()
            .map(|s| bounded("record", s, "Tb*m/s", MAX_RECORD_TBMPS, "1.6e9 Tb*m/s"))
            .transpose()?;
        Ok(PageInputs {
            frame_size: self.frame_size,
            frame,
            links,
            buses,
            cpu_hz,
            cycles_per_frame,
            rtt_s,
            window_bytes,
            rate_bps,
            distance_m,
            record_tbmps,
        })
    }
}

/// A positive number as [`parse_positive`] reads it, at most `max`
/// (`max_text` in the message).
fn bounded(
    field: &'static str,
    text: &str,
    unit: &str,
    max: f64,
    max_text: &str,
) -> Result<f64, LimitsError> {
    let v = parse_positive(field, text, unit)?;
    if v > max {
        let reason = format!("above the largest value accepted, {max_text}");
        return Err(LimitsError::invalid(field, text.trim(), reason));
    }
    Ok(v)
}

/// Runs `landspeed limits`: the one-page text report, or JSON with `--json`.
/// Every impossible value gives an error naming its option; the caller
/// prints it and exits non-zero.
pub fn run_limits(args: &LimitsArgs) -> Result<String, LimitsError> {
    let page = LimitsPage::build(&args.inputs()?)?;
    if args.json {
        page.to_json()
    } else {
        Ok(page.to_text())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        args: LimitsArgs,
    }

    fn parse(argv: &[&str]) -> LimitsArgs {
        let mut v = vec!["limits"];
        v.extend_from_slice(argv);
        Cmd::try_parse_from(v).unwrap().args
    }

    #[test]
    fn defaults_match_clap() {
        assert_eq!(parse(&[]), LimitsArgs::default());
    }

    #[test]
    fn default_page() {
        let out = run_limits(&LimitsArgs::default()).unwrap();
        assert!(out.contains("136,612"), "{out}");
        assert!(out.contains("126,854"), "{out}");
        assert!(out.contains("PCI-X/133 MMRBC 512"), "{out}");
        assert!(out.contains("PCIe gen3 x8"), "{out}");
        assert!(out.contains("625,000,000 bytes"), "{out}");
        assert!(!out.contains("CPU:"), "{out}");
    }

    #[test]
    fn textbook_figures_through_the_command() {
        let a = parse(&["--rtt", "15ms", "--window", "17520", "--link", "10g"]);
        let out = run_limits(&a).unwrap();
        assert!(out.contains("9.344 Mbit/s"), "{out}");
        let a = parse(&["--rate", "7.994G", "--distance", "30000km", "--json"]);
        let j: serde_json::Value = serde_json::from_str(&run_limits(&a).unwrap()).unwrap();
        assert!((j["tcp"]["bandwidth_distance_tbmps"].as_f64().unwrap() - 239_820.0).abs() < 1e-6);
        let a = parse(&["--rate", "10G", "--rtt", "500ms", "--json"]);
        let j: serde_json::Value = serde_json::from_str(&run_limits(&a).unwrap()).unwrap();
        assert_eq!(j["tcp"]["bdp_bytes"].as_f64().unwrap(), 625e6);
        assert_eq!(j["links"][0]["fps"].as_f64().unwrap().round(), 136_612.0);
    }

    #[test]
    fn lists_and_repeats() {
        let a = parse(&[
            "--link", "10g,wan", "--link", "1g", "--bus", "pcix-133", "--bus", "pcie3x8",
        ]);
        let i = a.inputs().unwrap();
        assert_eq!(
            i.links,
            vec![LinkKind::Lan10G, LinkKind::Wan10G, LinkKind::G1]
        );
        assert_eq!(i.buses.len(), 2);
    }

    #[test]
    fn cpu_section() {
        let a = parse(&[
            "--cpu-ghz",
            "2.4",
            "--cycles-per-frame",
            "20000",
            "--link",
            "10g",
        ]);
        let out = run_limits(&a).unwrap();
        assert!(out.contains("120,000 frames/s"), "{out}");
        assert!(out.contains("17,568"), "{out}");
    }

    #[test]
    fn bad_inputs_name_their_option() {
        let cases: [(&[&str], &str); 13] = [
            (&["--rtt", "-15ms"], "rtt"),
            (&["--rtt", "0"], "rtt"),
            (&["--rtt", "15"], "add a unit: 15ms or 15s"),
            (&["--rate", "1e99"], "rate"),
            (&["--record", "1e999"], "record"),
            (&["--window", "0"], "window"),
            (&["--bus", "pcix-150"], "bus"),
            (&["--bus", "agp-8x"], "bus"),
            (&["--link", "fast"], "link"),
            (&["--ip", "5"], "ip"),
            (&["--frame-size", "20"], "frame-size"),
            (&["--cpu-ghz", "-2"], "cpu-ghz"),
            (&["--distance", "-1km"], "distance"),
        ];
        for (argv, field) in cases {
            let e = run_limits(&parse(argv)).unwrap_err();
            assert!(e.to_string().contains(field), "{argv:?}: {e}");
        }
    }
}
