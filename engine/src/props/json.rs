//! The report join: a sender's and a receiver's JSON results, with their
//! counts set to anything and their text damaged, → a joined report or
//! one clean error line naming the file.

use std::path::Path;

use proptest::prelude::*;
use serde_json::{json, Value};

use crate::report::join::join_files;
use crate::result::{StreamResult, TxStreamResult};
use crate::rx::seq::SeqCounts;
use crate::rx::CorruptCounts;
use crate::stats::Percentiles;

/// A sender's and a receiver's result, as `landspeed run --json` wrote
/// them (the seeds every case starts from).
pub(super) const SEED_TX: &str = include_str!("../../../tests/fuzz-corpus/json/seed.tx.json");
/// See [`SEED_TX`].
pub(super) const SEED_RX: &str = include_str!("../../../tests/fuzz-corpus/json/seed.rx.json");

/// A count: small, anything, or near the top.
fn count() -> impl Strategy<Value = u64> {
    prop_oneof![
        3 => 0u64..1000,
        1 => any::<u64>(),
        1 => Just(u64::MAX),
        1 => (u64::MAX - 2000)..=u64::MAX,
        1 => Just(1u64 << 63),
    ]
}

fn tx_streams() -> impl Strategy<Value = Vec<TxStreamResult>> {
    proptest::collection::vec((0u32..4, count()), 0..4).prop_map(|v| {
        v.into_iter()
            .map(|(id, frames)| TxStreamResult {
                id,
                name: String::new(),
                frames,
                bytes: frames.wrapping_mul(64),
                payload_bytes: 0,
                departure_offset: None,
            })
            .collect()
    })
}

fn rx_streams() -> impl Strategy<Value = Vec<StreamResult>> {
    let seq = (
        count(),
        count(),
        count(),
        count(),
        count(),
        count(),
        count(),
        count(),
    );
    proptest::collection::vec((0u32..4, count(), count(), seq), 0..4).prop_map(|v| {
        v.into_iter()
            .map(|(id, frames, corrupt, s)| StreamResult {
                id,
                frames,
                bytes: 0,
                seq: SeqCounts {
                    unique: s.0,
                    lost: s.1,
                    reordered: s.2,
                    reorder_extent_max: s.3,
                    reorder_extent_sum: s.4,
                    duplicated: s.5,
                    stale: s.6,
                    max_seq: s.7,
                },
                corrupt: CorruptCounts::default(),
                corrupt_total: corrupt,
                latency_clock: None,
                latency_early: 0,
                latency_source: None,
                latency_nic: 0,
                departure_source: None,
                latency_ns: None,
                resumed_tx_tsc: 0,
                latency: None,
                interarrival: Percentiles::default(),
                span_s: 0.0,
                achieved: Default::default(),
                arrivals_unix_ns: None,
                arrivals_tsc: [0, 0],
            })
            .collect()
    })
}

/// Fields a damaged file may hold anything in.
const POINTERS: &[&str] = &[
    "/tx",
    "/rx",
    "/tx/frames",
    "/tx/streams",
    "/tx/achieved/fps",
    "/rx/frames",
    "/rx/good",
    "/rx/streams",
    "/rx/achieved/l2_bps",
    "/tsc_hz",
    "/elapsed_s",
    "/verdict",
    "/observation",
    "/observation/frame_size",
    "/observation/delivered_bps",
    "/observation/rx_cycles_per_frame",
    "/observation/tsc_hz",
    "/observation/imissed",
    "/observation/link",
    "/outcome",
];

/// Values put there.
fn odd_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(-1)),
        Just(json!(0)),
        Just(json!(0.0)),
        Just(json!(-1e308)),
        Just(json!(1e308)),
        Just(json!(5e-324)),
        Just(json!(u64::MAX)),
        Just(json!("x\ny")),
        Just(json!([])),
        Just(json!({})),
        Just(json!(true)),
        count().prop_map(|n| json!(n)),
    ]
}

/// A damage to one file: fields replaced, then the text cut.
#[derive(Debug, Clone)]
struct Damage {
    fields: Vec<(&'static str, Value)>,
    cut: Option<usize>,
}

fn damage() -> impl Strategy<Value = Damage> {
    (
        proptest::collection::vec((proptest::sample::select(POINTERS), odd_value()), 0..3),
        proptest::option::weighted(0.1, any::<usize>()),
    )
        .prop_map(|(fields, cut)| Damage { fields, cut })
}

/// `seed` with its streams and counts replaced and `damage` done.
fn file_text(seed: &str, set: &[(&'static str, Value)], damage: &Damage) -> String {
    let mut v: Value = serde_json::from_str(seed).expect("the seed is JSON");
    for (ptr, value) in set.iter().chain(&damage.fields) {
        if let Some(slot) = v.pointer_mut(ptr) {
            *slot = value.clone();
        }
    }
    let text = serde_json::to_string_pretty(&v).expect("printable");
    match damage.cut {
        Some(at) => text[..at % (text.len() + 1)].to_string(),
        None => text,
    }
}

/// The property: joining the two texts gives a report whose figures hold
/// together, or one error line that names one of the files.
pub(super) fn check(dir: &Path, tx_text: &str, rx_text: &str) {
    let (tx, rx) = (dir.join("tx.json"), dir.join("rx.json"));
    std::fs::write(&tx, tx_text).expect("writing the sender's file");
    std::fs::write(&rx, rx_text).expect("writing the receiver's file");
    match join_files(&tx, &rx) {
        Ok(j) => {
            for s in &j.streams {
                assert!(s.missing <= s.sent, "{s:?}");
                assert!((0.0..=100.0).contains(&s.loss_pct), "{s:?}");
            }
            let _ = j.text();
            serde_json::to_string(&j).expect("the report serialises");
        }
        Err(e) => {
            let shown = e.to_string();
            super::assert_one_line("report error", &shown);
            let names = |p: &Path| shown.starts_with(&p.display().to_string());
            assert!(names(&tx) || names(&rx), "names neither file: {shown}");
        }
    }
}

#[test]
fn the_seeds_join() {
    let dir = tempfile::tempdir().unwrap();
    check(dir.path(), SEED_TX, SEED_RX);
    let (tx, rx) = (dir.path().join("tx.json"), dir.path().join("rx.json"));
    assert!(join_files(&tx, &rx).is_ok());
}

proptest! {
    #![proptest_config(super::config(128))]

    /// Any counts in well-formed files, and damaged files: a report or a
    /// clean error.
    #[test]
    fn results_join_or_fail_cleanly(
        tx_frames in count(), txs in tx_streams(),
        rx_frames in count(), good in count(), rxs in rx_streams(),
        tx_damage in damage(), rx_damage in damage(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let tx_set = [
            ("/tx/frames", json!(tx_frames)),
            ("/tx/streams", serde_json::to_value(&txs).unwrap()),
        ];
        let rx_set = [
            ("/rx/frames", json!(rx_frames)),
            ("/rx/good", json!(good)),
            ("/rx/streams", serde_json::to_value(&rxs).unwrap()),
        ];
        check(
            dir.path(),
            &file_text(SEED_TX, &tx_set, &tx_damage),
            &file_text(SEED_RX, &rx_set, &rx_damage),
        );
    }
}
