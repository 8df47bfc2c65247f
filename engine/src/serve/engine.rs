//! The engine behind `serve`: each traffic start runs `landspeed run` as a
//! child process on the mapped profile, follows its `--json-stream` totals
//! and reads its `--json` result when it ends.
//!
//! A child per run, not the EAL inside the server: DPDK's EAL starts once
//! per process, while each OTG config names its own ports and lcores; a
//! run that crashes or is killed takes no server state with it; and the
//! server's threads never share a CPU's cache with the lcores.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{ChildStderr, ChildStdout};
use tokio::sync::watch;

use crate::dpdk::signal;

/// The most of a run's standard error kept (its summary, or its error).
const STDERR_KEPT: usize = 64 * 1024;

/// What is known of a run, updated as its child reports.
#[derive(Debug, Default)]
pub struct Live {
    /// The newest totals line (`run --json-stream`).
    pub totals: Option<Value>,
    /// The totals line before it, and when each arrived (for rates).
    pub prev: Option<(Value, Instant)>,
    /// When `totals` arrived.
    pub at: Option<Instant>,
    /// The child has ended.
    pub ended: bool,
    /// Its exit status (`None`: killed by a signal).
    pub status: Option<i32>,
    /// Its `--json` result, when it wrote one.
    pub result: Option<Value>,
    /// The end of its standard error.
    pub stderr: String,
}

/// One run of the engine.
pub struct Run {
    /// The child's process id.
    pid: u32,
    /// What it reported.
    live: Arc<Mutex<Live>>,
    /// Changes when `live` does.
    changed: watch::Receiver<u64>,
    /// The pcap file of each captured port (by index), written when the
    /// run ends.
    pub captures: Vec<(usize, PathBuf)>,
    /// Holds the profile, the result and the captures until the run is
    /// dropped.
    _dir: tempfile::TempDir,
}

/// Locks `live`; a poisoned lock (a panicked reader) still holds valid
/// counts.
fn lock(live: &Mutex<Live>) -> MutexGuard<'_, Live> {
    live.lock().unwrap_or_else(|p| p.into_inner())
}

/// Reads the engine's totals lines into `live`, telling `changed` of each.
async fn follow(stdout: ChildStdout, live: Arc<Mutex<Live>>, changed: Arc<watch::Sender<u64>>) {
    let mut lines = BufReader::new(stdout).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(v) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let mut g = lock(&live);
        if let (Some(old), Some(at)) = (g.totals.take(), g.at) {
            g.prev = Some((old, at));
        }
        g.totals = Some(v);
        g.at = Some(Instant::now());
        drop(g);
        changed.send_modify(|n| *n += 1);
    }
}

/// Keeps the last [`STDERR_KEPT`] bytes of the engine's standard error in
/// `live` once it closes.
async fn keep_tail(mut stderr: ChildStderr, live: Arc<Mutex<Live>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    while let Ok(n) = stderr.read(&mut chunk).await {
        if n == 0 {
            break;
        }
        buf.extend_from_slice(&chunk[..n]);
        if buf.len() > STDERR_KEPT {
            buf.drain(..buf.len() - STDERR_KEPT);
        }
    }
    lock(&live).stderr = String::from_utf8_lossy(&buf).into_owned();
}

impl Run {
    /// Starts `exe run PROFILE --json … --json-stream` (and `extra`) on
    /// the profile `make` writes for the run's folder (and the files it
    /// captures to), waits until it reports its first totals or ends, and
    /// returns it; an engine that ended without a result is an error
    /// carrying its standard error.
    pub async fn start(
        exe: &PathBuf,
        extra: &[String],
        make: impl FnOnce(&Path) -> Result<(String, Vec<(usize, PathBuf)>), String>,
    ) -> Result<Run, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("a folder for the run: {e}"))?;
        let (profile, captures) = make(dir.path())?;
        let path = dir.path().join("otg.yaml");
        let result = dir.path().join("result.json");
        std::fs::write(&path, profile).map_err(|e| format!("{}: {e}", path.display()))?;
        let mut child = tokio::process::Command::new(exe)
            .arg("run")
            .arg(&path)
            .arg("--json")
            .arg(&result)
            .arg("--json-stream")
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("starting the engine {}: {e}", exe.display()))?;
        let pid = child.id().ok_or("the engine ended before it started")?;
        let live = Arc::new(Mutex::new(Live::default()));
        let (tx, changed) = watch::channel(0u64);
        let tx = Arc::new(tx);
        let stdout = child.stdout.take().ok_or("the engine's standard output")?;
        let stderr = child.stderr.take().ok_or("the engine's standard error")?;
        let reader = tokio::spawn(follow(stdout, live.clone(), tx.clone()));
        let errs = tokio::spawn(keep_tail(stderr, live.clone()));
        let l = live.clone();
        tokio::spawn(async move {
            let status = child.wait().await.ok().and_then(|s| s.code());
            let _ = reader.await;
            let _ = errs.await;
            let parsed = std::fs::read_to_string(&result)
                .ok()
                .and_then(|t| serde_json::from_str::<Value>(&t).ok());
            let mut g = lock(&l);
            g.status = status;
            g.result = parsed;
            g.ended = true;
            drop(g);
            tx.send_modify(|n| *n += 1);
        });
        let run = Run {
            pid,
            live,
            changed,
            captures,
            _dir: dir,
        };
        run.wait_for(Duration::from_secs(120), |l| l.totals.is_some() || l.ended)
            .await;
        let g = run.live();
        if g.ended && g.result.is_none() {
            let why = g.stderr.trim().to_string();
            drop(g);
            return Err(if why.is_empty() {
                "the engine ended without a result".into()
            } else {
                why
            });
        }
        drop(g);
        Ok(run)
    }

    /// What the run reported so far.
    pub fn live(&self) -> MutexGuard<'_, Live> {
        lock(&self.live)
    }

    /// The run has ended.
    pub fn ended(&self) -> bool {
        self.live().ended
    }

    /// Waits until `done` holds of the run, or `limit` has passed.
    pub async fn wait_for(&self, limit: Duration, done: impl Fn(&Live) -> bool) {
        let mut rx = self.changed.clone();
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            if done(&self.live()) {
                return;
            }
            if tokio::time::timeout_at(deadline, rx.changed())
                .await
                .is_err()
            {
                return;
            }
        }
    }

    /// Asks the engine to stop (SIGINT, its Ctrl-C: it stops sending,
    /// lets the last frames arrive and writes its result) and waits until
    /// it has ended, at most `limit`.
    pub async fn stop(&self, limit: Duration) -> Result<(), String> {
        if !self.ended() {
            signal::interrupt(self.pid).map_err(|e| format!("stopping the engine: {e}"))?;
        }
        self.wait_for(limit, |l| l.ended).await;
        if self.ended() {
            Ok(())
        } else {
            Err(format!(
                "the engine did not stop within {} s",
                limit.as_secs()
            ))
        }
    }
}
