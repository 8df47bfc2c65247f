//! Joining a sender's and a receiver's JSON results (separate processes or
//! hosts) into one view: offered vs delivered, loss per stream, verdict.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;
use serde_json::Value;

/// One stream seen from both sides.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JoinedStream {
    /// Stream id.
    pub id: u32,
    /// Frames the sender's PMD took.
    pub sent: u64,
    /// Frames the receiver got (good or corrupt).
    pub received: u64,
    /// Sent but never received (`sent − unique received`).
    pub missing: u64,
    /// The receiver's sequence-gap count.
    pub lost: u64,
    /// Reordered.
    pub reordered: u64,
    /// Duplicated.
    pub duplicated: u64,
    /// Corrupt.
    pub corrupt: u64,
    /// `missing ÷ sent`, percent.
    pub loss_pct: f64,
}

/// Both sides of a run.
#[derive(Clone, Debug, Serialize)]
pub struct Joined {
    /// Sender's result file.
    pub tx_file: String,
    /// Receiver's result file.
    pub rx_file: String,
    /// Offered L2 rate (bit/s) and frames/s.
    pub offered_l2_bps: f64,
    /// Offered frames/s.
    pub offered_fps: f64,
    /// Delivered L2 rate (bit/s).
    pub delivered_l2_bps: f64,
    /// Delivered frames/s.
    pub delivered_fps: f64,
    /// Frames sent in all.
    pub sent: u64,
    /// Frames received in all.
    pub received: u64,
    /// Per stream.
    pub streams: Vec<JoinedStream>,
    /// Whether every stream arrived complete, in order and intact.
    pub exact: bool,
    /// The receiver's verdict, as it wrote it.
    pub verdict: Value,
}

fn u(v: &Value, path: &[&str]) -> u64 {
    let mut cur = v;
    for p in path {
        cur = &cur[*p];
    }
    cur.as_u64().unwrap_or(0)
}

fn f(v: &Value, path: &[&str]) -> f64 {
    let mut cur = v;
    for p in path {
        cur = &cur[*p];
    }
    cur.as_f64().unwrap_or(0.0)
}

/// Read both files and join them.
pub fn join_files(tx: &Path, rx: &Path) -> Result<Joined, String> {
    let read = |p: &Path| -> Result<Value, String> {
        let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
        serde_json::from_str(&text)
            .map_err(|e| format!("{}:{}: not a landspeed result: {e}", p.display(), e.line()))
    };
    let t = read(tx)?;
    let r = read(rx)?;
    if t["tx"].is_null() {
        return Err(format!(
            "{}: has no TX side (was it written by a run with TX tasks?)",
            tx.display()
        ));
    }
    if r["rx"].is_null() {
        return Err(format!(
            "{}: has no RX side (was it written by a run with RX tasks?)",
            rx.display()
        ));
    }
    Ok(join(
        &t,
        &r,
        &tx.display().to_string(),
        &rx.display().to_string(),
    ))
}

/// Join two parsed results.
pub fn join(t: &Value, r: &Value, tx_file: &str, rx_file: &str) -> Joined {
    let empty = Vec::new();
    let txs = t["tx"]["streams"].as_array().unwrap_or(&empty);
    let rxs = r["rx"]["streams"].as_array().unwrap_or(&empty);
    let mut streams = Vec::new();
    for s in txs {
        let id = u(s, &["id"]) as u32;
        let sent = u(s, &["frames"]);
        let rs = rxs.iter().find(|x| u(x, &["id"]) as u32 == id);
        let (received, unique, lost, reordered, duplicated, corrupt) = match rs {
            Some(x) => (
                u(x, &["frames"]),
                u(x, &["unique"]),
                u(x, &["lost"]),
                u(x, &["reordered"]),
                u(x, &["duplicated"]),
                u(x, &["corrupt_total"]),
            ),
            None => (0, 0, 0, 0, 0, 0),
        };
        let missing = sent.saturating_sub(unique);
        streams.push(JoinedStream {
            id,
            sent,
            received,
            missing,
            lost,
            reordered,
            duplicated,
            corrupt,
            loss_pct: if sent > 0 {
                missing as f64 * 100.0 / sent as f64
            } else {
                0.0
            },
        });
    }
    let exact = streams.iter().all(|s| {
        s.missing == 0
            && s.received == s.sent
            && s.reordered == 0
            && s.duplicated == 0
            && s.corrupt == 0
    });
    Joined {
        tx_file: tx_file.to_string(),
        rx_file: rx_file.to_string(),
        offered_l2_bps: f(t, &["tx", "achieved", "l2_bps"]),
        offered_fps: f(t, &["tx", "achieved", "fps"]),
        delivered_l2_bps: f(r, &["rx", "achieved", "l2_bps"]),
        delivered_fps: f(r, &["rx", "achieved", "fps"]),
        sent: u(t, &["tx", "frames"]),
        received: u(r, &["rx", "frames"]),
        streams,
        exact,
        verdict: r["verdict"].clone(),
    }
}

impl Joined {
    /// The joined report as text.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "sender   {}: {} frames, {:.4} Gbit/s L2, {:.0} frames/s",
            self.tx_file,
            self.sent,
            self.offered_l2_bps / 1e9,
            self.offered_fps
        );
        let _ = writeln!(
            s,
            "receiver {}: {} frames, {:.4} Gbit/s L2, {:.0} frames/s",
            self.rx_file,
            self.received,
            self.delivered_l2_bps / 1e9,
            self.delivered_fps
        );
        let _ = writeln!(
            s,
            "{:>8} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>9}",
            "stream", "sent", "received", "missing", "reordered", "duplicated", "corrupt", "loss %"
        );
        for st in &self.streams {
            let _ = writeln!(
                s,
                "{:>8} {:>12} {:>12} {:>10} {:>10} {:>10} {:>10} {:>9.4}",
                st.id,
                st.sent,
                st.received,
                st.missing,
                st.reordered,
                st.duplicated,
                st.corrupt,
                st.loss_pct
            );
        }
        let _ = writeln!(
            s,
            "{}",
            if self.exact {
                "every frame sent arrived once, in order, intact"
            } else {
                "frames were lost, reordered, duplicated or corrupted (see above)"
            }
        );
        if let Some(b) = self.verdict["binding"].as_str() {
            let _ = writeln!(s, "verdict (receiver's): {b} bound the run");
            if let Some(e) = self.verdict["explanation"].as_str() {
                let _ = writeln!(s, "      {e}");
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn joins_streams_and_counts_missing() {
        let t = json!({"tx": {"frames": 300, "achieved": {"l2_bps": 5e9, "fps": 68000.0},
            "streams": [{"id": 1, "frames": 100}, {"id": 2, "frames": 200}]}});
        let r = json!({"rx": {"frames": 295, "achieved": {"l2_bps": 4.9e9, "fps": 67000.0},
            "streams": [{"id": 1, "frames": 100, "unique": 100, "lost": 0, "reordered": 0, "duplicated": 0, "corrupt_total": 0},
                        {"id": 2, "frames": 195, "unique": 195, "lost": 5, "reordered": 1, "duplicated": 0, "corrupt_total": 0}]},
            "verdict": {"binding": "cpu", "explanation": "CPU-bound: 40,000 cycles/frame"}});
        let j = join(&t, &r, "tx.json", "rx.json");
        assert_eq!(
            j.streams[0],
            JoinedStream {
                id: 1,
                sent: 100,
                received: 100,
                missing: 0,
                lost: 0,
                reordered: 0,
                duplicated: 0,
                corrupt: 0,
                loss_pct: 0.0
            }
        );
        assert_eq!(j.streams[1].missing, 5);
        assert_eq!(j.streams[1].loss_pct, 2.5);
        assert!(!j.exact);
        assert!(j.text().contains("verdict (receiver's): cpu bound the run"));
        assert!(j.text().contains("CPU-bound: 40,000 cycles/frame"));
    }

    #[test]
    fn exact_when_everything_arrived() {
        let t = json!({"tx": {"frames": 10, "streams": [{"id": 7, "frames": 10}]}});
        let r = json!({"rx": {"frames": 10, "streams": [{"id": 7, "frames": 10, "unique": 10}]}});
        assert!(join(&t, &r, "a", "b").exact);
    }
}
