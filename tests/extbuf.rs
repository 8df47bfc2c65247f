//! Attached payloads at the DPDK layer: frames whose fill is a segment
//! attached to a pattern in DPDK memory keep that memory alive while a PMD
//! holds them, however long after the pattern's owner has gone. `net_ring`
//! keeps what is sent in its ring until it is read back on the same port,
//! so the frames are read after the sender dropped its pattern (whose
//! memory is zeroed when it is freed: a premature free would show).

use landspeed::dpdk::{Eal, ExtPattern, Mempool, Port, PortConfig, RxBatch, Segments, TxBatch};

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
    }
    for p in port.close_pools() {
        assert_eq!(p.in_use(), 0, "every frame and segment mbuf is back");
    }
    drop(eal);
    for base in ["/var/run/dpdk", "/tmp/dpdk"] {
        let _ = std::fs::remove_dir_all(format!("{base}/{prefix}"));
    }
}
