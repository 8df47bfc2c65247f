//! What the host's CPU says of its time-stamp counter (TSC): landspeed
//! schedules departures and counts cycles on it, which holds only when it
//! ticks at a constant rate (`constant_tsc`) and keeps ticking in deep
//! idle states (`nonstop_tsc`), the two flags of an invariant TSC in
//! `/proc/cpuinfo`.
#![forbid(unsafe_code)]

/// The flags of an invariant TSC, as `/proc/cpuinfo` names them.
pub const INVARIANT_TSC_FLAGS: [&str; 2] = ["constant_tsc", "nonstop_tsc"];

/// The invariant-TSC flags missing from the first `flags` line of
/// `cpuinfo` (the text of `/proc/cpuinfo`), in [`INVARIANT_TSC_FLAGS`]'
/// order; `None` when the text has no `flags` line (not an x86 host, or
/// the file could not be read): nothing is known.
pub fn missing_tsc_flags(cpuinfo: &str) -> Option<Vec<&'static str>> {
    let line = cpuinfo.lines().find_map(|l| {
        let (key, value) = l.split_once(':')?;
        (key.trim() == "flags").then_some(value)
    })?;
    let flags: Vec<&str> = line.split_whitespace().collect();
    Some(
        INVARIANT_TSC_FLAGS
            .into_iter()
            .filter(|f| !flags.contains(f))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_flags_present() {
        let text = "processor\t: 0\nflags\t\t: fpu tsc rdtscp constant_tsc nonstop_tsc tsc_known_freq\nbogomips\t: 5000\n";
        assert_eq!(missing_tsc_flags(text), Some(vec![]));
    }

    #[test]
    fn missing_flags_are_named_in_order() {
        let text = "flags\t\t: fpu tsc constant_tsc_x nonstop_tsc\n";
        assert_eq!(missing_tsc_flags(text), Some(vec!["constant_tsc"]));
        let text = "flags\t: fpu tsc\nflags\t: constant_tsc nonstop_tsc\n";
        assert_eq!(
            missing_tsc_flags(text),
            Some(vec!["constant_tsc", "nonstop_tsc"]),
            "the first CPU's line is read"
        );
    }

    #[test]
    fn no_flags_line_is_unknown() {
        assert_eq!(missing_tsc_flags(""), None);
        assert_eq!(missing_tsc_flags("Features\t: fp asimd\n"), None);
        // "vmx flags" (a line of its own on newer kernels) is not "flags".
        assert_eq!(missing_tsc_flags("vmx flags\t: vnmi\n"), None);
    }
}
