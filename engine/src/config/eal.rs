//! Checks of `eal:` that bound what DPDK is given: the number of devices
//! and the options in `eal.extra_args` (a known list; the ones landspeed
//! sets from other keys, and the ones that print and exit, are refused).

use super::check::Checker;
use super::error::ConfigError;
use super::raw;
use super::validate::MAX_PORTS;

/// EAL options `eal.extra_args` may carry, and whether each takes a
/// value (`--opt=VALUE`, `--opt VALUE`, `-n 4` or `-n4`).
const PASSED_ON: [(&str, bool); 26] = [
    ("-n", true),
    ("-r", true),
    ("-d", true),
    ("--iova-mode", true),
    ("--huge-dir", true),
    ("--socket-limit", true),
    ("--base-virtaddr", true),
    ("--vfio-intr", true),
    ("--vfio-vf-token", true),
    ("--proc-type", true),
    ("--mbuf-pool-ops-name", true),
    ("--force-max-simd-bitwidth", true),
    ("--huge-worker-stack", true),
    ("--trace", true),
    ("--trace-dir", true),
    ("--trace-bufsz", true),
    ("--trace-mode", true),
    ("--in-memory", false),
    ("--legacy-mem", false),
    ("--single-file-segments", false),
    ("--match-allocations", false),
    ("--create-uio-dev", false),
    ("--huge-unlink", false),
    ("--no-hpet", false),
    ("--telemetry", false),
    ("--no-telemetry", false),
];

/// EAL options landspeed sets itself, with the profile key to use instead.
const SET_BY_KEYS: [(&str, &str); 20] = [
    ("-l", "eal.cores"),
    ("-c", "eal.cores"),
    ("--lcores", "eal.cores"),
    ("--main-lcore", "eal.cores"),
    ("--master-lcore", "eal.cores"),
    ("-m", "eal.memory_mb"),
    ("--socket-mem", "eal.memory_mb"),
    ("--no-huge", "eal.hugepages"),
    ("-a", "eal.pci"),
    ("-b", "eal.pci"),
    ("-w", "eal.pci"),
    ("--allow", "eal.pci"),
    ("--block", "eal.pci"),
    ("--pci-whitelist", "eal.pci"),
    ("--no-pci", "eal.pci"),
    ("--vdev", "eal.vdevs"),
    ("--file-prefix", "eal.file_prefix"),
    ("--no-shconf", "eal.file_prefix"),
    ("--log-level", "eal.log_level"),
    ("--syslog", "eal.log_level"),
];

/// EAL options that print something and exit instead of starting.
const EXITS: [&str; 4] = ["-h", "--help", "-v", "--version"];

impl Checker<'_> {
    /// `eal.vdevs` and `eal.pci` together name at most [`MAX_PORTS`]
    /// devices: DPDK cannot make more ports (it says so once per extra
    /// device and goes on).
    pub(super) fn device_count(&self, e: &raw::Eal) -> Result<(), ConfigError> {
        let n = e.vdevs.len() + e.pci.len();
        if n <= MAX_PORTS {
            return Ok(());
        }
        let field = if e.vdevs.len() > MAX_PORTS || e.pci.is_empty() {
            format!("eal.vdevs[{MAX_PORTS}]")
        } else {
            "eal.pci".to_string()
        };
        Err(self.err(
            field,
            format!(
                "{n} devices in eal.vdevs and eal.pci, more than the {MAX_PORTS} ports \
                 DPDK is built for (RTE_MAX_ETHPORTS)"
            ),
        ))
    }

    /// `eal.extra_args`: each an option of [`PASSED_ON`], with its value.
    pub(super) fn extra_args(&self, args: &[String]) -> Result<Vec<String>, ConfigError> {
        let mut i = 0;
        while i < args.len() {
            let at = format!("eal.extra_args[{i}]");
            let arg = args[i].trim();
            let (name, inline) = split_option(arg);
            let takes_value = self.option(&at, arg, name)?;
            match (takes_value, inline) {
                (true, None) if i + 1 >= args.len() => {
                    return Err(self.err(
                        at,
                        format!("`{name}` needs a value: give it as the next item"),
                    ))
                }
                (true, None) => i += 1,
                (false, Some(_)) if name != "--huge-unlink" => {
                    return Err(self.err(at, format!("`{name}` takes no value")))
                }
                _ => {}
            }
            i += 1;
        }
        Ok(args.iter().map(|a| a.trim().to_string()).collect())
    }

    /// Whether the EAL option `name` (written `arg`) is one landspeed
    /// passes on, and whether it takes a value.
    fn option(&self, at: &str, arg: &str, name: &str) -> Result<bool, ConfigError> {
        if let Some(&(_, value)) = PASSED_ON.iter().find(|(o, _)| *o == name) {
            return Ok(value);
        }
        let message = if let Some((_, key)) = SET_BY_KEYS.iter().find(|(o, _)| *o == name) {
            format!("`{name}` is set by landspeed from {key}: give it there")
        } else if EXITS.contains(&name) {
            format!("`{name}` makes DPDK print and exit instead of running: remove it")
        } else if !arg.starts_with('-') {
            format!("`{arg}` is not an EAL option (options start with `-`)")
        } else {
            format!(
                "`{name}` is not an EAL option landspeed passes on; it takes {}",
                PASSED_ON.map(|(o, _)| o).join(", ")
            )
        };
        Err(self.err(at, message))
    }
}

/// An option's name and the value written with it: `--opt=v` → (`--opt`,
/// `v`), `-n4` → (`-n`, `4`), `--opt` → (`--opt`, none).
fn split_option(arg: &str) -> (&str, Option<&str>) {
    if arg.starts_with("--") {
        return match arg.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (arg, None),
        };
    }
    match arg.char_indices().nth(2) {
        Some((k, _)) if arg.starts_with('-') => (&arg[..k], Some(&arg[k..])),
        _ => (arg, None),
    }
}

#[cfg(test)]
mod tests {
    use super::split_option;

    #[test]
    fn options_split_from_their_values() {
        assert_eq!(split_option("--iova-mode=va"), ("--iova-mode", Some("va")));
        assert_eq!(split_option("--in-memory"), ("--in-memory", None));
        assert_eq!(split_option("-n4"), ("-n", Some("4")));
        assert_eq!(split_option("-n"), ("-n", None));
        assert_eq!(split_option("x"), ("x", None));
    }
}
