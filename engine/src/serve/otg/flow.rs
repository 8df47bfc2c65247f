//! A flow's and a port's settings other than its headers: frame sizes,
//! rate, duration and metrics; a port's device and `layer1` settings.

use serde_json::{Map, Value};

use super::read::{choice, join, opt, req, At};
use super::{Refusal, MAX_VALUES};

/// OTG's predefined `imix`: 64, 570 and 1518 bytes at 7:4:1, as the turn of
/// twelve sizes landspeed sends in order.
const IMIX: [u64; 12] = [64, 570, 64, 1518, 64, 570, 64, 570, 64, 64, 570, 64];

/// Reads `flows[i].size` as a landspeed `frame_size`.
pub(super) fn size(at: At) -> Result<Vec<u64>, Refusal> {
    let m = at.obj(&["choice", "fixed", "increment", "random", "weight_pairs"])?;
    let p = at.path;
    let c = choice(
        m,
        p,
        &["fixed", "increment", "weight_pairs", "random"],
        Some("fixed"),
    )?;
    match c {
        "fixed" => Ok(vec![opt(m, p, "fixed", |a| a.int())?.unwrap_or(64)]),
        "increment" => {
            let ip = join(p, "increment");
            let s = req(m, p, "increment", |a| a.obj(&["start", "end", "step"]))?;
            let start = opt(s, &ip, "start", |a| a.int())?.unwrap_or(64);
            let end = opt(s, &ip, "end", |a| a.int())?.unwrap_or(1518);
            let step = opt(s, &ip, "step", |a| a.int())?.unwrap_or(1);
            if step == 0 || start > end {
                return Err(format!(
                    "{ip}: from {start} to {end} by {step} is no sequence"
                ));
            }
            if (end - start) / step + 1 > MAX_VALUES {
                return Err(format!("{ip}: more than {MAX_VALUES} sizes"));
            }
            Ok((start..=end).step_by(step as usize).collect())
        }
        "random" => random_sizes(m, p),
        _ => weight_pairs(m, p),
    }
}

/// The seed of the sizes a `random` size draws: the same config sends the
/// same frames.
const RANDOM_SIZE_SEED: u64 = 0x6c61_6e64_7370_6565;

/// A size's `random` (at `p`, the size's path): one turn of [`TURN_MAX`]
/// sizes drawn uniformly from `min` to `max` with a fixed seed, sent in
/// turn (landspeed sends a list of sizes in turn).
fn random_sizes(m: &Map<String, Value>, p: &str) -> Result<Vec<u64>, Refusal> {
    let rp = join(p, "random");
    let r = req(m, p, "random", |a| a.obj(&["min", "max"]))?;
    let min = opt(r, &rp, "min", |a| a.int())?.unwrap_or(64);
    let max = opt(r, &rp, "max", |a| a.int())?.unwrap_or(1518);
    if min > max {
        return Err(format!("{rp}: min {min} is above max {max}"));
    }
    let mut rng = crate::rng::SplitMix64::new(RANDOM_SIZE_SEED);
    let span = u128::from(max - min) + 1;
    Ok((0..TURN_MAX)
        .map(|_| min + rng.below(span) as u64)
        .collect())
}

/// The most frames one turn of custom weight pairs may hold.
const TURN_MAX: u64 = 4096;

/// A size's `weight_pairs` (at `p`, the size's path): `imix`, or custom
/// pairs with whole weights, as one turn of sizes.
fn weight_pairs(m: &Map<String, Value>, p: &str) -> Result<Vec<u64>, Refusal> {
    let wp = join(p, "weight_pairs");
    let w = req(m, p, "weight_pairs", |a| {
        a.obj(&["choice", "predefined", "custom"])
    })?;
    let c = choice(w, &wp, &["predefined", "custom"], Some("predefined"))?;
    if c == "predefined" {
        let name = opt(w, &wp, "predefined", |a| a.text())?.unwrap_or("imix");
        if name != "imix" {
            return Err(format!(
                "{}: {name} is not supported: its weights are not whole numbers \
                 (imix, or custom pairs with whole weights)",
                join(&wp, "predefined")
            ));
        }
        return Ok(IMIX.to_vec());
    }
    let cp = join(&wp, "custom");
    let pairs = req(w, &wp, "custom", |a| a.list())?;
    let mut turn: Vec<(u64, u64)> = Vec::new();
    for (i, v) in pairs.iter().enumerate() {
        let pp = format!("{cp}[{i}]");
        let pm = At { v, path: &pp }.obj(&["size", "weight"])?;
        let s = opt(pm, &pp, "size", |a| a.int())?.unwrap_or(64);
        let wt = opt(pm, &pp, "weight", |a| a.num())?.unwrap_or(1.0);
        if wt < 1.0 || wt.fract() != 0.0 {
            return Err(format!(
                "{pp}.weight: {wt} is not supported: landspeed sends sizes in a turn, so weights are whole numbers of 1 or more"
            ));
        }
        if wt > TURN_MAX as f64 {
            return Err(format!(
                "{pp}.weight: {} is more than the {TURN_MAX} frames a turn may hold",
                pm["weight"]
            ));
        }
        turn.push((s, wt as u64));
    }
    // At most `pairs.len()` weights of at most TURN_MAX each: no overflow.
    let total: u64 = turn.iter().map(|t| t.1).sum();
    if turn.is_empty() || total > TURN_MAX {
        return Err(format!(
            "{cp}: 1 to {TURN_MAX} frames in a turn (the weights' sum)"
        ));
    }
    Ok(spread(&turn))
}

/// Sizes at whole weights spread evenly over one turn (each size placed
/// where its share of the turn says: 7:4:1 does not send seven 64s first).
fn spread(pairs: &[(u64, u64)]) -> Vec<u64> {
    let total: u64 = pairs.iter().map(|p| p.1).sum();
    let mut placed: Vec<(f64, u64)> = Vec::new();
    for &(size, w) in pairs {
        for k in 0..w {
            placed.push(((k as f64 + 0.5) * total as f64 / w as f64, size));
        }
    }
    placed.sort_by(|a, b| a.0.total_cmp(&b.0));
    placed.into_iter().map(|p| p.1).collect()
}

/// Reads `flows[i].rate` as a landspeed rate.
pub(super) fn rate(at: At) -> Result<String, Refusal> {
    let keys = ["choice", "pps", "bps", "kbps", "mbps", "gbps", "percentage"];
    let m = at.obj(&keys)?;
    let p = at.path;
    let c = choice(m, p, &keys[1..], Some("pps"))?;
    if c == "percentage" {
        let pct = opt(m, p, c, |a| a.num())?.unwrap_or(100.0);
        if !(pct > 0.0 && pct <= 100.0) {
            return Err(format!(
                "{}: {pct} is not a share of the line above 0 and at most 100",
                join(p, c)
            ));
        }
        return Ok(format!("{pct}%"));
    }
    let n = opt(m, p, c, |a| a.int())?.unwrap_or(1000);
    if n == 0 {
        return Err(format!("{}: a rate of 0 sends nothing", join(p, c)));
    }
    Ok(match c {
        "pps" => format!("{n}pps"),
        "bps" => format!("{n}"),
        "kbps" => format!("{n}k"),
        "mbps" => format!("{n}M"),
        _ => format!("{n}G"),
    })
}

/// How long a flow sends.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Lasts {
    /// This many frames.
    Packets(u64),
    /// This many seconds.
    Seconds(f64),
    /// Until told to stop.
    Continuous,
}

/// Reads `flows[i].duration`.
pub(super) fn duration(at: At) -> Result<Lasts, Refusal> {
    let m = at.obj(&[
        "choice",
        "fixed_packets",
        "fixed_seconds",
        "continuous",
        "burst",
    ])?;
    let p = at.path;
    let c = choice(
        m,
        p,
        &["fixed_packets", "fixed_seconds", "continuous", "burst"],
        Some("continuous"),
    )?;
    if c == "burst" {
        return Err(format!(
            "{}: burst is not supported: landspeed paces every frame at the flow's rate",
            join(p, "choice")
        ));
    }
    let bp = join(p, c);
    let empty = Value::Object(Map::new());
    let b = At {
        v: m.get(c).unwrap_or(&empty),
        path: &bp,
    };
    let known: &[&str] = match c {
        "fixed_packets" => &["packets", "gap", "delay"],
        "fixed_seconds" => &["seconds", "gap", "delay"],
        _ => &["gap", "delay"],
    };
    let bm = b.obj(known)?;
    if let Some(gap) = opt(bm, &bp, "gap", |a| a.int())? {
        if gap != 12 {
            return Err(format!(
                "{}: {gap} is not supported: landspeed keeps the wire's 12-byte gap and paces by rate",
                join(&bp, "gap")
            ));
        }
    }
    if bm.contains_key("delay") {
        return Err(format!(
            "{}: a start delay is not supported",
            join(&bp, "delay")
        ));
    }
    match c {
        "fixed_packets" => {
            let n = opt(bm, &bp, "packets", |a| a.int())?.unwrap_or(1);
            if n == 0 {
                return Err(format!("{}: 0 packets sends nothing", join(&bp, "packets")));
            }
            Ok(Lasts::Packets(n))
        }
        "fixed_seconds" => {
            let s = opt(bm, &bp, "seconds", |a| a.num())?.unwrap_or(1.0);
            if s <= 0.0 {
                return Err(format!("{}: {s} s sends nothing", join(&bp, "seconds")));
            }
            Ok(Lasts::Seconds(s))
        }
        _ => Ok(Lasts::Continuous),
    }
}

/// Reads `flows[i].metrics` (at `at`, present): `(metrics, latency)`, its
/// `enable` and its `latency.enable`.
pub(super) fn metrics(at: At) -> Result<Metrics, Refusal> {
    let mp = at.path;
    let mm = at.obj(&[
        "enable",
        "loss",
        "timestamps",
        "latency",
        "rx_tx_ratio",
        "predefined_metric_tags",
    ])?;
    let timestamps = opt(mm, mp, "timestamps", |a| a.flag())?.unwrap_or(false);
    if mm.contains_key("rx_tx_ratio") || mm.contains_key("predefined_metric_tags") {
        let k = if mm.contains_key("rx_tx_ratio") {
            "rx_tx_ratio"
        } else {
            "predefined_metric_tags"
        };
        return Err(format!("{mp}.{k}: is not supported"));
    }
    let lat = match mm.get("latency") {
        None => false,
        Some(v) => {
            let lp = join(mp, "latency");
            let lm = At { v, path: &lp }.obj(&["enable", "mode"])?;
            opt(lm, &lp, "mode", |a| match a.text()? {
                "cut_through" | "store_forward" => Ok(()),
                other => Err(a.no(format!("{other} is not supported"))),
            })?;
            opt(lm, &lp, "enable", |a| a.flag())?.unwrap_or(false)
        }
    };
    Ok(Metrics {
        enable: opt(mm, mp, "enable", |a| a.flag())?.unwrap_or(false),
        latency: lat,
        timestamps,
    })
}

/// A flow's `metrics`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Metrics {
    /// `enable`: the flow has flow metrics.
    pub(super) enable: bool,
    /// `latency.enable`: they carry latency.
    pub(super) latency: bool,
    /// `timestamps`: they carry the first and last arrival's time.
    pub(super) timestamps: bool,
}

/// A port location as the profile's device: `(vdev or pci entry, device)`.
pub(super) fn device(location: &str) -> (bool, String) {
    let name = location.split(',').next().unwrap_or(location).to_string();
    let pci = {
        let parts: Vec<&str> = name.split(':').collect();
        (2..=3).contains(&parts.len())
            && name.contains('.')
            && name
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.')
    };
    (pci, name)
}

/// OTG `layer1.speed` as a landspeed link kind.
pub(super) fn speed(at: At) -> Result<&'static str, Refusal> {
    Ok(match at.text()? {
        "speed_10_fd_mbps" | "speed_10_hd_mbps" => "10m",
        "speed_100_fd_mbps" | "speed_100_hd_mbps" => "100m",
        "speed_1_gbps" => "1g",
        "speed_10_gbps" => "10g",
        "speed_25_gbps" => "25g",
        "speed_40_gbps" => "40g",
        "speed_50_gbps" => "50g",
        "speed_100_gbps" => "100g",
        "speed_200_gbps" => "200g",
        "speed_400_gbps" => "400g",
        other => return Err(at.no(format!("{other} is not supported"))),
    })
}

/// Settings `layer1` gives a port.
#[derive(Clone, Debug, Default)]
pub(super) struct L1 {
    /// `speed`: the link kind the port must report.
    pub(super) link: Option<&'static str>,
    /// `mtu`: the largest IP packet the port passes.
    pub(super) mtu: Option<u64>,
    /// `promiscuous`: whether the port receives every frame.
    pub(super) promiscuous: Option<bool>,
}
