//! Header field patterns: OTG's `value`, `values`, `increment`,
//! `decrement` and `random`, read as what a landspeed stream's field takes.

use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::{json, Map, Value};

use super::read::{choice, join, opt, req, At};
use super::{Refusal, MAX_VALUES};

/// What a header field's pattern gives a landspeed stream.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Field {
    /// One value.
    One(String),
    /// Values in this order, repeating.
    List(Vec<String>),
    /// Every value from the first to the last, by one.
    Range(String, String),
    /// Drawn at random from `min..=max` with this seed.
    Random(String, String, u64),
}

impl Field {
    /// The profile's value for the field.
    pub(super) fn yaml(&self) -> Value {
        match self {
            Field::One(v) => json!(v),
            Field::List(l) => json!(l),
            Field::Range(a, b) | Field::Random(a, b, _) => json!(format!("{a}-{b}")),
        }
    }

    /// The profile's value for a numeric field (ports, ids).
    pub(super) fn yaml_num(&self) -> Value {
        match self {
            Field::One(v) => v.parse::<u64>().map(|n| json!(n)).unwrap_or(json!(v)),
            Field::List(l) => json!(l
                .iter()
                .map(|v| v.parse::<u64>().map(|n| json!(n)).unwrap_or(json!(v)))
                .collect::<Vec<_>>()),
            _ => self.yaml(),
        }
    }

    /// More than one value.
    pub(super) fn varies(&self) -> bool {
        !matches!(self, Field::One(_))
    }
}

/// A field kind: how its values are read, stepped and written.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Kind {
    /// An integer of at most this many bits.
    Int(u32),
    /// An IPv4 address.
    V4,
    /// An IPv6 address.
    V6,
    /// A MAC address.
    Mac,
}

impl Kind {
    /// `text` (or a number) as this kind's integer value.
    fn read(self, at: At) -> Result<u128, Refusal> {
        match self {
            Kind::Int(bits) => {
                let n = at.int()?;
                if bits < 64 && n >> bits != 0 {
                    return Err(at.no(format!("{n} does not fit in {bits} bits")));
                }
                Ok(u128::from(n))
            }
            Kind::V4 => at
                .text()?
                .parse::<Ipv4Addr>()
                .map(|a| u128::from(u32::from(a)))
                .map_err(|_| at.no(format!("{} is not an IPv4 address", at.v))),
            Kind::V6 => at
                .text()?
                .parse::<Ipv6Addr>()
                .map(u128::from)
                .map_err(|_| at.no(format!("{} is not an IPv6 address", at.v))),
            Kind::Mac => {
                let t = at.text()?;
                let parts: Vec<&str> = t.split(':').collect();
                let bytes: Option<Vec<u8>> = (parts.len() == 6)
                    .then(|| {
                        parts
                            .iter()
                            .map(|p| u8::from_str_radix(p, 16).ok())
                            .collect()
                    })
                    .flatten();
                let b = bytes.ok_or_else(|| at.no(format!("{} is not a MAC address", at.v)))?;
                Ok(b.iter().fold(0u128, |acc, &x| (acc << 8) | u128::from(x)))
            }
        }
    }

    /// The largest value.
    fn max(self) -> u128 {
        match self {
            Kind::Int(bits) => (1u128 << bits) - 1,
            Kind::V4 => u128::from(u32::MAX),
            Kind::V6 => u128::MAX,
            Kind::Mac => (1u128 << 48) - 1,
        }
    }

    /// `n` written as the profile writes this kind.
    fn show(self, n: u128) -> String {
        match self {
            Kind::Int(_) => n.to_string(),
            Kind::V4 => Ipv4Addr::from(n as u32).to_string(),
            Kind::V6 => Ipv6Addr::from(n).to_string(),
            Kind::Mac => {
                let b = (n as u64).to_be_bytes();
                format!(
                    "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
                    b[2], b[3], b[4], b[5], b[6], b[7]
                )
            }
        }
    }
}

/// Reads an OTG pattern (`{choice, value | values | increment | decrement
/// | random}`) of `kind` at `at` (an absent pattern is the caller's:
/// [`field`] gives the OTG default then).
fn pattern(at: At, kind: Kind, warnings: &mut Vec<String>) -> Result<Field, Refusal> {
    let m = at.obj(&[
        "choice",
        "value",
        "values",
        "increment",
        "decrement",
        "random",
        "auto",
        "metric_tags",
    ])?;
    let p = at.path;
    if opt(m, p, "metric_tags", |a| a.list())?.is_some_and(|l| !l.is_empty()) {
        return Err(format!("{}: is not supported", join(p, "metric_tags")));
    }
    let c = choice(
        m,
        p,
        &["value", "values", "increment", "decrement", "random"],
        Some("value"),
    )?;
    match c {
        "value" => {
            let n = req(m, p, "value", |a| kind.read(a))?;
            Ok(Field::One(kind.show(n)))
        }
        "values" => values(m, p, kind),
        "increment" | "decrement" => steps(m, p, c, kind),
        _ => random(m, p, kind, warnings),
    }
}

/// A pattern's `values` (at `p`, the pattern's path): a list of distinct
/// values, or one.
fn values(m: &Map<String, Value>, p: &str, kind: Kind) -> Result<Field, Refusal> {
    let vp = join(p, "values");
    let list = req(m, p, "values", |a| a.list())?;
    if list.is_empty() {
        return Err(format!("{vp}: must hold at least one value"));
    }
    let mut out: Vec<u128> = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let ip = format!("{vp}[{i}]");
        let n = kind.read(At { v, path: &ip })?;
        if out.contains(&n) {
            return Err(format!(
                "{ip}: {} repeats a value: landspeed sends each value of a list once per turn",
                kind.show(n)
            ));
        }
        out.push(n);
    }
    Ok(match out.as_slice() {
        [one] => Field::One(kind.show(*one)),
        _ => Field::List(out.into_iter().map(|n| kind.show(n)).collect()),
    })
}

/// A pattern's `increment` or `decrement` (`c`; at `p`, the pattern's
/// path): one value, a range, or the list of its steps.
fn steps(m: &Map<String, Value>, p: &str, c: &str, kind: Kind) -> Result<Field, Refusal> {
    let sp = join(p, c);
    let s = req(m, p, c, |a| a.obj(&["start", "step", "count"]))?;
    let start = req(s, &sp, "start", |a| kind.read(a))?;
    let step = opt(s, &sp, "step", |a| kind.read(a))?.unwrap_or(1);
    let count = u128::from(opt(s, &sp, "count", |a| a.int())?.unwrap_or(1));
    if count == 0 || count > u128::from(MAX_VALUES) {
        return Err(format!(
            "{}: {count} values: landspeed takes 1 to {MAX_VALUES}",
            join(&sp, "count")
        ));
    }
    if count == 1 {
        return Ok(Field::One(kind.show(start)));
    }
    if step == 0 {
        return Err(format!(
            "{}: a step of 0 repeats one value",
            join(&sp, "step")
        ));
    }
    let span = step * (count - 1);
    let up = c == "increment";
    let fits = if up {
        kind.max() - start >= span
    } else {
        start >= span
    };
    if !fits {
        return Err(format!(
            "{sp}: {count} steps of {} from {} leave the field's range: landspeed does not wrap",
            kind.show(step),
            kind.show(start)
        ));
    }
    let end = if up { start + span } else { start - span };
    if up && step == 1 {
        return Ok(Field::Range(kind.show(start), kind.show(end)));
    }
    let values = (0..count)
        .map(|i| {
            kind.show(if up {
                start + i * step
            } else {
                start - i * step
            })
        })
        .collect();
    Ok(Field::List(values))
}

/// A pattern's `random` (at `p`, the pattern's path); its `count`, which
/// landspeed does not keep, is a warning.
fn random(
    m: &Map<String, Value>,
    p: &str,
    kind: Kind,
    warnings: &mut Vec<String>,
) -> Result<Field, Refusal> {
    let rp = join(p, "random");
    let r = req(m, p, "random", |a| a.obj(&["min", "max", "seed", "count"]))?;
    let min = opt(r, &rp, "min", |a| kind.read(a))?.unwrap_or(0);
    let max = opt(r, &rp, "max", |a| kind.read(a))?.unwrap_or(kind.max());
    let seed = opt(r, &rp, "seed", |a| a.int())?.unwrap_or(1);
    if min > max {
        return Err(format!(
            "{rp}: min {} is above max {}",
            kind.show(min),
            kind.show(max)
        ));
    }
    if let Some(count) = opt(r, &rp, "count", |a| a.int())? {
        warnings.push(format!(
            "{}: {count} ignored: landspeed draws every frame's value from the whole \
             range {}..{}",
            join(&rp, "count"),
            kind.show(min),
            kind.show(max)
        ));
    }
    Ok(Field::Random(kind.show(min), kind.show(max), seed))
}

/// A field read from `m[key]`, or its OTG default.
pub(super) fn field(
    m: &Map<String, Value>,
    path: &str,
    key: &str,
    kind: Kind,
    default: &str,
    warnings: &mut Vec<String>,
) -> Result<Field, Refusal> {
    Ok(opt(m, path, key, |a| pattern(a, kind, warnings))?
        .unwrap_or_else(|| Field::One(default.to_string())))
}

/// A field that must keep one value (landspeed has no pattern for it).
pub(super) fn one(f: Field, path: &str) -> Result<String, Refusal> {
    match f {
        Field::One(v) => Ok(v),
        _ => Err(format!(
            "{path}: only one value is supported here (landspeed varies addresses and ports)"
        )),
    }
}

/// A decimal text as a JSON number.
pub(super) fn num(s: &str) -> Value {
    s.parse::<u64>().map(|n| json!(n)).unwrap_or(json!(s))
}
