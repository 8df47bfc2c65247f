//! What a test needs of this host beyond the crate (root, network
//! namespaces, a device file, a program, a DPDK driver), and the skip
//! line of a test that cannot have it.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

/// One thing a test needs of the host.
#[derive(Debug, Clone, Copy)]
pub enum Need {
    /// Linux.
    Linux,
    /// Root (uid 0), for what the text says: `not root (TEXT)` otherwise.
    Root(&'static str),
    /// A working `ip netns` (iproute2).
    Netns,
    /// A file that exists (`/dev/net/tun`), and what it is.
    File(&'static str, &'static str),
    /// A program on the `PATH`, and what it is for or where it comes from.
    Program(&'static str, &'static str),
    /// A driver of DPDK's (`librte_net_vhost.so`) in one of its PMD
    /// directories.
    Pmd(&'static str),
}

/// Where Debian's DPDK keeps its PMD directories.
const PMD_DIRS: &str = "/usr/lib/x86_64-linux-gnu/dpdk";

/// Why a test that needs `needs` cannot run here, if it cannot: the first
/// need this host does not meet.
pub fn unavailable(needs: &[Need]) -> Option<String> {
    needs.iter().find_map(|need| match *need {
        Need::Linux => (!cfg!(target_os = "linux")).then(|| "not Linux".to_string()),
        Need::Root(what) => (!is_root()).then(|| format!("not root ({what})")),
        Need::Netns => match Command::new("ip")
            .args(["netns", "list"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
        {
            Ok(s) if s.success() => None,
            Ok(s) => Some(format!("`ip netns list` failed ({s})")),
            Err(e) => Some(format!("cannot run `ip` (iproute2): {e}")),
        },
        Need::File(path, what) => {
            (!Path::new(path).exists()).then(|| format!("no {path} ({what})"))
        }
        Need::Program(name, what) => (!on_path(name)).then(|| format!("no `{name}` ({what})")),
        Need::Pmd(file) => {
            let found = std::fs::read_dir(PMD_DIRS)
                .into_iter()
                .flatten()
                .flatten()
                .any(|d| d.path().join(file).exists());
            (!found).then(|| format!("DPDK's {file} is not installed"))
        }
    })
}

/// Prints `skipping TESTS tests: WHY (TEST)` and returns true when a test
/// needs what this host does not have. The line goes straight to the
/// process's stderr: the harness captures `eprintln!` of passing tests,
/// and this line must be seen.
pub fn skip(tests: &str, test: &str, needs: &[Need]) -> bool {
    match unavailable(needs) {
        Some(why) => {
            let _ = writeln!(std::io::stderr(), "skipping {tests} tests: {why} ({test})");
            true
        }
        None => false,
    }
}

/// Whether this process runs as root (uid 0, read from /proc).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("Uid:"))?.to_string();
            Some(line.split_whitespace().nth(2)? == "0")
        })
        .unwrap_or(false)
}

/// Whether `program` is a file in a directory of the `PATH`.
pub fn on_path(program: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(program).is_file()))
}
