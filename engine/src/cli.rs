//! The subcommands behind `landspeed`: argument types and what each does.
//! `main.rs` only parses and prints the error.

use std::path::{Path, PathBuf};

use clap::Args;
use serde::Serialize;

use crate::config::{self, Plan};
use crate::counter::StopFlag;
use crate::dpdk::{signal, Eal, LinkStatus, Port, PortInfo};
use crate::pace::rate::RateSpec;
use crate::report::join;
use crate::runtime::{self, Quiet, Sink, Stdout};
use crate::{Error, Result};

/// `landspeed run`.
#[derive(Args, Debug)]
pub struct RunArgs {
    /// The profile (YAML). Without it, the built-in configs/null.yaml runs.
    pub profile: Option<PathBuf>,
    /// Measured run time, e.g. `10s`, `500ms`, `2m` (overrides run.duration).
    #[arg(long, short = 't')]
    pub duration: Option<String>,
    /// Rate for every TX task, e.g. `5G`, `95%`, `line`, `136612pps`
    /// (overrides each task's rate; split evenly among tasks).
    #[arg(long, short = 'r')]
    pub rate: Option<String>,
    /// Write the whole result as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Send through DPDK's net_pcap instead of each TX port's device, so the
    /// exact frames sent land in this .pcap file.
    #[arg(long)]
    pub capture: Option<PathBuf>,
    /// Print only the summary, not the interval lines.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// `landspeed ports`.
#[derive(Args, Debug)]
pub struct PortsArgs {
    /// Take the EAL settings (cores, vdevs, PCI devices) from this profile.
    #[arg(long, conflicts_with = "eal")]
    pub profile: Option<PathBuf>,
    /// EAL arguments, as one string, e.g. `--no-huge -m 512 --no-pci
    /// --vdev=net_null0` (default: those of the built-in profile).
    #[arg(long, allow_hyphen_values = true)]
    pub eal: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// `landspeed replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// A departure trace written by a TX task (`trace:` in the profile).
    pub trace: PathBuf,
    /// The bottleneck link's rate, e.g. `500M`, `1G` (L2 bit/s).
    #[arg(long)]
    pub bottleneck: String,
    /// The bottleneck's buffer, e.g. `4MB`, `512KiB`, `100000`.
    #[arg(long)]
    pub buffer: String,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Load the plan `landspeed run` executes, with the command line's
/// overrides applied.
pub fn load_plan(args: &RunArgs) -> Result<Plan> {
    let plan = match &args.profile {
        Some(p) => config::load(p)?,
        None => config::load_default()?,
    };
    let duration = match &args.duration {
        Some(d) => Some(
            config::parse_duration(d).map_err(|e| Error::option(format!("--duration {d}"), e))?,
        ),
        None => None,
    };
    let rate = match &args.rate {
        Some(r) => Some(
            r.parse::<RateSpec>()
                .map_err(|e| Error::option(format!("--rate {r}"), e))?,
        ),
        None => None,
    };
    let mut plan = plan.with_overrides(duration, rate)?;
    if let Some(pcap) = &args.capture {
        apply_capture(&mut plan, pcap)?;
    }
    Ok(plan)
}

/// Replace the device of every port a TX task uses with a `net_pcap` vdev
/// writing to `pcap` (one file per port: `NAME.pcap`, `NAME-1.pcap`, …).
pub fn apply_capture(plan: &mut Plan, pcap: &Path) -> Result<()> {
    let option = || format!("--capture {}", pcap.display());
    let mut tx_ports: Vec<usize> = plan.tx.iter().map(|t| t.port).collect();
    tx_ports.sort_unstable();
    tx_ports.dedup();
    if tx_ports.is_empty() {
        return Err(Error::option(option(), "the profile has no TX task"));
    }
    if let Some(dir) = pcap.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            let message = format!("folder {} does not exist", dir.display());
            return Err(Error::option(option(), message));
        }
    }
    for (k, &p) in tx_ports.iter().enumerate() {
        let file = if k == 0 {
            pcap.to_path_buf()
        } else {
            let stem = pcap
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            pcap.with_file_name(format!("{stem}-{k}.pcap"))
        };
        let old = plan.ports[p].device.name().to_string();
        let name = format!("net_pcap_cap{k}");
        plan.eal
            .vdevs
            .retain(|v| v.split(',').next() != Some(old.as_str()));
        plan.eal
            .vdevs
            .push(format!("{name},tx_pcap={}", file.display()));
        plan.ports[p].device = config::Device::Vdev(name);
    }
    Ok(())
}

/// The run's stop flag: SIGINT and SIGTERM set it (see [`signal`]).
static INTERRUPT: StopFlag = StopFlag::new_const();

/// `value` as indented JSON. Cannot fail: landspeed's results hold no map
/// with keys other than strings and no `Serialize` that refuses.
fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).expect("landspeed's results serialise as JSON")
}

/// Write `value` as JSON to the file `--json` named.
fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    std::fs::write(path, to_json(value)).map_err(|e| Error::io_option("--json", path, e))
}

/// `landspeed run`: execute the plan, print lines and the summary, write
/// JSON. Ctrl-C ends the run early and still reports. The exit status is
/// the run's [`crate::outcome::Outcome::exit_status`].
pub fn run(args: &RunArgs) -> Result<u8> {
    let plan = load_plan(args)?;
    for w in plan.stream_tracking_warnings(crate::rx::MAX_STREAMS) {
        eprintln!("landspeed: warning: {w}");
    }
    signal::on_interrupt(&INTERRUPT);
    let mut out = Stdout;
    let mut quiet = Quiet;
    let sink: &mut dyn Sink = if args.quiet { &mut quiet } else { &mut out };
    let result = runtime::execute(&plan, sink, &INTERRUPT)?;
    print!("{}", result.summary());
    if let Some(path) = &args.json {
        write_json(path, &result)?;
    }
    Ok(result.outcome.exit_status())
}

/// The EAL arguments `landspeed ports` starts with.
fn ports_eal_args(args: &PortsArgs) -> Result<Vec<String>> {
    Ok(match (&args.profile, &args.eal) {
        (Some(p), _) => config::load(p)?.eal.eal_args(),
        (None, Some(s)) => {
            let mut v = vec!["landspeed".to_string()];
            v.extend(s.split_whitespace().map(str::to_string));
            v
        }
        (None, None) => config::load_default()?.eal.eal_args(),
    })
}

/// `landspeed ports`: start the EAL and list every port.
pub fn ports(args: &PortsArgs) -> Result<()> {
    let eal_args = ports_eal_args(args)?;
    let _run_dir = runtime::RunDirCleanup::for_args(&eal_args);
    let eal = Eal::init(&eal_args).map_err(|e| Error::eal_start(e, ""))?;
    let mut infos = Vec::new();
    for id in eal.port_ids() {
        let port = Port::open(&eal, id)?;
        let link = port.link();
        infos.push((port.info().clone(), link));
    }
    if args.json {
        let v: Vec<_> = infos
            .iter()
            .map(|(i, l)| serde_json::json!({ "info": i, "mac": i.mac_string(), "link": l, "offloads": i.offload_names() }))
            .collect();
        println!("{}", to_json(&v));
    } else if infos.is_empty() {
        println!("no ports: DPDK probed no device (give --vdev=... or bind a NIC to vfio-pci)");
    } else {
        for (i, l) in &infos {
            print_port(i, l);
        }
    }
    drop(infos);
    drop(eal);
    Ok(())
}

/// One port as `landspeed ports` prints it.
fn print_port(i: &PortInfo, l: &LinkStatus) {
    println!("port {} {} (driver {})", i.id, i.name, i.driver);
    println!("  mac {}  numa socket {}", i.mac_string(), i.socket);
    println!(
        "  link {} {} Mbit/s {} (as reported before the port is started)",
        if l.up { "up" } else { "down" },
        l.speed_mbps,
        if l.full_duplex {
            "full-duplex"
        } else {
            "half-duplex"
        }
    );
    let max_frame = match i.max_rx_pktlen {
        u32::MAX => "no limit reported".to_string(),
        n => format!("{n} bytes (FCS included)"),
    };
    println!("  max frame {max_frame}, MTU {}..{}", i.min_mtu, i.max_mtu);
    println!(
        "  queues rx {} tx {}, ring rx {}..{} tx {}..{}",
        i.max_rx_queues, i.max_tx_queues, i.rx_ring.0, i.rx_ring.1, i.tx_ring.0, i.tx_ring.1
    );
    let off = i.offload_names();
    println!(
        "  offloads {}",
        if off.is_empty() {
            "none".to_string()
        } else {
            off.join(" ")
        }
    );
}

/// `landspeed replay`: a trace through a simulated bottleneck.
pub fn replay(args: &ReplayArgs) -> Result<()> {
    let text =
        crate::pace::replay::run_cli(&args.trace, &args.bottleneck, &args.buffer, args.json)?;
    print!("{text}");
    Ok(())
}

/// `landspeed report TX.json RX.json`: join both sides of a run.
pub fn report(tx: &Path, rx: &Path, json: Option<&Path>) -> Result<()> {
    let joined = join::join_files(tx, rx)?;
    print!("{}", joined.text());
    if let Some(path) = json {
        write_json(path, &joined)?;
    }
    Ok(())
}
