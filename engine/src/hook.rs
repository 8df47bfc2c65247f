//! Running a device-under-test hook (`certify.dut`, docs/profile.md): a
//! shell command the certification runs before or after each trial, or
//! to reset the device.
//!
//! The command runs as `sh -c COMMAND`, standard input from `/dev/null`,
//! its standard output and error into one pipe (in the order it wrote
//! them) of which the last [`OUTPUT_KEEP`] bytes are kept. It runs in a
//! process group of its own, so that everything it started can be killed
//! at once: at its time limit (or when the caller cancels it), and also
//! when it ends, for whatever it left running in its group (a daemon it
//! means to keep must leave the group, with `setsid`). The certification
//! waits for it on the main lcore; no worker runs meanwhile.

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::certify::model::HookRun;
use crate::dpdk::signal::kill_group;

/// Bytes of a hook's output kept: its tail.
pub const OUTPUT_KEEP: usize = 4096;
/// How often a running hook is looked at.
const LOOK: Duration = Duration::from_millis(5);
/// How long the output pipe is read after the hook ended, for what a
/// process that left the group still writes (then it is left behind).
const DRAIN: Duration = Duration::from_millis(200);

/// The last bytes written, at most `keep`, and how many were written.
#[derive(Debug, Default)]
struct Tail {
    keep: usize,
    bytes: Vec<u8>,
    total: u64,
}

impl Tail {
    fn push(&mut self, data: &[u8]) {
        self.total += data.len() as u64;
        self.bytes.extend_from_slice(data);
        if self.bytes.len() > self.keep {
            let cut = self.bytes.len() - self.keep;
            self.bytes.drain(..cut);
        }
    }
}

/// Runs hook `hook` (`before_trial`, `after_trial`, `reset`): `command`
/// by `sh -c` with `env` added to its environment, killed with its
/// whole process group after `timeout` or as soon as `cancel` says so.
/// Never fails: a command that cannot be started is a run without a
/// status whose output says why.
pub fn run_hook(
    hook: &str,
    command: &str,
    timeout: Duration,
    env: &[(&str, String)],
    cancel: &dyn Fn() -> bool,
) -> HookRun {
    let start = Instant::now();
    let mut run = HookRun {
        hook: hook.to_string(),
        command: command.to_string(),
        ..HookRun::default()
    };
    let (reader, writer) = match std::io::pipe() {
        Ok(p) => p,
        Err(e) => {
            run.output = format!("landspeed could not make a pipe for it: {e}");
            return run;
        }
    };
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(command).stdin(Stdio::null());
    for (k, v) in env {
        cmd.env(k, v);
    }
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let spawned = writer.try_clone().and_then(|w| {
        cmd.stdout(w).stderr(writer);
        cmd.spawn()
    });
    // The command holds the pipe's write ends: dropped, so the child's
    // are the only ones and the reader sees the end when it exits.
    drop(cmd);
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            run.output = format!("landspeed could not start `sh -c`: {e}");
            run.seconds = start.elapsed().as_secs_f64();
            return run;
        }
    };
    let rx = read_apart(reader);
    let mut tail = Tail {
        keep: OUTPUT_KEEP,
        ..Tail::default()
    };
    let pgid = child.id();
    let status = loop {
        while let Ok(b) = rx.try_recv() {
            tail.push(&b);
        }
        match child.try_wait() {
            Ok(Some(st)) => break Some(st),
            Ok(None) => {}
            Err(_) => break None,
        }
        let late = start.elapsed() >= timeout;
        if late || cancel() {
            run.timed_out = late;
            let _ = kill_group(pgid);
            break child.wait().ok();
        }
        std::thread::sleep(LOOK);
    };
    // What it left running in its group goes with it.
    let _ = kill_group(pgid);
    run.seconds = start.elapsed().as_secs_f64();
    let end = Instant::now() + DRAIN;
    while let Ok(b) = rx.recv_timeout(end.saturating_duration_since(Instant::now())) {
        tail.push(&b);
    }
    run.status = match (run.timed_out, status) {
        (false, Some(st)) => st.code(),
        _ => None,
    };
    run.output = String::from_utf8_lossy(&tail.bytes).into_owned();
    run.output_bytes = tail.total;
    run
}

/// Reads `reader` to its end on a thread of its own, handing each chunk
/// over the returned channel (which closes at the end).
fn read_apart(mut reader: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    rx
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(command: &str, timeout_ms: u64) -> HookRun {
        run_hook(
            "before_trial",
            command,
            Duration::from_millis(timeout_ms),
            &[("LANDSPEED_TEST", "throughput".into())],
            &|| false,
        )
    }

    #[test]
    fn a_hook_keeps_its_status_and_its_output_in_order() {
        let r = run(
            "echo out; echo err >&2; echo $LANDSPEED_TEST; exit 3",
            5_000,
        );
        assert_eq!(r.hook, "before_trial");
        assert_eq!(r.status, Some(3));
        assert!(!r.timed_out);
        assert_eq!(r.output, "out\nerr\nthroughput\n");
        assert_eq!(r.output_bytes, 19);
        assert_eq!(r.failure().as_deref(), Some("exited with status 3"));
        assert_eq!(r.output_tail(), "; its output ends: throughput");
        let ok = run("true", 5_000);
        assert!(ok.ok(), "{ok:?}");
        assert_eq!((ok.failure(), ok.output.as_str()), (None, ""));
        assert_eq!(ok.output_tail(), "");
    }

    #[test]
    fn a_hook_that_hangs_is_killed_with_its_group_at_its_limit() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        // The shell starts a child in its group and waits on it: both go.
        let cmd = format!("echo started; sleep 30 & echo $! > {}; wait", pid.display());
        let t = Instant::now();
        let r = run(&cmd, 300);
        let took = t.elapsed();
        assert!(
            took >= Duration::from_millis(300) && took < Duration::from_millis(300 + 1_500),
            "{took:?}"
        );
        assert!(r.timed_out, "{r:?}");
        assert_eq!(r.status, None);
        assert_eq!(r.output, "started\n");
        assert!(r.seconds >= 0.3 && r.seconds < 1.8, "{}", r.seconds);
        assert!(r.failure().unwrap().starts_with(
            "ran past its time limit and was killed (its whole process group) after "
        ));
        let child: u32 = std::fs::read_to_string(&pid)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // Reaped by init once its parent died; give the kernel a moment.
        let gone = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            !std::path::Path::new(&format!("/proc/{child}")).exists()
                || std::fs::read_to_string(format!("/proc/{child}/stat"))
                    .is_ok_and(|s| s.contains(") Z "))
        });
        assert!(gone, "sleep {child} of the hook's group is still running");
    }

    #[test]
    fn what_a_hook_leaves_running_in_its_group_is_killed_when_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        let cmd = format!("sleep 30 >/dev/null 2>&1 & echo $! > {}", pid.display());
        let r = run(&cmd, 5_000);
        assert!(r.ok(), "{r:?}");
        let child: u32 = std::fs::read_to_string(&pid)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        let gone = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(10));
            !std::path::Path::new(&format!("/proc/{child}")).exists()
                || std::fs::read_to_string(format!("/proc/{child}/stat"))
                    .is_ok_and(|s| s.contains(") Z "))
        });
        assert!(gone, "sleep {child} left behind");
    }

    #[test]
    fn only_the_tail_of_a_long_output_is_kept() {
        // 10,000 lines of "line N": the last 4 KiB end with the last line.
        let r = run(
            "i=0; while [ $i -lt 10000 ]; do echo line $i; i=$((i+1)); done",
            10_000,
        );
        assert!(r.ok(), "{r:?}");
        assert_eq!(r.output.len(), OUTPUT_KEEP);
        assert!(
            r.output.ends_with("line 9998\nline 9999\n"),
            "{}",
            &r.output[4000..]
        );
        let total: u64 = (0..10_000u64).map(|i| 6 + i.to_string().len() as u64).sum();
        assert_eq!(r.output_bytes, total);
    }

    #[test]
    fn a_cancelled_hook_is_killed_and_not_counted_as_timed_out() {
        let t = Instant::now();
        let r = run_hook(
            "after_trial",
            "sleep 30",
            Duration::from_secs(60),
            &[],
            &|| t.elapsed() > Duration::from_millis(100),
        );
        assert!(t.elapsed() < Duration::from_secs(2));
        assert_eq!((r.status, r.timed_out), (None, false));
        assert_eq!(r.failure().as_deref(), Some("was killed by a signal"));
    }

    #[test]
    fn the_tail_keeps_the_last_bytes_and_counts_them_all() {
        let mut t = Tail {
            keep: 4,
            ..Tail::default()
        };
        t.push(b"ab");
        assert_eq!((t.bytes.as_slice(), t.total), (&b"ab"[..], 2));
        t.push(b"cd");
        assert_eq!((t.bytes.as_slice(), t.total), (&b"abcd"[..], 4));
        t.push(b"efg");
        assert_eq!((t.bytes.as_slice(), t.total), (&b"defg"[..], 7));
    }
}
