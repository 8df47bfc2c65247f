//! Attached payloads at the DPDK layer: frames whose fill is a segment
//! attached to a pattern in DPDK memory keep that memory alive while a PMD
//! holds them, however long after the pattern's owner has gone. `net_ring`
//! keeps what is sent in its ring until it is read back on the same port,
//! so the frames are read after the sender dropped its pattern (whose
//! memory is zeroed when it is freed: a premature free would show).

use landspeed::dpdk::{
    Eal, ExtPattern, HeldSegments, Mempool, Port, PortConfig, RxBatch, Segments, TxBatch,
};

const FRAMES: usize = 32;
const HEAD: usize = 64;
const FILL: usize = 1000;

fn pattern_bytes() -> Vec<u8> {
    (0..8192u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect()
}

#[test]
fn pattern_memory_outlives_frames_a_pmd_still_holds() {
    let prefix = format!("lsextbuf{}", std::process::id());
    let args: Vec<String> = [
        "extbuf",
        "--no-huge",
        "-m",
        "256",
        "--no-pci",
        "-l",
        "0",
        "--no-shconf",
        "--file-prefix",
        &prefix,
        "--log-level",
        "*:error",
        "--vdev=net_ring0",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let eal = Eal::init(&args).expect("EAL");
    let bytes = pattern_bytes();
    let mut port = Port::by_name(&eal, "net_ring0").expect("net_ring0");
    assert!(
        port.info().tx_multi_segs(),
        "net_ring reports multi-segment TX"
    );
    let pool = Mempool::create(&eal, "frames", 1023, 2048, -1).unwrap();
    let cfg = PortConfig {
        rx_queues: 1,
        tx_queues: 1,
        rx_ring: 256,
        tx_ring: 256,
        max_frame: 2048,
        mtu: Some(2030),
        rx_scatter: false,
        tx_checksum_offload: false,
        tx_multi_segs: true,
        tx_one_pool: true,
        rx_drop_en: false,
        rx_checksum_offload: false,
        rx_timestamp: false,
        promiscuous: false,
    };
    port.configure(&cfg, pool).unwrap();
    // A pool of data-less mbufs is refused as a segment pool: its mbufs
    // have no room for their own shared info.
    let err = port
        .set_segment_pool(Mempool::create(&eal, "plain", 63, 0, -1).unwrap())
        .unwrap_err();
    assert!(
        err.to_string().contains("Mempool::create_segments"),
        "{err}"
    );
    port.set_segment_pool(Mempool::create_segments(&eal, "segs", 1023, -1).unwrap())
        .unwrap();
    {
        let mut queues = port.start().unwrap();
        let offs: Vec<usize> = (0..FRAMES)
            .map(|i| (i * 229) % (bytes.len() - FILL))
            .collect();
        let first = {
            let pattern = ExtPattern::new(&queues.tx[0], &bytes).unwrap();
            let mut segs = Segments::new(&queues.tx[0]).expect("the port has a segment pool");
            let mut batch = TxBatch::new(&queues.tx[0]);
            assert!(batch.fill(FRAMES));
            for (i, &off) in offs.iter().enumerate() {
                batch.frame_mut(i, HEAD).fill(i as u8);
                batch.attach(i, segs.take().unwrap(), &pattern, off, FILL);
            }
            assert_eq!(batch.transmit(&mut queues.tx[0], FRAMES), FRAMES);
            // The sender goes: its pattern, spare segments and batch.
            pattern.addr()
        };
        // Memory reserved now would reuse the pattern's had it been freed.
        let other = ExtPattern::new(&queues.tx[0], &vec![0xEE; bytes.len()]).unwrap();
        // The same bytes placed again on the port share the first copy
        // (a certification's trials add no pattern each); other bytes not.
        let again = ExtPattern::new(&queues.tx[0], &bytes).unwrap();
        let third = ExtPattern::new(&queues.tx[0], &bytes).unwrap();
        assert_eq!(again.addr(), first);
        assert_eq!(third.addr(), first);
        assert_ne!(again.addr(), other.addr());
        let mut rx = RxBatch::new();
        assert_eq!(rx.receive(&mut queues.rx[0], FRAMES), FRAMES);
        let mut got = Vec::new();
        for (i, &off) in offs.iter().enumerate() {
            rx.copy_frame(i, &mut got);
            assert_eq!(got.len(), HEAD + FILL, "frame {i}: length");
            assert!(got[..HEAD].iter().all(|&b| b == i as u8), "frame {i}: head");
            assert!(
                got[HEAD..] == bytes[off..off + FILL],
                "frame {i}: the attached fill changed after its pattern was dropped"
            );
        }
        drop(rx);
        held_segments_are_claimed_only_when_no_frame_carries_them(&mut queues, &bytes);
    }
    for p in port.close_pools() {
        assert_eq!(p.in_use(), 0, "every frame and segment mbuf is back");
    }
    drop(eal);
    for base in ["/var/run/dpdk", "/tmp/dpdk"] {
        let _ = std::fs::remove_dir_all(format!("{base}/{prefix}"));
    }
}

/// Receives `n` frames from the ring and checks each against `want`
/// (head byte, pattern offset, fill length).
fn receive_and_check(
    queues: &mut landspeed::dpdk::Queues<'_>,
    bytes: &[u8],
    want: &[(u8, usize, usize)],
) {
    let mut rx = RxBatch::new();
    assert_eq!(rx.receive(&mut queues.rx[0], want.len()), want.len());
    let mut got = Vec::new();
    for (i, &(head, off, len)) in want.iter().enumerate() {
        rx.copy_frame(i, &mut got);
        assert_eq!(got.len(), HEAD + len, "frame {i}: length");
        assert!(got[..HEAD].iter().all(|&b| b == head), "frame {i}: head");
        assert!(got[HEAD..] == bytes[off..off + len], "frame {i}: fill");
    }
}

/// Sends one frame per `(head, off, len)` whose fill is a claimed held
/// segment; panics when a claim fails.
fn send_held(
    queues: &mut landspeed::dpdk::Queues<'_>,
    held: &mut HeldSegments<'_>,
    frames: &[(u8, usize, usize)],
) {
    let mut batch = TxBatch::new(&queues.tx[0]);
    assert!(batch.fill(frames.len()));
    for (i, &(head, off, len)) in frames.iter().enumerate() {
        batch.frame_mut(i, HEAD).fill(head);
        let seg = held
            .claim(off, len)
            .expect("a held segment no frame carries");
        batch.chain(i, seg);
    }
    assert_eq!(
        batch.transmit(&mut queues.tx[0], frames.len()),
        frames.len()
    );
}

/// Held segments: a task's own, each claimed for one frame at a time and
/// pointed anew at that frame's place; one a frame in the ring still
/// carries is not claimed (the caller takes a fresh segment); a claim not
/// chained gives its reference back; the table dropped while the ring
/// holds a frame leaves that frame whole, and every segment goes back to
/// its pool once no frame carries it (checked by the pools at close).
fn held_segments_are_claimed_only_when_no_frame_carries_them(
    queues: &mut landspeed::dpdk::Queues<'_>,
    bytes: &[u8],
) {
    let pattern = ExtPattern::new(&queues.tx[0], bytes).unwrap();
    let mut segs = Segments::new(&queues.tx[0]).unwrap();
    let mut held = HeldSegments::new(&mut segs, &pattern, 4).expect("4 segments");
    // Four frames, four places, four lengths: the ring holds them all.
    let first = [(1, 0, 1000), (2, 8, 999), (3, 4096, 1), (4, 7000, 1192)];
    send_held(queues, &mut held, &first);
    // The next in turn is the first frame's, still in the ring.
    assert!(
        held.claim(16, 100).is_none(),
        "claimed while a frame carries it"
    );
    assert!(
        held.claim(16, 100).is_none(),
        "a refused claim does not move on"
    );
    receive_and_check(queues, bytes, &first);
    // Read and freed: each segment is the table's alone again, and is
    // pointed at its new frame's place (not the old one's).
    let second = [(5, 24, 500), (6, 1, 2048), (7, 6144, 2000), (8, 8191, 1)];
    send_held(queues, &mut held, &second);
    receive_and_check(queues, bytes, &second);
    // A claim dropped unchained gives the frame's reference back: the
    // segment is claimed again when its turn comes round.
    drop(held.claim(0, 10).expect("free"));
    for _ in 0..3 {
        drop(held.claim(0, 10).expect("free"));
    }
    let third = [(9, 32, 64)];
    send_held(queues, &mut held, &third);
    // The task goes while the ring holds a frame with a held segment.
    drop(held);
    drop(segs);
    receive_and_check(queues, bytes, &third);
    // A table of no segment is none.
    let mut segs = Segments::new(&queues.tx[0]).unwrap();
    assert!(HeldSegments::new(&mut segs, &pattern, 0).is_none());
    // More segments than the pool has: those taken go back.
    assert!(HeldSegments::new(&mut segs, &pattern, 1_000_000).is_none());
}
