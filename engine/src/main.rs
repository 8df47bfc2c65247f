//! The `landspeed` command: parse the command line, call the library, print.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use landspeed::outcome::exit;
use landspeed::{cli, limits};

/// A DPDK traffic engine: jumbo IPv4/IPv6 frames on pinned cores, departures
/// scheduled on the TSC, every received frame verified, and a verdict on
/// what limited the transfer.
#[derive(Parser)]
#[command(name = "landspeed", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Run a profile (the built-in configs/null.yaml when none is given).
    Run(cli::RunArgs),
    /// List the DPDK ports the EAL sees.
    Ports(cli::PortsArgs),
    /// Print the link, bus, CPU and long-path ceilings on one page.
    Limits(limits::cli::LimitsArgs),
    /// Replay a recorded departure trace through a simulated bottleneck.
    Replay(cli::ReplayArgs),
    /// Join a sender's and a receiver's JSON results into one report.
    Report {
        /// The sender's `--json` output.
        tx: PathBuf,
        /// The receiver's `--json` output.
        rx: PathBuf,
        /// Write the joined report as JSON here too.
        #[arg(long)]
        json: Option<PathBuf>,
    },
    /// Certify a device under test as RFC 2544 asks: throughput, latency,
    /// frame loss rate, back-to-back frames, system recovery and reset.
    Rfc2544(cli::Rfc2544Args),
    /// Evaluate a switch as RFC 2889 asks, on the profile's mesh of
    /// ports: fully and partially meshed traffic, congestion control,
    /// forwarding rate, address caching capacity and learning rate.
    Rfc2889(cli::Rfc2544Args),
    /// Serve the Open Traffic Generator API (snappi, OTG test suites) and
    /// a Prometheus scrape; each traffic start runs the engine.
    Serve(landspeed::serve::ServeArgs),
    /// Check this host (hugepages, IOMMU, CPU isolation, TSC, governor)
    /// and a profile's ports (driver, burst paths, offloads, fast free,
    /// MTU, link); each finding says what to do. Exit 0 all good, 3
    /// warnings, 1 errors.
    Doctor {
        /// The profile whose ports to open once and check.
        profile: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let ok = |r: landspeed::Result<()>| r.map(|()| exit::OK);
    let result = match cli.cmd {
        Cmd::Run(args) => cli::run(&args),
        Cmd::Ports(args) => ok(cli::ports(&args)),
        Cmd::Limits(args) => ok(limits::cli::run_limits(&args)
            .map(|page| landspeed::output::print(&page))
            .map_err(landspeed::Error::from)),
        Cmd::Replay(args) => ok(cli::replay(&args)),
        Cmd::Report { tx, rx, json } => ok(cli::report(&tx, &rx, json.as_deref())),
        Cmd::Rfc2544(args) => cli::rfc2544(&args),
        Cmd::Rfc2889(args) => cli::rfc2889(&args),
        Cmd::Serve(args) => landspeed::serve::serve(&args),
        Cmd::Doctor { profile } => landspeed::doctor::run(profile.as_deref()),
    };
    match result {
        Ok(status) => ExitCode::from(status),
        Err(e) => {
            // No panic if standard error is gone too.
            let _ = writeln!(std::io::stderr(), "landspeed: error: {e}");
            ExitCode::from(exit::ERROR)
        }
    }
}
