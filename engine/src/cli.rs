//! The subcommands behind `landspeed`: argument types and what each does.
//! `main.rs` only parses and prints the error.

use std::path::{Path, PathBuf};

use clap::Args;

use crate::config::{self, Plan};
use crate::counter::StopFlag;
use crate::dpdk::{Eal, Port};
use crate::pace::rate::RateSpec;
use crate::report::join;
use crate::runtime::{self, Quiet, Sink, Stdout};

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
pub fn load_plan(args: &RunArgs) -> Result<Plan, String> {
    let plan = match &args.profile {
        Some(p) => config::load(p).map_err(|e| e.to_string())?,
        None => config::load_default().map_err(|e| e.to_string())?,
    };
    let duration = match &args.duration {
        Some(d) => Some(config::parse_duration(d).map_err(|e| format!("--duration {d}: {e}"))?),
        None => None,
    };
    let rate = match &args.rate {
        Some(r) => Some(
            r.parse::<RateSpec>()
                .map_err(|e| format!("--rate {r}: {e}"))?,
        ),
        None => None,
    };
    let mut plan = plan
        .with_overrides(duration, rate)
        .map_err(|e| e.to_string())?;
    if let Some(pcap) = &args.capture {
        apply_capture(&mut plan, pcap)?;
    }
    Ok(plan)
}

/// Replace the device of every port a TX task uses with a `net_pcap` vdev
/// writing to `pcap` (one file per port: `NAME.pcap`, `NAME-1.pcap`, …).
pub fn apply_capture(plan: &mut Plan, pcap: &Path) -> Result<(), String> {
    let mut tx_ports: Vec<usize> = plan.tx.iter().map(|t| t.port).collect();
    tx_ports.sort_unstable();
    tx_ports.dedup();
    if tx_ports.is_empty() {
        return Err(format!(
            "--capture {}: the profile has no TX task",
            pcap.display()
        ));
    }
    if let Some(dir) = pcap.parent().filter(|d| !d.as_os_str().is_empty()) {
        if !dir.is_dir() {
            return Err(format!(
                "--capture {}: folder {} does not exist",
                pcap.display(),
                dir.display()
            ));
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

static INTERRUPT: StopFlag = StopFlag::new_const();

extern "C" fn on_signal(_: libc::c_int) {
    if INTERRUPT.stopped() {
        // A second signal: the run did not wind down; leave at once.
        // SAFETY: _exit is async-signal-safe.
        unsafe { libc::_exit(130) };
    }
    INTERRUPT.stop();
}

/// `landspeed run`: execute the plan, print lines and the summary, write
/// JSON. Ctrl-C ends the run early and still reports.
pub fn run(args: &RunArgs) -> Result<(), String> {
    let plan = load_plan(args)?;
    install_interrupt();
    let mut out = Stdout;
    let mut quiet = Quiet;
    let sink: &mut dyn Sink = if args.quiet { &mut quiet } else { &mut out };
    let result = runtime::execute(&plan, sink, &INTERRUPT).map_err(|e| e.to_string())?;
    print!("{}", result.summary());
    if let Some(path) = &args.json {
        let text = serde_json::to_string_pretty(&result).map_err(|e| format!("JSON: {e}"))?;
        std::fs::write(path, text).map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    Ok(())
}

fn install_interrupt() {
    // SAFETY: the handler only stores to an atomic flag, which is
    // async-signal-safe.
    unsafe {
        libc::signal(libc::SIGINT, on_signal as *const () as libc::sighandler_t);
        libc::signal(libc::SIGTERM, on_signal as *const () as libc::sighandler_t);
    }
}

/// `landspeed ports`: start the EAL and list every port.
pub fn ports(args: &PortsArgs) -> Result<(), String> {
    let eal_args: Vec<String> = match (&args.profile, &args.eal) {
        (Some(p), _) => config::load(p).map_err(|e| e.to_string())?.eal.eal_args(),
        (None, Some(s)) => {
            let mut v = vec!["landspeed".to_string()];
            v.extend(s.split_whitespace().map(str::to_string));
            v
        }
        (None, None) => config::load_default()
            .map_err(|e| e.to_string())?
            .eal
            .eal_args(),
    };
    let _run_dir = runtime::RunDirCleanup::for_args(&eal_args);
    let eal = Eal::init(&eal_args).map_err(|e| format!("DPDK could not start: {e}"))?;
    let mut infos = Vec::new();
    for id in eal.port_ids() {
        let port = Port::open(&eal, id).map_err(|e| e.to_string())?;
        let link = port.link();
        infos.push((port.info().clone(), link));
    }
    if args.json {
        let v: Vec<_> = infos
            .iter()
            .map(|(i, l)| serde_json::json!({ "info": i, "mac": i.mac_string(), "link": l, "offloads": i.offload_names() }))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
        );
    } else if infos.is_empty() {
        println!("no ports: DPDK probed no device (give --vdev=... or bind a NIC to vfio-pci)");
    } else {
        for (i, l) in &infos {
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
                i.max_rx_queues,
                i.max_tx_queues,
                i.rx_ring.0,
                i.rx_ring.1,
                i.tx_ring.0,
                i.tx_ring.1
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
    }
    drop(infos);
    drop(eal);
    Ok(())
}

/// `landspeed replay`: a trace through a simulated bottleneck.
pub fn replay(args: &ReplayArgs) -> Result<(), String> {
    let text = crate::pace::replay::run_cli(&args.trace, &args.bottleneck, &args.buffer, args.json)
        .map_err(|e| e.to_string())?;
    print!("{text}");
    Ok(())
}

/// `landspeed report TX.json RX.json`: join both sides of a run.
pub fn report(tx: &Path, rx: &Path, json: Option<&Path>) -> Result<(), String> {
    let joined = join::join_files(tx, rx)?;
    print!("{}", joined.text());
    if let Some(path) = json {
        let text = serde_json::to_string_pretty(&joined).map_err(|e| format!("JSON: {e}"))?;
        std::fs::write(path, text).map_err(|e| format!("--json {}: {e}", path.display()))?;
    }
    Ok(())
}
