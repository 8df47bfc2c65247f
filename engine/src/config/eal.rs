//! The `eal:` section: its lcores and the CPUs they run on, the vdevs and
//! PCI devices, the file prefix and log level; and the checks that bound
//! what DPDK is given: the number of devices and the options in
//! `eal.extra_args` (a known list; the ones landspeed sets from other
//! keys, and the ones that print and exit, are refused).

use std::collections::HashMap;
use std::hash::Hash;

use super::check::Checker;
use super::error::ConfigError;
use super::plan::EalPlan;
use super::raw;

/// vdev arguments whose values are file paths, resolved against the
/// profile's folder.
const PATH_ARGS: [&str; 2] = ["tx_pcap", "rx_pcap"];

/// The most ports DPDK is built for (`RTE_MAX_ETHPORTS` in Debian's
/// rte_config.h; a runtime test checks the two agree): more vdevs and PCI
/// devices than this cannot all become ports.
pub(crate) const MAX_PORTS: usize = 32;

/// The fewest ports of a ring mesh (`eal.ring_mesh`).
pub(crate) const MESH_MIN_PORTS: usize = 2;

/// The most ports of a ring mesh: each port has a queue per peer, and the
/// ring PMD gives a port at most 16 (`RTE_PMD_RING_MAX_RX_RINGS`).
pub(crate) const MESH_MAX_PORTS: usize = 8;

/// The most lcores (and CPUs) DPDK is built for (`RTE_MAX_LCORE` in
/// Debian's rte_build_config.h).
const MAX_LCORE: u32 = 128;

/// Log levels `--log-level` accepts by name.
const LOG_LEVELS: [&str; 8] = [
    "emergency",
    "alert",
    "critical",
    "error",
    "warning",
    "notice",
    "info",
    "debug",
];

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
    /// `eal:`
    pub(super) fn eal(&self, e: &raw::Eal) -> Result<EalPlan, ConfigError> {
        self.cores(&e.cores)?;
        self.device_count(e)?;
        if !e.hugepages && e.memory_mb < 64 {
            return Err(self.err(
                "eal.memory_mb",
                format!(
                    "{} MiB is too little without hugepages: give at least 64 \
                     (pools of jumbo mbufs need a few hundred)",
                    e.memory_mb
                ),
            ));
        }
        Ok(EalPlan {
            lcores: e.cores.clone(),
            cpus: self.cpus(&e.cores, e.cpus.as_deref())?,
            main_lcore: e.cores[0],
            hugepages: e.hugepages,
            memory_mb: e.memory_mb,
            vdevs: self.vdevs(&e.vdevs)?,
            pci: self.pci(&e.pci)?,
            ring_mesh: self.ring_mesh(e.ring_mesh)?,
            file_prefix: self.file_prefix(&e.file_prefix)?,
            log_level: self.log_level(&e.log_level)?,
            extra_args: self.extra_args(&e.extra_args)?,
        })
    }

    /// `eal.cores`: at least one, none twice.
    fn cores(&self, cores: &[u32]) -> Result<(), ConfigError> {
        if cores.is_empty() {
            return Err(self.err(
                "eal.cores",
                "list the lcores to use: the main lcore first, then one per task",
            ));
        }
        let mut seen: HashMap<u32, usize> = HashMap::new();
        for (i, &c) in cores.iter().enumerate() {
            self.listed_once(&mut seen, "eal.cores", i, c, format!("lcore {c}"))?;
        }
        Ok(())
    }

    /// `eal.cpus`: the CPU each lcore of `eal.cores` runs on, one per
    /// lcore; absent, each lcore runs on the CPU of its own number.
    fn cpus(&self, cores: &[u32], cpus: Option<&[u32]>) -> Result<Vec<u32>, ConfigError> {
        let Some(cpus) = cpus else {
            return Ok(cores.to_vec());
        };
        if cpus.len() != cores.len() {
            return Err(self.err(
                "eal.cpus",
                format!(
                    "{} CPUs for {} lcores: give one CPU per lcore of eal.cores, in its order",
                    cpus.len(),
                    cores.len()
                ),
            ));
        }
        if let Some((i, &c)) = cpus.iter().enumerate().find(|(_, &c)| c >= MAX_LCORE) {
            return Err(self.err(
                format!("eal.cpus[{i}]"),
                format!("CPU {c} is beyond the {MAX_LCORE} CPUs DPDK is built for (RTE_MAX_LCORE)"),
            ));
        }
        Ok(cpus.to_vec())
    }

    /// Record item `i` of `list` under `key`, `what` naming it in the error
    /// when an earlier item has the same key.
    fn listed_once<K: Eq + Hash>(
        &self,
        seen: &mut HashMap<K, usize>,
        list: &str,
        i: usize,
        key: K,
        what: String,
    ) -> Result<(), ConfigError> {
        match seen.insert(key, i) {
            Some(j) => Err(self.err(
                format!("{list}[{i}]"),
                format!("{what} is listed twice (also {list}[{j}])"),
            )),
            None => Ok(()),
        }
    }

    /// `eal.vdevs`, with file arguments resolved.
    fn vdevs(&self, list: &[String]) -> Result<Vec<String>, ConfigError> {
        let mut vdevs = Vec::with_capacity(list.len());
        let mut names: HashMap<String, usize> = HashMap::new();
        for (i, v) in list.iter().enumerate() {
            let at = format!("eal.vdevs[{i}]");
            let (name, args) = self.vdev_name(&at, v.trim())?;
            self.listed_once(
                &mut names,
                "eal.vdevs",
                i,
                name.to_string(),
                format!("vdev `{name}`"),
            )?;
            vdevs.push(self.vdev_args(&at, name, args)?);
        }
        Ok(vdevs)
    }

    /// A vdev's driver name and the arguments after it.
    fn vdev_name<'v>(
        &self,
        at: &str,
        v: &'v str,
    ) -> Result<(&'v str, Option<&'v str>), ConfigError> {
        let (name, args) = match v.split_once(',') {
            Some((n, a)) => (n.trim(), Some(a)),
            None => (v, None),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Err(self.err(
                at,
                format!(
                    "`{name}` is not a vdev name: give a driver name and a number, \
                     then arguments after commas (e.g. net_pcap0,tx_pcap=out.pcap)"
                ),
            ));
        }
        Ok((name, args))
    }

    /// `name` with its arguments, file paths resolved against the profile's
    /// folder.
    fn vdev_args(&self, at: &str, name: &str, args: Option<&str>) -> Result<String, ConfigError> {
        let mut full = name.to_string();
        for arg in args.into_iter().flat_map(|a| a.split(',')) {
            let arg = arg.trim();
            let arg = match arg.split_once('=') {
                Some((k, val)) if PATH_ARGS.contains(&k.trim()) => {
                    if val.trim().is_empty() {
                        return Err(self.err(at, format!("`{}=` needs a file path", k.trim())));
                    }
                    format!("{}={}", k.trim(), self.resolve(val.trim()).display())
                }
                _ => arg.to_string(),
            };
            full.push(',');
            full.push_str(&arg);
        }
        Ok(full)
    }

    /// `eal.pci`: canonical addresses, each with its arguments.
    fn pci(&self, list: &[String]) -> Result<Vec<String>, ConfigError> {
        let mut pci = Vec::with_capacity(list.len());
        let mut seen: HashMap<String, usize> = HashMap::new();
        for (i, a) in list.iter().enumerate() {
            let (addr, args) = match a.trim().split_once(',') {
                Some((x, rest)) => (x, Some(rest)),
                None => (a.trim(), None),
            };
            let canon = canonical_pci(addr).ok_or_else(|| {
                self.err(
                    format!("eal.pci[{i}]"),
                    format!("`{addr}` is not a PCI address (write e.g. 0000:03:00.0 or 03:00.0)"),
                )
            })?;
            self.listed_once(
                &mut seen,
                "eal.pci",
                i,
                canon.clone(),
                format!("PCI device {canon}"),
            )?;
            pci.push(match args {
                Some(rest) => format!("{canon},{rest}"),
                None => canon,
            });
        }
        Ok(pci)
    }

    /// `eal.file_prefix`: `auto` (`None`) or a safe name.
    fn file_prefix(&self, text: &str) -> Result<Option<String>, ConfigError> {
        match text.trim() {
            "auto" => Ok(None),
            p if !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
            {
                Ok(Some(p.to_string()))
            }
            p => Err(self.err(
                "eal.file_prefix",
                format!("`{p}`: use `auto` or letters, digits, `_` and `-` only"),
            )),
        }
    }

    /// `eal.log_level`, lowercased: a name, 1..=8 or DPDK's pattern form.
    fn log_level(&self, text: &str) -> Result<String, ConfigError> {
        let level = text.trim().to_ascii_lowercase();
        let ok_level = LOG_LEVELS.contains(&level.as_str())
            || level.parse::<u8>().is_ok_and(|n| (1..=8).contains(&n))
            || level.contains(':')
            || level.contains('=');
        if !ok_level {
            return Err(self.err(
                "eal.log_level",
                format!(
                    "unknown log level `{text}`: use one of {} (or DPDK's pattern:level form)",
                    LOG_LEVELS.join(", ")
                ),
            ));
        }
        Ok(level)
    }

    /// `eal.ring_mesh`: the ports of a ring mesh, between
    /// [`MESH_MIN_PORTS`] and [`MESH_MAX_PORTS`].
    fn ring_mesh(&self, n: Option<u32>) -> Result<usize, ConfigError> {
        let Some(n) = n else { return Ok(0) };
        let range = MESH_MIN_PORTS as u32..=MESH_MAX_PORTS as u32;
        if !range.contains(&n) {
            return Err(self.err(
                "eal.ring_mesh",
                format!(
                    "{n} ports: a ring mesh has {MESH_MIN_PORTS} to {MESH_MAX_PORTS} (a queue \
                     per peer, at most 16 on a ring port)"
                ),
            ));
        }
        Ok(n as usize)
    }

    /// `eal.vdevs`, `eal.pci` and `eal.ring_mesh` together name at most
    /// [`MAX_PORTS`] devices: DPDK cannot make more ports (it says so once
    /// per extra device and goes on).
    fn device_count(&self, e: &raw::Eal) -> Result<(), ConfigError> {
        let mesh = e.ring_mesh.unwrap_or(0).min(MESH_MAX_PORTS as u32) as usize;
        let n = e.vdevs.len() + e.pci.len() + mesh;
        if n <= MAX_PORTS {
            return Ok(());
        }
        let field = if e.vdevs.len() > MAX_PORTS || (e.pci.is_empty() && mesh == 0) {
            format!("eal.vdevs[{MAX_PORTS}]")
        } else if mesh > 0 {
            "eal.ring_mesh".to_string()
        } else {
            "eal.pci".to_string()
        };
        let mesh_too = if mesh > 0 { " and eal.ring_mesh" } else { "" };
        let lists = if mesh > 0 {
            "eal.vdevs, eal.pci"
        } else {
            "eal.vdevs and eal.pci"
        };
        Err(self.err(
            field,
            format!(
                "{n} devices in {lists}{mesh_too}, more than the {MAX_PORTS} ports DPDK is \
                 built for (RTE_MAX_ETHPORTS)"
            ),
        ))
    }

    /// `eal.extra_args`: each an option of [`PASSED_ON`], with its value.
    fn extra_args(&self, args: &[String]) -> Result<Vec<String>, ConfigError> {
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

/// `0000:03:00.0` for `0000:03:00.0` or `03:00.0` (hex digits, any case),
/// `None` when `s` is not a PCI address.
pub(crate) fn canonical_pci(s: &str) -> Option<String> {
    let s = s.trim();
    let (rest, func) = s.rsplit_once('.')?;
    let parts: Vec<&str> = rest.split(':').collect();
    let (domain, bus, dev) = match parts.as_slice() {
        [d, b, v] => (*d, *b, *v),
        [b, v] => ("0000", *b, *v),
        _ => return None,
    };
    let hex = |t: &str, max: usize| {
        !t.is_empty() && t.len() <= max && t.chars().all(|c| c.is_ascii_hexdigit())
    };
    if !(hex(domain, 8) && hex(bus, 2) && hex(dev, 2) && func.len() == 1 && hex(func, 1)) {
        return None;
    }
    let n = |t: &str| u32::from_str_radix(t, 16).ok();
    let (d, b, v, f) = (n(domain)?, n(bus)?, n(dev)?, n(func)?);
    if v > 0x1f || f > 7 {
        return None;
    }
    Some(format!("{d:04x}:{b:02x}:{v:02x}.{f:x}"))
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
