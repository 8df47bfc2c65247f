//! A worker lcore whose CPU another process shares is descheduled for a
//! large part of the run: the run says so (a `warning:` line, a problem in
//! the JSON, exit status 3), and its cycle figures and the CPU verdict are
//! marked not trustworthy.

use crate::common;

use std::process::{Child, Command, Stdio};

use crate::common::{json_f64, json_str, landspeed, read_json};
use serde_json::Value;

/// A process spinning on one CPU, killed when dropped.
struct Spinner(Child);

impl Spinner {
    /// `sh -c 'while :; do :; done'` pinned to `cpu`.
    fn on(cpu: u32) -> Spinner {
        let child = Command::new("taskset")
            .args(["-c", &cpu.to_string(), "sh", "-c", "while :; do :; done"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("taskset runs");
        Spinner(child)
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_receiver_sharing_its_cpu_says_its_cpu_figures_are_not_trustworthy() {
    // The spinner would deschedule any other test's run too.
    let _alone = common::alone();
    // configs/null-rx.yaml polls on lcore 1, which the EAL pins to CPU 1.
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("out.json");
    let profile = concat!(env!("CARGO_MANIFEST_DIR"), "/../configs/null-rx.yaml");
    let out = {
        let _busy = Spinner::on(1);
        let args = ["run", profile, "-t", "1s", "-q", "--json"];
        landspeed(
            dir.path(),
            args.iter().copied().chain([json.to_str().unwrap()]),
        )
    };
    assert_eq!(out.status.code(), Some(3), "{}\n{}", out.stdout, out.stderr);
    let v = read_json(&json);
    let cpu = &v["rx"]["tasks"][0]["cpu_time"];
    let pct = json_f64(cpu, "/descheduled_pct");
    // Two runnable threads on one CPU share it about evenly.
    assert!(pct > 20.0, "descheduled {pct} %: {cpu}");
    let wait = json_f64(cpu, "/wait_ns");
    let wall = json_f64(cpu, "/wall_ns");
    assert_eq!(pct, wait * 100.0 / wall);
    assert!(wall >= 1e9, "{cpu}");
    let problems = v["outcome"]["problems"].as_array().unwrap();
    let p: Vec<&Value> = problems
        .iter()
        .filter(|p| p["kind"] == "descheduled")
        .collect();
    assert_eq!(p.len(), 1, "{problems:?}");
    assert_eq!(
        (json_str(p[0], "/role"), p[0]["lcore"].as_u64()),
        ("RX", Some(1))
    );
    assert_eq!(json_f64(p[0], "/descheduled_pct"), pct);
    let warning = format!("warning: RX lcore 1 was descheduled for {pct:.1} % of its run");
    assert!(out.stdout.contains(&warning), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("(its CPU was shared: these cycle figures are not trustworthy)"),
        "{}",
        out.stdout
    );
    // The verdict neither blames nor clears the CPU on those cycles.
    let why = json_str(&v, "/verdict/explanation");
    assert!(
        why.contains("so the CPU is neither blamed nor cleared by this verdict"),
        "{why}"
    );
    assert_ne!(json_str(&v, "/verdict/binding"), "cpu", "{why}");
    assert_eq!(
        v["observation"]["rx_descheduled"].as_f64(),
        Some(pct / 100.0)
    );
}
