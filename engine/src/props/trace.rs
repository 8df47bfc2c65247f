//! The trace reader and the bottleneck replay: trace text (mutated from
//! a valid trace, or arbitrary bytes) → a trace or one clean error line,
//! and any trace through any bottleneck → a consistent result.

use proptest::prelude::*;

use crate::pace::replay::{parse_size, replay};
use crate::pace::trace::{Trace, TRACE_MAGIC};

/// Numbers that have broken readers before.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "1e3",
    "0x10",
    "+5",
    "",
    "ü",
    "1 2",
];

/// A valid trace's text: `frames` departures.
fn text_of(hz: u64, departures: &[(u64, u32)]) -> String {
    let mut out = Vec::new();
    let t = Trace {
        tsc_hz: hz,
        departures: departures.to_vec(),
    };
    t.write_to(&mut out).expect("writing to memory");
    String::from_utf8(out).expect("a trace is text")
}

/// A trace's departures: sizes up to the largest `u32`, times that
/// never decrease.
fn departures() -> impl Strategy<Value = Vec<(u64, u32)>> {
    let len = prop_oneof![
        Just(64u32),
        Just(9130),
        1u32..10_000,
        Just(u32::MAX),
        any::<u32>()
    ];
    let step = prop_oneof![0u64..10, 0u64..1_000_000, Just(u64::MAX / 4)];
    proptest::collection::vec(
        (step, len.prop_filter("a frame has bytes", |l| *l > 0)),
        0..64,
    )
    .prop_map(|v| {
        let mut t = 0u64;
        v.into_iter()
            .map(|(step, len)| {
                t = t.saturating_add(step);
                (t, len)
            })
            .collect()
    })
}

fn hz() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(1u64),
        Just(2_400_000_000),
        any::<u64>(),
        Just(u64::MAX)
    ]
}

fn bps() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(10_000_000_000),
        any::<u64>(),
        Just(u64::MAX)
    ]
}

/// The property for trace text: it reads, and round-trips, or fails on
/// one line that names the trace and its line.
pub(super) fn check_text(bytes: &[u8]) -> Option<Trace> {
    match Trace::read_from(bytes, "fuzz.trace") {
        Ok(t) => {
            let again = Trace::read_from(text_of(t.tsc_hz, &t.departures).as_bytes(), "again");
            assert_eq!(again.ok().as_ref(), Some(&t), "a trace read back differs");
            Some(t)
        }
        Err(e) => {
            let shown = e.to_string();
            super::assert_one_line("trace error", &shown);
            assert!(shown.starts_with("trace fuzz.trace"), "{shown}");
            None
        }
    }
}

/// The property for a replay: no panic, every frame delivered or dropped,
/// the report printable.
pub(super) fn check_replay(t: &Trace, bps: u64, buffer: u64) {
    match replay(t, bps, buffer) {
        Ok(r) => {
            assert_eq!(r.delivered + r.dropped, r.frames, "{r:?}");
            assert_eq!(r.frames, t.departures.len() as u64);
            assert!(r.peak_queue_bytes <= buffer, "{r:?}");
            assert!(
                r.mean_delay_ns.is_finite() && r.mean_delay_ns >= 0.0,
                "{r:?}"
            );
            // The maximum is whole nanoseconds and saturates at 585 years.
            if r.max_delay_ns < u64::MAX {
                assert!(r.mean_delay_ns <= r.max_delay_ns as f64 * (1.0 + 1e-9) + 1.0);
            }
            let _ = r.text();
        }
        Err(e) => super::assert_one_line("replay error", &e.to_string()),
    }
}

/// One edit of a trace's lines.
#[derive(Debug, Clone)]
enum Edit {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    /// Replace the line's first or second field.
    Field(usize, bool, &'static str),
    /// Cut the text after this many bytes.
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let i = 0usize..100;
    prop_oneof![
        1 => i.clone().prop_map(Edit::Delete),
        1 => i.clone().prop_map(Edit::Duplicate),
        1 => (i.clone(), i.clone()).prop_map(|(a, b)| Edit::Swap(a, b)),
        3 => (i.clone(), any::<bool>(), proptest::sample::select(NUMBERS))
            .prop_map(|(a, b, v)| Edit::Field(a, b, v)),
        1 => (0usize..3000).prop_map(Edit::Truncate),
    ]
}

fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for e in edits {
        let n = lines.len();
        if n == 0 {
            break;
        }
        match e {
            Edit::Delete(i) => {
                lines.remove(i % n);
            }
            Edit::Duplicate(i) => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Edit::Swap(a, b) => lines.swap(a % n, b % n),
            Edit::Field(i, second, v) => {
                let l = &mut lines[i % n];
                let mut f: Vec<&str> = l.split(' ').collect();
                let k = usize::from(*second).min(f.len() - 1);
                f[k] = v;
                *l = f.join(" ");
            }
            Edit::Truncate(at) => {
                let joined = lines.join("\n");
                let cut = &joined.as_bytes()[..(*at).min(joined.len())];
                lines = String::from_utf8_lossy(cut)
                    .lines()
                    .map(str::to_string)
                    .collect();
            }
        }
    }
    lines.join("\n")
}

proptest! {
    #![proptest_config(super::config(256))]

    /// Valid traces round-trip and replay through any bottleneck.
    #[test]
    fn traces_read_back_and_replay(
        hz in hz(), d in departures(), bps in bps(), buffer: u64,
    ) {
        let text = text_of(hz.max(1), &d);
        let t = check_text(text.as_bytes()).expect("a written trace reads back");
        prop_assert_eq!(&t.departures, &d);
        check_replay(&t, bps, buffer);
        check_replay(&t, bps, buffer.max(u64::from(u32::MAX)));
    }

    /// Mutated traces read or fail cleanly; what reads replays.
    #[test]
    fn mutated_traces_fail_cleanly(
        hz in hz(), d in departures(), edits in proptest::collection::vec(edit(), 1..5),
        bps in bps(), buffer: u64,
    ) {
        let text = mutate(&text_of(hz.max(1), &d), &edits);
        if let Some(t) = check_text(text.as_bytes()) {
            check_replay(&t, bps, buffer);
        }
    }

    /// Any bytes after the magic line, or none: read or refused cleanly.
    #[test]
    fn arbitrary_bytes_fail_cleanly(
        magic: bool, bytes in proptest::collection::vec(any::<u8>(), 0..200),
    ) {
        let mut input = Vec::new();
        if magic {
            input.extend_from_slice(TRACE_MAGIC.as_bytes());
            input.push(b'\n');
        }
        input.extend_from_slice(&bytes);
        check_text(&input);
    }

    /// Buffer sizes as `--buffer` takes them: parsed or refused, never a
    /// panic.
    #[test]
    fn sizes_parse_or_fail_cleanly(
        text in proptest::collection::vec(
            proptest::sample::select(&['0', '1', '9', '.', 'e', 'k', 'K', 'i', 'B', 'M', 'G', 'T', '-', '+', ' ', 'x'][..]),
            0..24,
        ).prop_map(String::from_iter),
    ) {
        if let Err(e) = parse_size(&text) {
            super::assert_one_line("size error", &e.to_string());
        }
    }
}
