//! The PTP servo read for the two-host clock's bound: a real `ptp4l`
//! master and slave in two namespaces joined by a veth pair (software
//! timestamping, L2 transport), the slave with `free_running 1` so that
//! it never steers this machine's clock; `landspeed run` on the null PMD
//! with a synced TX clock reads the slave's management socket
//! (`clock_servo: ptp4l:PATH`), and the JSON must say what `pmc` says.
//!
//! A free-running slave never locks on its own (its port stays
//! UNCALIBRATED): the first run must report the servo not locked. Told
//! that its synchronisation is certain (`SET SYNCHRONIZATION_UNCERTAIN_NP
//! 0`) it moves to SLAVE, and the second run must report it locked.
//!
//! Needs root and linuxptp (`ptp4l`, `pmc`: `scripts/setup` installs
//! them); without either the test prints `skipping ptp servo tests: ...`
//! and passes.

use crate::common;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::host::Need;
use crate::common::{
    find_problem, json_f64, json_str, json_u64, landspeed, read_json, write_file, NULL_YAML,
};

/// What the PTP lab needs of the host.
const NEEDS: &[Need] = &[
    Need::Root("namespaces and veth links need CAP_NET_ADMIN"),
    Need::Program("ptp4l", "apt-get install linuxptp"),
    Need::Program("pmc", "apt-get install linuxptp"),
    Need::Program("ip", "apt-get install iproute2"),
];

fn ip(args: &[&str]) {
    let st = Command::new("ip").args(args).status().expect("ip runs");
    assert!(st.success(), "ip {args:?} failed");
}

/// Two namespaces, a veth pair between them, a `ptp4l` in each; the
/// daemons killed and the namespaces deleted on drop (a panic too).
struct PtpLab {
    master_ns: String,
    slave_ns: String,
    dir: tempfile::TempDir,
    daemons: Vec<Child>,
}

impl PtpLab {
    fn up() -> PtpLab {
        let id = std::process::id() % 100_000;
        let mut lab = PtpLab {
            master_ns: format!("lsptp-m{id}"),
            slave_ns: format!("lsptp-s{id}"),
            dir: tempfile::tempdir().unwrap(),
            daemons: Vec::new(),
        };
        let (m_if, s_if) = (format!("lpm{id}"), format!("lps{id}"));
        ip(&["netns", "add", &lab.master_ns]);
        ip(&["netns", "add", &lab.slave_ns]);
        ip(&[
            "link",
            "add",
            &m_if,
            "netns",
            &lab.master_ns,
            "type",
            "veth",
            "peer",
            "name",
            &s_if,
            "netns",
            &lab.slave_ns,
        ]);
        ip(&["-n", &lab.master_ns, "link", "set", &m_if, "up"]);
        ip(&["-n", &lab.slave_ns, "link", "set", &s_if, "up"]);
        let common = "network_transport L2\nlogSyncInterval -2\nlogAnnounceInterval -1\n";
        let m_cfg = format!(
            "[global]\nuds_address {}\npriority1 1\n{common}",
            lab.master_sock().display()
        );
        let s_cfg = format!(
            "[global]\nuds_address {}\nslaveOnly 1\nfree_running 1\n{common}",
            lab.slave_sock().display()
        );
        let m_cfg = write_file(lab.dir.path(), "master.cfg", &m_cfg);
        let s_cfg = write_file(lab.dir.path(), "slave.cfg", &s_cfg);
        for (ns, cfg, ifc, log) in [
            (lab.master_ns.clone(), m_cfg, m_if, "master.log"),
            (lab.slave_ns.clone(), s_cfg, s_if, "slave.log"),
        ] {
            let log = std::fs::File::create(lab.dir.path().join(log)).unwrap();
            let child = Command::new("ip")
                .args([
                    "netns",
                    "exec",
                    ns.as_str(),
                    "ptp4l",
                    "-S",
                    "-m",
                    "-i",
                    ifc.as_str(),
                    "-f",
                ])
                .arg(&cfg)
                .stdout(log.try_clone().unwrap())
                .stderr(log)
                .spawn()
                .expect("ptp4l starts");
            lab.daemons.push(child);
        }
        lab
    }

    fn master_sock(&self) -> PathBuf {
        self.dir.path().join("master.sock")
    }

    fn slave_sock(&self) -> PathBuf {
        self.dir.path().join("slave.sock")
    }

    /// `pmc -u -b 0 -s SOCK ACTION`'s output.
    fn pmc(&self, sock: &Path, action: &str) -> String {
        let out = Command::new("timeout")
            .arg("5")
            .args(["pmc", "-u", "-b", "0", "-s"])
            .arg(sock)
            .arg(action)
            .output()
            .expect("pmc runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The value of `field` in `pmc`'s answer to `GET what` on `sock`.
    fn pmc_field(&self, sock: &Path, what: &str, field: &str) -> Option<String> {
        let text = self.pmc(sock, &format!("GET {what}"));
        text.lines().find_map(|l| {
            let mut w = l.split_whitespace();
            (w.next() == Some(field)).then(|| w.next().unwrap_or("").to_string())
        })
    }

    /// Waits up to `limit` for `field` of `what` on the slave to be `want`.
    fn wait_for(&self, what: &str, field: &str, want: &str, limit: Duration) {
        let start = Instant::now();
        loop {
            let got = self.pmc_field(&self.slave_sock(), what, field);
            if got.as_deref() == Some(want) {
                return;
            }
            if start.elapsed() > limit {
                let log = std::fs::read_to_string(self.dir.path().join("slave.log"));
                panic!(
                    "the slave's {what} {field} is {got:?}, not {want}, after {limit:?}:\n{}",
                    log.unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }

    /// `landspeed run` of the null profile, stamps on CLOCK_REALTIME,
    /// reading the slave's servo: its exit status and JSON.
    fn run(&self, name: &str) -> (Option<i32>, Value) {
        let text = std::fs::read_to_string(NULL_YAML).unwrap();
        let servo = format!(
            "    port: p0\n    clock: synced\n    clock_servo: \"ptp4l:{}\"\n",
            self.slave_sock().display()
        );
        let text = text
            .replacen("    port: p0             # sends on port p0\n", &servo, 1)
            .replacen("    rate: 5G ", "    rate: 100M ", 1);
        let profile = write_file(self.dir.path(), &format!("{name}.yaml"), &text);
        let json = self.dir.path().join(format!("{name}.json"));
        let out = landspeed(
            self.dir.path(),
            [
                OsStr::new("run"),
                profile.as_os_str(),
                OsStr::new("--duration"),
                OsStr::new("5s"),
                OsStr::new("--json"),
                json.as_os_str(),
            ],
        );
        assert!(
            !out.stderr.contains("panicked"),
            "{}\n{}",
            out.stdout,
            out.stderr
        );
        assert!(json.exists(), "no result:\n{}\n{}", out.stdout, out.stderr);
        (out.status.code(), read_json(&json))
    }
}

impl Drop for PtpLab {
    fn drop(&mut self) {
        for d in &mut self.daemons {
            let _ = d.kill();
            let _ = d.wait();
        }
        for ns in [&self.master_ns, &self.slave_ns] {
            let _ = Command::new("ip").args(["netns", "delete", ns]).status();
        }
    }
}

/// The servo's record, and what every run must say of it.
fn servo_of<'a>(v: &'a Value, lab: &PtpLab, master: &str, slave: &str) -> &'a Value {
    let c = &v["tx"]["clock"];
    let servo = &c["servo"];
    assert_eq!(json_str(servo, "/daemon"), "ptp4l");
    assert_eq!(
        json_str(servo, "/socket"),
        lab.slave_sock().to_str().unwrap()
    );
    assert_eq!(
        json_str(servo, "/gm_identity"),
        master,
        "the master's identity"
    );
    assert_eq!(json_str(servo, "/clock_identity"), slave, "the slave's own");
    assert_eq!(json_str(c, "/error_from"), "ptp4l");
    // A 5 s run: the first sample, one every 2 s, the last.
    let samples = json_u64(servo, "/samples");
    assert!((3..=5).contains(&samples), "{samples} samples in 5 s");
    assert_eq!(json_u64(servo, "/unanswered"), 0);
    let (off, delay) = (
        json_f64(servo, "/max_abs_offset_ns"),
        json_f64(servo, "/max_path_delay_ns"),
    );
    // Two namespaces of one kernel: one clock, a veth between them.
    assert!(off.is_finite() && off < 1e6, "offset {off}");
    assert!(
        delay.is_finite() && delay > 0.0 && delay < 1e6,
        "delay {delay}"
    );
    assert!(json_f64(servo, "/last_offset_ns").abs() <= off);
    servo
}

/// The `clock_not_synced` problem of the sender, if any.
fn not_synced(v: &Value) -> Option<&Value> {
    find_problem(v, "clock_not_synced")
}

#[test]
fn the_slaves_servo_is_read_as_pmc_reads_it() {
    if common::host::skip(
        "ptp servo",
        "the_slaves_servo_is_read_as_pmc_reads_it",
        NEEDS,
    ) {
        return;
    }
    // The daemons answer within bounds and the runs read them: nothing
    // else runs meanwhile.
    let _alone = common::alone();
    let lab = PtpLab::up();
    lab.wait_for(
        "TIME_STATUS_NP",
        "gmPresent",
        "true",
        Duration::from_secs(20),
    );
    let master = lab
        .pmc_field(&lab.master_sock(), "DEFAULT_DATA_SET", "clockIdentity")
        .expect("the master's identity");
    let slave = lab
        .pmc_field(&lab.slave_sock(), "DEFAULT_DATA_SET", "clockIdentity")
        .expect("the slave's identity");
    assert_ne!(master, slave);
    lab.wait_for(
        "PORT_DATA_SET",
        "portState",
        "UNCALIBRATED",
        Duration::from_secs(5),
    );

    // Free-running: the servo never locks.
    let (code, v) = lab.run("unlocked");
    let servo = servo_of(&v, &lab, &master, &slave);
    assert_eq!(servo["port_states"], serde_json::json!(["UNCALIBRATED"]));
    assert_eq!(
        (servo["locked"].as_bool(), json_str(servo, "/role")),
        (Some(false), "unlocked")
    );
    assert_eq!(
        json_str(servo, "/not_locked"),
        format!("port 1 UNCALIBRATED, grandmaster {master}: the servo has not locked")
    );
    let p = not_synced(&v).expect("a servo that has not locked is not synchronised");
    assert_eq!(json_str(p, "/side"), "sender");
    if v["tx"]["clock"]["kernel"]["synced"] == true {
        assert!(json_str(p, "/servo").contains("UNCALIBRATED"), "{p}");
    } else {
        assert!(
            p.get("servo").is_none(),
            "the kernel's reason comes first: {p}"
        );
    }
    assert_eq!(code, Some(3), "a problem: exit status 3");

    // Certain of its synchronisation, the free-running slave locks.
    let set = lab.pmc(&lab.slave_sock(), "SET SYNCHRONIZATION_UNCERTAIN_NP 0");
    assert!(set.contains("uncertain 0"), "{set}");
    lab.wait_for(
        "PORT_DATA_SET",
        "portState",
        "SLAVE",
        Duration::from_secs(10),
    );
    let (_, v) = lab.run("locked");
    let servo = servo_of(&v, &lab, &master, &slave);
    assert_eq!(servo["port_states"], serde_json::json!(["SLAVE"]));
    assert_eq!(
        (servo["locked"].as_bool(), json_str(servo, "/role")),
        (Some(true), "slave")
    );
    assert!(servo.get("not_locked").is_none(), "{servo}");
    // Synchronised exactly when the kernel says so too.
    let kernel = v["tx"]["clock"]["kernel"]["synced"] == true;
    assert_eq!(not_synced(&v).is_none(), kernel, "{:?}", not_synced(&v));
    if let Some(p) = not_synced(&v) {
        assert!(p.get("servo").is_none(), "the servo is locked: {p}");
    }
}

#[test]
fn a_servo_that_does_not_answer_stops_the_run_before_it_starts() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(NULL_YAML).unwrap();
    let sock = dir.path().join("no-ptp4l-here");
    let text = text.replacen(
        "    port: p0             # sends on port p0\n",
        &format!(
            "    port: p0\n    clock: synced\n    clock_servo: \"ptp4l:{}\"\n",
            sock.display()
        ),
        1,
    );
    let profile = write_file(dir.path(), "p.yaml", &text);
    let out = landspeed(dir.path(), [OsStr::new("run"), profile.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{}\n{}", out.stdout, out.stderr);
    out.assert_error(&[
        "p.yaml:",
        "tx[0].clock_servo: ptp4l at ",
        "no-ptp4l-here: cannot send to it: ",
    ]);
    // The client's own socket is gone.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().contains("landspeed-pmc"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
