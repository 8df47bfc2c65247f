//! No frame of a template pool is rewritten while the PMD still holds it,
//! through the binary.
//!
//! A stream's TX frames come from a pool of its own whose mbufs keep the
//! stream's headers across free and alloc (`TemplatePool`), and each frame
//! gets only its changing fields written. That is safe only if an mbuf
//! goes back to its pool when the PMD frees it, never while the PMD still
//! holds it. Here the PMD is `net_ring`, which keeps every frame sent in
//! its ring (1024 slots) until the receiver on the other end reads it. The
//! sender and the receiver are two lcores on the same CPU (`eal.cpus`):
//! while the sender has the CPU the receiver reads nothing, so the ring
//! fills, `tx_burst` refuses frames (offered again, never dropped), and
//! the sender keeps taking mbufs its pool got back from the receiver's
//! frees while a ring's worth of others still waits to be read. A frame
//! rewritten in the ring would be read with another frame's stamp (a
//! sequence number twice, one missing) or, caught half-written, with a bad
//! checksum, stamp or fill.

use crate::common;

use std::ffi::OsStr;

use crate::common::{by_id, json_u64, read_json, write_file};

/// Frames a template pool holds with the default `tx_ring` of 1024
/// (`tx::template_pools`): the ring's 1024 slots, two batches of 32 and
/// three lcores' caches of 256, rounded up to a power of two, less one.
const POOL_MBUFS: u64 = 2047;

/// Two streams, so two template pools: IPv4/UDP and IPv6/TCP, both of
/// 1024 bytes (so the task's rate gives each as many frames), whose fill
/// is copied into each frame (the fill check reads every byte of it).
/// Lcore 0 (the main lcore) has CPU 0; the sender (lcore 1) and the
/// receiver (lcore 2) share CPU 1. `streams`: the task's (`a`, or `a, b`).
fn profile(prefix: &str, streams: &str, payload: &str) -> String {
    format!(
        "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 1]\n  vdevs: [net_ring0]\n  file_prefix: {prefix}\n\
         ports:\n  - {{ name: p0, device: net_ring0, link: 10g, {payload} }}\n\
         streams:\n\
         \x20 - {{ name: a, id: 1, frame_size: 1024, ipv4: {{ src: 198.18.0.1, dst: 198.19.0.1 }}, udp: {{ src: 49152, dst: 5001 }} }}\n\
         \x20 - {{ name: b, id: 2, frame_size: 1024, ipv6: {{ src: \"2001:db8::1\", dst: \"2001:db8::2\" }}, tcp: {{ src: 49153, dst: 5002 }} }}\n\
         tx:\n  - {{ lcore: 1, port: p0, streams: [{streams}], rate: 10G, mode: max }}\n\
         rx:\n  - {{ lcore: 2, port: p0, verify: full }}\n\
         run:\n  duration: 1s\n"
    )
}

#[test]
fn frames_a_full_ring_holds_are_never_rewritten() {
    held(&[1, 2], "payload: copy");
}

/// The same with one stream: the loop of a task of one stream (one bulk
/// get per batch from its pool, its counters added per burst).
#[test]
fn frames_a_full_ring_holds_are_never_rewritten_one_stream() {
    held(&[1], "payload: copy");
}

/// The same with the fill attached: each frame's second segment is one of
/// the task's held segments, pointed anew at the frame's place in the
/// pattern, or a fresh one when the next held one is still in the ring.
/// A TX ring of 64 gives the task 128 held segments for a PMD ring of
/// 1024: most frames find theirs still out and take a fresh one, and a
/// held segment re-pointed while a frame in the ring carries it would be
/// read with another frame's fill.
#[test]
fn frames_with_held_fill_segments_a_full_ring_holds_are_never_rewritten() {
    let v = held(&[1, 2], "payload: attach, tx_ring: 64");
    let attached = json_u64(&v, "/tx/tasks/0/attached_frames");
    assert_eq!(
        attached,
        json_u64(&v, "/tx/frames"),
        "every frame's fill attached"
    );
}

/// Runs the profile with the streams of `ids` (1: `a`, 2: `b`) and the
/// port's `payload` settings, checks that every frame came out of the full
/// ring whole, once, in order, and returns the result.
fn held(ids: &[u64], payload: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    let prefix = format!(
        "lsahold{}x{}p{}",
        std::process::id(),
        ids.len(),
        payload.len()
    );
    let names = if ids.len() == 1 { "a" } else { "a, b" };
    let yaml = profile(&prefix, names, payload);
    let p = write_file(dir.path(), "hold.yaml", &yaml);
    let json = dir.path().join("hold.json");
    let out = common::landspeed(
        dir.path(),
        [
            OsStr::new("run"),
            p.as_os_str(),
            OsStr::new("-q"),
            OsStr::new("--json"),
            json.as_os_str(),
        ],
    );
    for base in common::run_dir_bases() {
        let _ = std::fs::remove_dir_all(base.join(&prefix));
    }
    // Two lcores sharing a CPU are descheduled by design: exit 3 with that
    // problem alone is the expected outcome, as is a clean 0.
    out.assert_exit_in(&[0, 3]);
    let r = read_json(&json);
    let problems = r["outcome"]["problems"].as_array().unwrap();
    assert!(
        problems.iter().all(|p| p["kind"] == "descheduled"),
        "only `descheduled` may qualify a run on a shared CPU: {problems:?}"
    );
    assert_eq!(json_u64(&r, "/mbufs_leaked"), 0);

    // The ring was full: the PMD held frames and refused more.
    let task = &r["tx"]["tasks"][0];
    assert!(
        json_u64(task, "/refused") > 0,
        "the ring never filled: nothing was held while the sender sent"
    );
    // Each pool's mbufs went round: more frames than it has mbufs, twice
    // over (on a loaded host the two lcores get little of their CPU).
    let sent = json_u64(&r, "/tx/frames");
    let per_stream: Vec<(u64, u64)> = (ids.iter())
        .map(|&id| (id, json_u64(by_id(&r, "/tx/streams", id), "/frames")))
        .collect();
    assert_eq!(r["tx"]["streams"].as_array().unwrap().len(), ids.len());
    assert_eq!(per_stream.iter().map(|s| s.1).sum::<u64>(), sent);
    // 1024-byte frames: a's headers and FCS are 46 bytes, b's 78.
    for &(id, frames) in &per_stream {
        let st = by_id(&r, "/tx/streams", id);
        let overhead = if id == 1 { 46 } else { 78 };
        assert_eq!(json_u64(st, "/bytes"), 1024 * frames, "stream {id}");
        assert_eq!(
            json_u64(st, "/payload_bytes"),
            (1024 - overhead) * frames,
            "stream {id}"
        );
    }
    assert!(
        per_stream.iter().all(|s| s.1 > 2 * POOL_MBUFS),
        "each pool recycled its mbufs: {per_stream:?} frames of {POOL_MBUFS}-mbuf pools"
    );

    // Sent = received + drops, and nothing was dropped: what the PMD took
    // came out of the ring, every frame whole.
    assert_eq!(json_u64(&r, "/tx/pmd_frames"), sent);
    assert_eq!(json_u64(&r, "/ports/0/stats/opackets"), sent);
    assert_eq!(json_u64(&r, "/ports/0/stats/ipackets"), sent);
    assert_eq!(json_u64(&r, "/ports/0/stats/imissed"), 0);
    assert_eq!(json_u64(&r, "/ports/0/stats/oerrors"), 0);
    assert_eq!(json_u64(&r, "/rx/frames"), sent);
    assert_eq!(json_u64(&r, "/rx/good"), sent);
    assert_eq!(json_u64(&r, "/rx/foreign"), 0);
    assert_eq!(json_u64(&r, "/rx/corrupt"), 0);
    assert_eq!(json_u64(&r, "/rx/lost"), 0);
    assert_eq!(json_u64(&r, "/rx/duplicated"), 0);
    // Per stream: each sequence number 0..frames once, in order, and every
    // frame's checksums, stamp and fill as the stamp says.
    for (id, frames) in per_stream {
        let st = by_id(&r, "/rx/streams", id);
        assert_eq!(json_u64(st, "/frames"), frames, "stream {id}");
        assert_eq!(json_u64(st, "/unique"), frames, "stream {id}");
        assert_eq!(json_u64(st, "/max_seq"), frames - 1, "stream {id}");
        for key in ["/lost", "/reordered", "/duplicated", "/corrupt_total"] {
            assert_eq!(json_u64(st, key), 0, "stream {id} {key}");
        }
    }
    r
}
