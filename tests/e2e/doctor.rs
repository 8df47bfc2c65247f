//! `landspeed doctor`: the host's checks, a profile's ports opened once on
//! a virtual device, what could not be checked said so, and the exit
//! status (0 all good, 3 warnings, 1 errors).

use crate::common::{landspeed, write_file, NULL_YAML};

#[test]
fn the_null_profile_s_port_is_opened_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let out = landspeed(dir.path(), ["doctor", NULL_YAML]);
    // This host's hugepages, IOMMU and isolation decide 0 or 3, never 1.
    out.assert_exit_in(&[0, 3]);
    let lines: Vec<&str> = out.stdout.lines().collect();
    for want in [
        "unchecked port p0 device: net_null0 is a virtual device: no PCI device, NUMA node or \
         kernel driver to check",
        "ok        port p0 link: net_null0 (net_null): up, 10000 Mbit/s",
        "unchecked port p0 flow control: a virtual device has none",
        "unchecked port p0 TX path: net_null does not report its burst path",
        "ok        port p0 offloads: asked: none; offered: rss",
        "ok        port p0 fast free: not offered by the driver",
        // 9130-byte frames less the 18 bytes of Ethernet header and FCS.
        "ok        port p0 MTU: set 9112, read back 9112",
    ] {
        assert!(lines.contains(&want), "no line `{want}` in\n{}", out.stdout);
    }
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("ok        invariant TSC")
                || l.starts_with("error     invariant TSC")
                || l.starts_with("unchecked invariant TSC")),
        "{}",
        out.stdout
    );
    let last = lines.last().unwrap();
    assert!(
        last.starts_with("doctor: ") && last.ends_with(" not checked"),
        "{last}"
    );
    let warned = lines.iter().any(|l| l.starts_with("warning "));
    assert_eq!(out.status.code(), Some(if warned { 3 } else { 0 }));
}

#[test]
fn without_a_profile_it_says_no_port_was_opened() {
    let dir = tempfile::tempdir().unwrap();
    let out = landspeed(dir.path(), ["doctor"]);
    out.assert_exit_in(&[0, 3]);
    assert!(
        out.stdout.contains(
            "unchecked ports: no profile given: no port opened (drivers, burst paths, offloads, \
             MTU, link) → `landspeed doctor PROFILE`\n"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn a_port_a_run_cannot_open_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let yaml = std::fs::read_to_string(NULL_YAML)
        .unwrap()
        .replace(
            "vdevs: [net_null0]",
            "vdevs: [\"net_af_packet0,iface=nosuchif0\"]",
        )
        .replace("device: net_null0", "device: net_af_packet0");
    let profile = write_file(dir.path(), "bad.yaml", &yaml);
    let out = landspeed(dir.path(), ["doctor", profile.to_str().unwrap()]);
    out.assert_exit_in(&[1]);
    assert!(
        out.stdout
            .contains("error     port p0 MTU: nosuchif0: mtu unreadable")
            || out
                .stdout
                .contains("unchecked port p0 MTU: nosuchif0: mtu unreadable"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("error     ports: a run would fail: "),
        "{}",
        out.stdout
    );
}

#[test]
fn a_missing_profile_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = landspeed(dir.path(), ["doctor", "no-such-profile.yaml"]);
    out.assert_exit_in(&[1]);
    assert!(
        out.stderr.contains("no-such-profile.yaml"),
        "{}",
        out.stderr
    );
}
