//! Per-frame costs of the pure hot-path pieces, without DPDK: building a
//! frame (headers, stamp, fill, checksums), the TSC patch before tx_burst,
//! the Internet checksum over a jumbo payload, and dissecting a received
//! frame. `cargo bench --bench frame`; the end-to-end figures against
//! dpdk-testpmd are `scripts/bench`'s (docs/benchmarks.md).

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

use landspeed::wire::builder::{CsumMode, FrameBuilder};
use landspeed::wire::checksum;
use landspeed::wire::dissect::dissect;
use landspeed::wire::spec::{SizeSpec, StreamSpec};

fn spec(size: usize) -> StreamSpec {
    StreamSpec {
        size: SizeSpec::Fixed(size),
        ..StreamSpec::default()
    }
}

fn build(c: &mut Criterion) {
    let mut g = c.benchmark_group("build");
    for size in [64usize, 1518, 9130] {
        let mut b = FrameBuilder::new(&spec(size), CsumMode::Software).expect("valid spec");
        // Several buffers, as a TX batch has, so the writes are not all to
        // one cache-resident frame.
        let mut bufs = vec![vec![0u8; b.max_len()]; 32];
        let mut seq = 0u64;
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("write+patch {size} B"), |bench| {
            bench.iter(|| {
                let len = b.next_len();
                let buf = &mut bufs[(seq % 32) as usize][..len];
                b.write(buf, seq, 0);
                b.set_tx_tsc(buf, seq);
                seq += 1;
                black_box(&buf[..]);
            })
        });
    }
    g.finish();
}

fn sum(c: &mut Criterion) {
    let data: Vec<u8> = (0..9084u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let mut g = c.benchmark_group("checksum");
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("sum 9084 B", |bench| {
        bench.iter(|| checksum::sum(black_box(&data)))
    });
    g.finish();
}

fn receive(c: &mut Criterion) {
    let mut g = c.benchmark_group("dissect");
    for size in [64usize, 9130] {
        let mut b = FrameBuilder::new(&spec(size), CsumMode::Software).expect("valid spec");
        let len = b.next_len();
        let mut frame = vec![0u8; len];
        b.write(&mut frame, 7, 0);
        g.throughput(Throughput::Elements(1));
        g.bench_function(format!("full check {size} B"), |bench| {
            bench.iter(|| dissect(black_box(&frame)))
        });
    }
    g.finish();
}

criterion_group!(benches, build, sum, receive);
criterion_main!(benches);
