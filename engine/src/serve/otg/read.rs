//! The path-aware JSON reader: a node and the OTG path that leads to it,
//! and the readers that refuse a node naming its path.

use serde_json::{Map, Value};

use super::Refusal;

/// A JSON node and the OTG path that leads to it.
#[derive(Clone, Copy)]
pub(super) struct At<'a, 'p> {
    /// The node.
    pub(super) v: &'a Value,
    /// Its OTG path (`flows[0].packet[2]`); empty at the top.
    pub(super) path: &'p str,
}

/// A node's path joined with a key or an index.
pub(super) fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

impl<'a> At<'a, '_> {
    /// `path: why`.
    pub(super) fn no(&self, why: impl std::fmt::Display) -> Refusal {
        if self.path.is_empty() {
            format!("{why}")
        } else {
            format!("{}: {why}", self.path)
        }
    }

    /// The node as an object whose keys are all among `known`.
    pub(super) fn obj(&self, known: &[&str]) -> Result<&'a Map<String, Value>, Refusal> {
        let m = self
            .v
            .as_object()
            .ok_or_else(|| self.no("must be an object"))?;
        if let Some(k) = m.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(format!("{}: is not supported", join(self.path, k)));
        }
        Ok(m)
    }

    /// The node as text.
    pub(super) fn text(&self) -> Result<&'a str, Refusal> {
        self.v.as_str().ok_or_else(|| self.no("must be text"))
    }

    /// The node as a whole number: a JSON number, or text holding one
    /// (snappi sends 64-bit integers as text).
    pub(super) fn int(&self) -> Result<u64, Refusal> {
        match self.v {
            Value::Number(n) => n.as_u64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
        .ok_or_else(|| self.no(format!("{} is not a whole number of 0 or more", self.v)))
    }

    /// The node as a number (JSON number or text holding one).
    pub(super) fn num(&self) -> Result<f64, Refusal> {
        match self.v {
            Value::Number(n) => n.as_f64(),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
        .filter(|x: &f64| x.is_finite())
        .ok_or_else(|| self.no(format!("{} is not a number", self.v)))
    }

    /// The node as a boolean.
    pub(super) fn flag(&self) -> Result<bool, Refusal> {
        self.v
            .as_bool()
            .ok_or_else(|| self.no("must be true or false"))
    }

    /// The node as a list.
    pub(super) fn list(&self) -> Result<&'a [Value], Refusal> {
        self.v
            .as_array()
            .map(Vec::as_slice)
            .ok_or_else(|| self.no("must be a list"))
    }
}

/// Reads `key` of `m` (at `path`) with `f`, or `None` when it is absent or
/// null.
pub(super) fn opt<'a, T>(
    m: &'a Map<String, Value>,
    path: &str,
    key: &str,
    f: impl FnOnce(At<'a, '_>) -> Result<T, Refusal>,
) -> Result<Option<T>, Refusal> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => {
            let p = join(path, key);
            f(At { v, path: &p }).map(Some)
        }
    }
}

/// Reads `key` of `m`, which must be there.
pub(super) fn req<'a, T>(
    m: &'a Map<String, Value>,
    path: &str,
    key: &str,
    f: impl FnOnce(At<'a, '_>) -> Result<T, Refusal>,
) -> Result<T, Refusal> {
    opt(m, path, key, f)?.ok_or_else(|| format!("{}: is required", join(path, key)))
}

/// The object's `choice`, which must be one of `known`; `default` when it
/// is absent.
pub(super) fn choice<'a>(
    m: &'a Map<String, Value>,
    path: &str,
    known: &[&str],
    default: Option<&'static str>,
) -> Result<&'a str, Refusal> {
    let c = match opt(m, path, "choice", |a| a.text())? {
        Some(c) => c,
        None => default.ok_or_else(|| format!("{}: is required", join(path, "choice")))?,
    };
    if known.contains(&c) {
        Ok(c)
    } else {
        Err(format!("{}: {c} is not supported", join(path, "choice")))
    }
}
