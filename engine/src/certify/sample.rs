//! Hand-built certifications for the tests of every output (and the
//! rendering sample): not measurements.

use crate::certify::model::*;
use crate::certify::search::AGGREGATE;
use crate::outcome::Problem;
use crate::report::Percentiles;

/// The sizes of the sample: RFC 2544's for Ethernet.
pub const SIZES: [u32; 7] = [64, 128, 256, 512, 1024, 1280, 1518];
/// Its directions.
pub const DIRS: [&str; 2] = ["port 0 → port 1", "port 1 → port 0"];
const LINE: u64 = 10_000_000_000;

fn line_fps(size: u32) -> f64 {
    LINE as f64 / (8.0 * f64::from(size + 20))
}

/// The device forwards up to 8 Mpps one way, 7.5 Mpps back.
fn device_pct(dir: usize, size: u32) -> f64 {
    let pps = [8.0e6, 7.5e6][dir];
    (pps / line_fps(size) * 100.0).min(100.0)
}

fn latency(size: u32, dir: usize) -> Percentiles {
    let wire = f64::from(size) * 0.8;
    let base = 2_100.0 + wire + 150.0 * dir as f64;
    Percentiles {
        count: 1_000_000,
        min_ns: base,
        mean_ns: base + 1_350.4,
        p50_ns: base + 1_180.6,
        p99_ns: base + 6_020.2,
        p999_ns: base + 14_870.9,
        max_ns: base + 61_234.5,
        stddev_ns: 640.3 + f64::from(size) * 0.1,
    }
}

fn trial(dir: usize, size: u32, offered: f64, ok_below: f64, tester: bool) -> Trial {
    let tx = (line_fps(size) * offered / 100.0 * 2.0).round() as u64;
    let forwarded = if offered <= ok_below {
        tx
    } else {
        (tx as f64 * ok_below / offered) as u64
    };
    let lost = tx - forwarded;
    let problems = if tester {
        vec![Problem::TargetMissed {
            lcore: 2,
            port: dir as u16,
            layer: "L1".into(),
            target_per_sec: (LINE as f64 * offered / 100.0) as u64,
            achieved_per_sec: LINE as f64 * 0.412,
            achieved_pct: 41.2 / offered * 100.0,
            refused: 12_345,
            alloc_failed: 0,
        }]
    } else {
        Vec::new()
    };
    Trial {
        direction: DIRS[dir].to_string(),
        frame_size: size,
        offered_pct: offered,
        sent_pct: if tester { offered.min(41.2) } else { offered },
        tx_frames: tx,
        rx_frames: forwarded,
        lost,
        loss_pct: if tx == 0 {
            0.0
        } else {
            lost as f64 * 100.0 / tx as f64
        },
        reordered: u64::from(size == 256 && dir == 1) * 3,
        duplicated: 0,
        corrupt: 0,
        latency: Some(latency(size, dir)),
        duration_s: 2.0,
        tester_bound: tester,
        passed: lost == 0,
        problems,
        per_direction: Vec::new(),
        late_max_ns: 0,
        late_p999_ns: 0,
        latency_source: Some("software".into()),
        ..Trial::default()
    }
}

fn throughput(dir: usize, size: u32, s: &Settings, tester: bool) -> ThroughputRow {
    let limit = if tester { 41.2 } else { device_pct(dir, size) };
    let (mut lo, mut hi) = (s.lower_pct, s.upper_pct);
    let mut trials = Vec::new();
    let mut rate = hi;
    loop {
        let t = trial(dir, size, rate, limit, tester && rate > 41.2);
        let passed = t.passed;
        trials.push(t);
        if passed {
            lo = rate;
        } else {
            hi = rate;
        }
        if passed && rate == s.upper_pct || hi - lo < s.resolution_pct {
            break;
        }
        rate = (lo + hi) / 2.0;
    }
    trials.push(trial(dir, size, lo, limit, false));
    let fps = line_fps(size) * lo / 100.0;
    let bound = match () {
        _ if tester => Bound::Tester,
        _ if lo >= s.upper_pct => Bound::Line,
        _ => Bound::Device,
    };
    ThroughputRow {
        direction: DIRS[dir].to_string(),
        frame_size: size,
        rate_pct: lo,
        l1_bps: LINE as f64 * lo / 100.0,
        l2_bps: fps * f64::from(size) * 8.0,
        fps,
        bound,
        trial_count: trials.len() as u32,
        trials,
        complete: true,
    }
}

fn latency_row(dir: usize, size: u32, rate: f64, n: u32) -> LatencyRow {
    let trials: Vec<Trial> = (0..n)
        .map(|_| trial(dir, size, rate, 100.0, false))
        .collect();
    LatencyRow {
        direction: DIRS[dir].to_string(),
        frame_size: size,
        rate_pct: rate,
        summary: latency(size, dir),
        jitter_ns: latency(size, dir).stddev_ns,
        counted: trials.len() as u32,
        trials,
        complete: true,
        histogram: latency_histogram(size, dir),
        baseline: None,
        device: None,
    }
}

/// A latency histogram whose buckets hold the sample's million
/// frames around its percentiles.
fn latency_histogram(size: u32, dir: usize) -> Vec<crate::pace::measure::Bucket> {
    let l = latency(size, dir);
    [
        (l.min_ns, 1_000),
        (l.p50_ns * 0.9, 300_000),
        (l.p50_ns, 200_000),
        (l.mean_ns, 250_000),
        (l.p99_ns * 0.8, 239_000),
        (l.p99_ns, 9_000),
        (l.p999_ns, 900),
        (l.max_ns, 100),
    ]
    .into_iter()
    .map(|(ns, count)| crate::pace::measure::Bucket {
        le_ns: ns as u64,
        count,
    })
    .collect()
}

fn loss_curve(dir: usize, size: u32, step: f64) -> LossCurve {
    let limit = device_pct(dir, size);
    let mut points = Vec::new();
    let mut rate = 100.0;
    let mut clean = 0;
    while clean < 2 && rate > 0.0 {
        let t = trial(dir, size, rate, limit, false);
        clean = if t.lost == 0 { clean + 1 } else { 0 };
        points.push(LossPoint {
            rate_pct: rate,
            loss_pct: t.loss_pct,
            trial: t,
            retried: Vec::new(),
        });
        rate -= step;
    }
    LossCurve {
        direction: DIRS[dir].to_string(),
        frame_size: size,
        points,
        complete: true,
    }
}

fn back_to_back(dir: usize, size: u32, s: &Settings) -> BackToBackRow {
    let max = (line_fps(size) * s.back_to_back_max_s).round() as u64;
    let at_limit = device_pct(dir, size) >= 100.0;
    let found = if at_limit {
        max
    } else {
        1_500_000 / u64::from(size) * 10 + 37 * dir as u64
    };
    let bursts: Vec<u64> = (0..s.back_to_back_trials)
        .map(|i| found - u64::from(i % 2) * 3 * u64::from(!at_limit))
        .collect();
    let mut trials = Vec::new();
    for b in &bursts {
        for burst in [max, max / 2, *b] {
            let mut t = trial(dir, size, 100.0, 100.0, false);
            t.tx_frames = burst;
            t.rx_frames = burst.min(*b);
            t.lost = burst - t.rx_frames;
            t.loss_pct = t.lost as f64 * 100.0 / burst as f64;
            t.passed = t.lost == 0;
            t.duration_s = burst as f64 / line_fps(size);
            trials.push(t);
        }
    }
    let mean = bursts.iter().sum::<u64>() as f64 / bursts.len() as f64;
    let stddev = crate::certify::search::sample_stddev(
        &bursts.iter().map(|&b| b as f64).collect::<Vec<_>>(),
    );
    BackToBackRow {
        direction: DIRS[dir].to_string(),
        frame_size: size,
        bursts,
        mean_frames: mean,
        stddev_frames: stddev,
        mean_s: mean / line_fps(size),
        corrected_s: None,
        throughput_fps: None,
        at_limit,
        bound: Bound::Device,
        trials,
        complete: true,
    }
}

fn settings() -> Settings {
    Settings {
        sizes: SIZES.to_vec(),
        latency_trials: 3,
        back_to_back_trials: 4,
        learning: Learning::Off,
        ..Settings::default()
    }
}

fn criterion(
    test: &str,
    dir: usize,
    size: u32,
    wanted: &str,
    measured: &str,
    passed: bool,
) -> Criterion {
    Criterion {
        test: test.into(),
        direction: DIRS[dir].into(),
        frame_size: size,
        wanted: wanted.into(),
        measured: measured.into(),
        passed,
        judged: true,
    }
}

/// A complete certification: 7 sizes, two directions, every test, four
/// criteria of which one fails.
pub fn complete() -> Certification {
    let s = settings();
    let mut c = Certification {
        landspeed: "0.9.0".into(),
        dpdk: "22.11.4".into(),
        profile: "switch-a (configs/rfc2544.yaml)".into(),
        device: Some("Example switch SW-48, firmware 7.2.1, ports 1/1 and 1/2".into()),
        host: Host {
            name: "tester-1".into(),
            cpu: "Intel(R) Xeon(R) Gold 6326 CPU @ 2.90GHz".into(),
            cpus: 32,
            kernel: "Linux 6.1.0-18-amd64".into(),
            ports: (0..2)
                .map(|i| HostPort {
                    name: format!("p{i}"),
                    device: format!("0000:3b:00.{i}"),
                    driver: "net_ice".into(),
                    link: "up, 100 Gbit/s, full duplex".into(),
                })
                .collect(),
        },
        started: "2026-11-30T21:04:05Z".into(),
        topology: "bidirectional".into(),
        directions: DIRS.map(String::from).to_vec(),
        line_bps: LINE,
        ports: vec![
            "port 0: 0000:3b:00.0 (net_ice)".into(),
            "port 1: 0000:3b:00.1 (net_ice)".into(),
        ],
        settings: s.clone(),
        throughput: Vec::new(),
        latency: Vec::new(),
        loss: Vec::new(),
        back_to_back: Vec::new(),
        address_caching: Vec::new(),
        learning_rate: Vec::new(),
        recovery: Vec::new(),
        reset: Vec::new(),
        criteria: Vec::new(),
        complete: true,
        stopped_by: None,
        problems: Vec::new(),
        not_measured: Vec::new(),
        nonconformant: Vec::new(),
        latency_method: "software: the TX TSC in each frame's stamp, the RX TSC read after the poll that returned it".into(),
        baseline: None,
        verdict: None,
        frames: vec![
            "s0: Ethernet 02:00:00:00:00:01 → 02:00:00:00:00:02, IPv4 198.18.0.1 → 198.19.0.1 (DSCP 0, TTL 64, DF), UDP 49152 → 5001; headers 42 B, then the stamp and the fill to the trial's frame size; sent on p0".into(),
            "s1: Ethernet 02:00:00:00:00:02 → 02:00:00:00:00:01, IPv4 198.19.0.1 → 198.18.0.1 (DSCP 0, TTL 64, DF), UDP 49152 → 5001; headers 42 B, then the stamp and the fill to the trial's frame size; sent on p1".into(),
        ],
        tasks: vec![
            TesterTask { role: "main".into(), lcore: 0, cpu: 0, ..TesterTask::default() },
            TesterTask { role: "TX".into(), lcore: 1, cpu: 1, port: "p0".into(), queues: vec![0], streams: vec!["s0".into()] },
            TesterTask { role: "RX".into(), lcore: 2, cpu: 2, port: "p1".into(), queues: vec![0], streams: vec![] },
            TesterTask { role: "TX".into(), lcore: 3, cpu: 3, port: "p1".into(), queues: vec![0], streams: vec!["s1".into()] },
            TesterTask { role: "RX".into(), lcore: 4, cpu: 4, port: "p0".into(), queues: vec![0], streams: vec![] },
        ],
    };
    for dir in 0..2 {
        for size in SIZES {
            let t = throughput(dir, size, &s, false);
            c.latency
                .push(latency_row(dir, size, t.rate_pct, s.latency_trials));
            c.throughput.push(t);
            c.loss.push(loss_curve(dir, size, s.loss_step_pct));
            c.back_to_back.push(back_to_back(dir, size, &s));
        }
    }
    c.nonconformant = crate::certify::conformance::deviations(&s);
    crate::certify::search::correct_back_to_back(&mut c);
    c.criteria = vec![
        criterion(
            "throughput",
            0,
            64,
            "throughput ≥ 50 % of line",
            "53.71 % of line",
            true,
        ),
        criterion(
            "throughput",
            1,
            64,
            "throughput ≥ 55 % of line",
            "50.34 % of line",
            false,
        ),
        criterion("latency", 0, 1518, "p99 ≤ 20 µs", "p99 9.33 µs", true),
        criterion("latency", 1, 1518, "p99 ≤ 20 µs", "p99 9.48 µs", true),
    ];
    c
}

/// Stopped by Ctrl-C during the loss test: loss has 3 sizes of one
/// direction, back-to-back never ran.
pub fn incomplete() -> Certification {
    let mut c = complete();
    c.complete = false;
    c.stopped_by = Some("interrupted by SIGINT during frame loss, 512 B".into());
    c.loss
        .retain(|r| r.direction == DIRS[0] && r.frame_size < 512);
    c.back_to_back.clear();
    // The sample has no aggregate rows: neither does what it lacks.
    c.not_measured = crate::certify::search::not_measured(&c);
    c.not_measured.retain(|n| n.direction != AGGREGATE);
    c
}

/// `c` with rows of system recovery and reset at 64 B: recovery one
/// way from 110 % of its throughput, trials of 0.447 ms and 0.452 ms;
/// the way back a recovery trial whose overload lost nothing (left
/// out, the row without a figure); reset one way at its throughput,
/// trials of 1.0065 s and 1.0089 s.
pub fn recovery_and_reset(mut c: Certification) -> Certification {
    let s = c.settings.clone();
    let rate = |dir: usize| {
        (c.throughput.iter())
            .find(|r| r.direction == DIRS[dir] && r.frame_size == 64)
            .map_or(50.0, |r| r.rate_pct)
    };
    let (r0, r1) = (rate(0), rate(1));
    let overload = (r0 * 1.1).min(100.0);
    let length = s.recovery_overload_s + s.recovery_reduced_s;
    let recovering = |ns: f64| {
        let mut t = trial(0, 64, overload, r0, false);
        t.duration_s = length;
        t.recovery_ns = Some(ns);
        t
    };
    let mut calm = trial(1, 64, (r1 * 1.1).min(100.0), 100.0, false);
    calm.duration_s = length;
    calm.excluded =
        Some("the overload lost nothing: the device was not overloaded; left out".into());
    c.recovery = vec![
        RecoveryRow {
            direction: DIRS[0].into(),
            frame_size: 64,
            overload_pct: overload,
            reduced_pct: overload / 2.0,
            recovery_s: vec![0.000_447, 0.000_452],
            mean_s: Some((0.000_447 + 0.000_452) / 2.0),
            note: None,
            trials: vec![recovering(447_000.0), recovering(452_000.0)],
            complete: true,
        },
        RecoveryRow {
            direction: DIRS[1].into(),
            frame_size: 64,
            overload_pct: calm.offered_pct,
            reduced_pct: calm.offered_pct / 2.0,
            recovery_s: Vec::new(),
            mean_s: None,
            note: Some("no trial counted: see each trial's reason".into()),
            trials: vec![calm],
            complete: true,
        },
    ];
    let fps = line_fps(64) * r0 / 100.0;
    let resetting = |gap_ns: f64| {
        let mut t = trial(0, 64, r0, 100.0, false);
        t.duration_s = s.reset_trial_s;
        t.tx_frames = (fps * s.reset_trial_s).round() as u64;
        t.lost = (fps * gap_ns / 1e9).round() as u64;
        t.rx_frames = t.tx_frames - t.lost;
        t.loss_pct = t.lost as f64 * 100.0 / t.tx_frames as f64;
        t.passed = false;
        t.gap_max_ns = Some(gap_ns);
        t
    };
    c.reset = vec![ResetRow {
        direction: DIRS[0].into(),
        frame_size: 64,
        rate_pct: r0,
        reset_s: vec![1.0065, 1.0089],
        mean_s: Some((1.0065 + 1.0089) / 2.0),
        note: None,
        trials: vec![resetting(1_006_500_000.0), resetting(1_008_900_000.0)],
        complete: true,
    }];
    c
}

/// `c` with RFC 2889's address searches at 64 B over the aggregate: a
/// caching search that found 512 of 1,024 (the top flooded 7,200
/// frames, 768 flooded 4,864, 513 flooded 28) and a learning rate
/// search that held 512 addresses at 64,000 frames/s, the search's top.
pub fn address_searches(mut c: Certification) -> Certification {
    let t = |n: u64, fps: f64, foreign: u64| {
        let mut t = trial(0, 64, 10.0, 100.0, false);
        t.direction = AGGREGATE.into();
        t.addresses = Some(n);
        t.foreign = foreign;
        t.passed = foreign == 0;
        t.learning = Some(LearningRun {
            frames: n,
            paced_fps: Some(fps),
            sent_fps: Some(fps),
            ..LearningRun::default()
        });
        t
    };
    let caching = [(1024, 7200), (512, 0), (768, 4864), (513, 28)];
    c.address_caching = vec![AddressRow {
        direction: AGGREGATE.into(),
        frame_size: 64,
        addresses: Some(512),
        learning_fps: Some(2000.0),
        searched: [1.0, 1024.0],
        bound: Bound::Device,
        note: None,
        trials: caching.iter().map(|&(n, f)| t(n, 2000.0, f)).collect(),
        complete: true,
    }];
    c.learning_rate = vec![AddressRow {
        direction: AGGREGATE.into(),
        frame_size: 64,
        addresses: Some(512),
        learning_fps: Some(64_000.0),
        searched: [1000.0, 64_000.0],
        bound: Bound::Top,
        note: Some("the search's top passed: the device learns at least 64000 frames/s".into()),
        trials: vec![t(512, 64_000.0, 0)],
        complete: true,
    }];
    c
}

/// [`complete`] whose throughput found no rate at 64 B one way, so
/// latency did not run there.
pub fn no_rate_at_64() -> Certification {
    let mut c = complete();
    let t = &mut c.throughput[0];
    (t.rate_pct, t.l1_bps, t.l2_bps, t.fps) = (0.0, 0.0, 0.0, 0.0);
    for x in &mut t.trials {
        x.passed = false;
    }
    c.latency.remove(0);
    c.not_measured = crate::certify::search::not_measured(&c);
    c.not_measured.retain(|n| n.direction != AGGREGATE);
    c
}

/// One direction's share of an aggregate trial `t`: direction 0 has
/// the odd frame, direction 1 the reordered ones and 150 ns more.
fn share(t: &Trial, dir: usize) -> DirectionFigures {
    let half = |n: u64| n / 2 + u64::from(dir == 0) * (n % 2);
    let (tx, lost) = (half(t.tx_frames), half(t.lost));
    DirectionFigures {
        direction: DIRS[dir].to_string(),
        tx_frames: tx,
        rx_frames: tx - lost,
        lost,
        loss_pct: if tx == 0 {
            0.0
        } else {
            lost as f64 * 100.0 / tx as f64
        },
        reordered: u64::from(dir == 1) * 5,
        duplicated: 0,
        corrupt: 0,
        latency: Some(latency(t.frame_size, dir)),
    }
}

/// [`complete`] with the aggregate (both directions at once) rows of
/// 64 B and 1518 B throughput, each trial with both directions'
/// shares.
pub fn bidirectional() -> Certification {
    let mut c = complete();
    let s = c.settings.clone();
    for size in [64, 1518] {
        let mut row = throughput(0, size, &s, false);
        row.direction = crate::certify::search::AGGREGATE.to_string();
        for t in &mut row.trials {
            t.direction = row.direction.clone();
            t.reordered = 5;
            t.per_direction = vec![share(t, 0), share(t, 1)];
        }
        c.throughput.push(row);
    }
    c
}

/// The tester could not offer more than 41.2 % at 64 B one way: that
/// row is the tester's limit, not the device's.
pub fn tester_bound() -> Certification {
    let mut c = complete();
    let s = c.settings.clone();
    c.throughput[0] = throughput(0, 64, &s, true);
    c.criteria[0].measured = "41.11 % of line (tester-bound)".into();
    c.criteria[0].passed = false;
    c.problems.push(Problem::Descheduled {
        role: "TX".into(),
        lcore: 2,
        descheduled_pct: 7.5,
        wait_ns: 450_000_000,
        stolen_ns: 0,
        wall_ns: 6_000_000_000,
    });
    c
}

/// [`tester_bound`] with every part a report can show: the
/// criterion on the tester-bound row not judged, a latency trial left
/// out and tried again, a loss point the tester bounded and tried
/// again, a tester baseline for one direction, judged as the command
/// judges it (for the rendering sample and its screenshot).
pub fn showcase() -> Certification {
    use crate::certify::latency::{device, frame_time_ns};
    let mut c = tester_bound();
    let k = &mut c.criteria[0];
    k.judged = false;
    k.passed = false;
    k.measured = "not judged: tester-bound: 41.11 % of line, the tester's limit: the nearest \
                  failure, at 41.21 % of line, was the tester's: its sender reached 99.9 % of \
                  the rate"
        .into();
    let mut left = c.latency[1].trials[0].clone();
    (left.lost, left.rx_frames) = (12, left.tx_frames - 12);
    left.loss_pct = 12.0 * 100.0 / left.tx_frames as f64;
    left.passed = false;
    left.excluded = Some(format!(
        "lost 12 frame(s) ({} %) at the throughput rate; left out, tried again",
        crate::certify::format::loss_pct(left.loss_pct)
    ));
    c.latency[1].trials.insert(0, left);
    let point = &mut c.loss[0].points[0];
    let mut tried = point.trial.clone();
    tried.tester_bound = true;
    tried.passed = false;
    tried.problems = vec![Problem::Descheduled {
        role: "TX".into(),
        lcore: 2,
        descheduled_pct: 9.5,
        wait_ns: 190_000_000,
        stolen_ns: 0,
        wall_ns: 2_000_000_000,
    }];
    tried.excluded = Some(format!(
        "{}; tried again",
        crate::certify::search::tester_reason(&tried)
    ));
    point.retried.push(tried);
    c.baseline = Some(BaselineInfo {
        file: "tester-baseline.json".into(),
        recorded: "2026-11-30T19:40:00Z".into(),
        profile: "loop (configs/rfc2544.yaml, DUT bypassed)".into(),
    });
    for r in c.latency.iter_mut().filter(|r| r.direction == DIRS[0]) {
        let base = Percentiles {
            mean_ns: 1_900.0 + f64::from(r.frame_size) * 0.8,
            ..r.summary
        };
        let f = frame_time_ns(r.frame_size, LINE);
        r.device = Some(device(&r.summary, &base, c.settings.latency_definition, f));
        r.baseline = Some(base);
    }
    let bound = crate::certify::search::tester_problems(&c);
    c.problems.extend(bound);
    let v = crate::certify::table::Verdict::of(&c, false);
    c.verdict = Some(v.record(&c));
    c
}
