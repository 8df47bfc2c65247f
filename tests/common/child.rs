//! A `landspeed` run as a background child process (optionally inside a
//! network namespace), for the tests that run a sender and a receiver side
//! by side, and the report that joins their results.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{read_json, BIN};

/// A `landspeed` child with its output in files; killed on drop if still
/// running.
pub struct Proc {
    pub child: Child,
    pub name: String,
    pub out: PathBuf,
    pub err: PathBuf,
}

/// What a finished child left.
pub struct Done {
    pub status: ExitStatus,
    pub pid: u32,
    pub stdout: String,
    pub stderr: String,
    pub name: String,
}

impl Proc {
    /// `landspeed ARGS` in `dir`, output to `NAME.out` and `NAME.err`.
    /// (`ip netns exec` execs, so with a namespace too the child is
    /// landspeed.)
    pub fn start_plain(dir: &Path, name: &str, args: &[&str]) -> Proc {
        Self::start(dir, name, None, args)
    }

    /// `ip netns exec NS landspeed ARGS`, or plain `landspeed ARGS` when
    /// `ns` is `None`.
    pub fn start(dir: &Path, name: &str, ns: Option<&str>, args: &[&str]) -> Proc {
        let out = dir.join(format!("{name}.out"));
        let err = dir.join(format!("{name}.err"));
        let mut cmd = match ns {
            Some(ns) => {
                let mut c = Command::new("ip");
                c.args(["netns", "exec", ns, BIN]);
                c
            }
            None => Command::new(BIN),
        };
        let child = cmd
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out).unwrap())
            .stderr(std::fs::File::create(&err).unwrap())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"));
        Proc {
            child,
            name: name.to_string(),
            out,
            err,
        }
    }

    /// Waits until the child prints its interval header: its workers are
    /// polling.
    pub fn wait_ready(&mut self, limit: Duration) {
        let start = Instant::now();
        loop {
            let out = std::fs::read_to_string(&self.out).unwrap_or_default();
            if out.contains("Interval") {
                return;
            }
            if let Some(st) = self.child.try_wait().expect("try_wait") {
                panic!(
                    "{} ended ({st}) before it was ready\n{}",
                    self.name,
                    std::fs::read_to_string(&self.err).unwrap_or_default()
                );
            }
            assert!(
                start.elapsed() < limit,
                "{} not ready after {limit:?}",
                self.name
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGINT: landspeed ends its run early, reports and writes its JSON.
    pub fn interrupt(&self) {
        let _ = Command::new("kill")
            .args(["-INT", &self.child.id().to_string()])
            .status();
    }

    /// Waits at most `limit`; kills the child and fails after that.
    pub fn wait(mut self, limit: Duration) -> Done {
        let start = Instant::now();
        let status = loop {
            if let Some(st) = self.child.try_wait().expect("try_wait") {
                break st;
            }
            if start.elapsed() > limit {
                let _ = self.child.kill();
                let _ = self.child.wait();
                panic!(
                    "{} still running after {limit:?}: killed\n{}",
                    self.name,
                    std::fs::read_to_string(&self.err).unwrap_or_default()
                );
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        Done {
            status,
            pid: self.child.id(),
            stdout: std::fs::read_to_string(&self.out).unwrap_or_default(),
            stderr: std::fs::read_to_string(&self.err).unwrap_or_default(),
            name: self.name.clone(),
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Done {
    pub fn assert_success(&self) {
        assert!(
            self.status.success() && !self.stderr.contains("panicked"),
            "{} failed with {}\n--- stdout\n{}\n--- stderr\n{}",
            self.name,
            self.status,
            self.stdout,
            self.stderr
        );
    }

    /// A clean failure: non-zero exit code, no panic, one
    /// `landspeed: error:` line containing each of `words`.
    pub fn assert_error(&self, words: &[&str]) {
        assert!(
            matches!(self.status.code(), Some(c) if c != 0),
            "{} should fail with a non-zero exit code, got {}\n{}",
            self.name,
            self.status,
            self.stderr
        );
        assert!(!self.stderr.contains("panicked"), "{}", self.stderr);
        let line = self
            .stderr
            .lines()
            .find(|l| l.starts_with("landspeed: error: "))
            .unwrap_or_else(|| panic!("{}: no error line:\n{}", self.name, self.stderr));
        for w in words {
            assert!(line.contains(w), "`{w}` missing from: {line}");
        }
    }
}

/// A sender and a receiver side by side: `receiver` is already polling;
/// the sender, `landspeed ARGS` in `dir` (inside namespace `ns`, if any),
/// runs to its end (at most `tx_limit`); `linger` later (for the frames
/// still on their way) the receiver is interrupted (SIGINT: it reports
/// what it got) and waited for (at most `rx_limit`). The sender's end and
/// the receiver's; the callers check their exits.
pub fn side_by_side(
    dir: &Path,
    receiver: Proc,
    ns: Option<&str>,
    args: &[&str],
    (tx_limit, rx_limit): (Duration, Duration),
    linger: Duration,
) -> (Done, Done) {
    let sender = Proc::start(dir, "sender", ns, args).wait(tx_limit);
    std::thread::sleep(linger);
    receiver.interrupt();
    let receiver = receiver.wait(rx_limit);
    (sender, receiver)
}

/// `landspeed report TX RX --json JOINED`, which must succeed: its text
/// and the joined result.
pub fn report(tx: &Path, rx: &Path, joined: &Path) -> (String, Value) {
    let rep = Command::new(BIN)
        .arg("report")
        .args([tx, rx])
        .arg("--json")
        .arg(joined)
        .output()
        .unwrap_or_else(|e| panic!("cannot run landspeed report: {e}"));
    let text = String::from_utf8_lossy(&rep.stdout).into_owned();
    assert!(
        rep.status.success(),
        "landspeed report failed:\n{text}{}",
        String::from_utf8_lossy(&rep.stderr)
    );
    (text, read_json(joined))
}
