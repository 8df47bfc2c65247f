//! OTG `captures`: which ports keep the frames they receive, and how, as
//! the RX tasks' `capture` of the profile. A port a capture names gets an
//! RX task even when no flow is received there; its capture is made by a
//! traffic start once the client has started it (`control/state`,
//! `port.capture`).

use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use super::read::{opt, req, At};
use super::{port_of, Mapped, PortMap, Refusal};

/// The frames a capture keeps of each port (the last ones, or the first
/// with `overwrite: false`).
pub const CAPTURE_FRAMES: u64 = 10_000;

/// One captured port.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CaptureMap {
    /// The capture's name.
    pub name: String,
    /// Index of the port in [`Mapped::ports`].
    pub port: usize,
    /// `overwrite`: the latest frames are kept, not the first.
    pub keep_last: bool,
    /// `packet_size`: the bytes kept of a frame (`None`: all of them).
    pub snap: Option<u64>,
}

/// Reads `captures`: each port in one capture at most, pcap only, no
/// filters; `warnings` gets what the client should know of each.
pub(super) fn captures(
    top: &Map<String, Value>,
    ports: &[PortMap],
    warnings: &mut Vec<String>,
) -> Result<Vec<CaptureMap>, Refusal> {
    let mut out: Vec<CaptureMap> = Vec::new();
    for (i, v) in opt(top, "", "captures", |a| a.list())?
        .unwrap_or(&[])
        .iter()
        .enumerate()
    {
        let p = format!("captures[{i}]");
        let m = At { v, path: &p }.obj(&[
            "name",
            "port_names",
            "overwrite",
            "packet_size",
            "format",
            "filters",
        ])?;
        let name = req(m, &p, "name", |a| a.text())?;
        let format = opt(m, &p, "format", |a| a.text())?.unwrap_or("pcap");
        if format != "pcap" {
            return Err(format!("{p}.format: {format} is not supported (pcap)"));
        }
        if opt(m, &p, "filters", |a| a.list())?.is_some_and(|f| !f.is_empty()) {
            return Err(format!(
                "{p}.filters: is not supported (a capture keeps every frame its port receives)"
            ));
        }
        let snap = opt(m, &p, "packet_size", |a| a.int())?;
        if let Some(s) = snap.filter(|s| !(14..=65_535).contains(s)) {
            return Err(format!(
                "{p}.packet_size: {s} bytes: a frame is kept from 14 (its Ethernet header) \
                 to 65535 bytes"
            ));
        }
        let keep_last = opt(m, &p, "overwrite", |a| a.flag())?.unwrap_or(true);
        let names = req(m, &p, "port_names", |a| a.list())?;
        if names.is_empty() {
            return Err(format!("{p}.port_names: name a port to capture on"));
        }
        for (k, n) in names.iter().enumerate() {
            let np = format!("{p}.port_names[{k}]");
            let port_name = At { v: n, path: &np }.text()?;
            let port = port_of(ports, port_name, np.clone())?;
            if let Some(o) = out.iter().find(|c| c.port == port) {
                return Err(format!(
                    "{np}: {port_name} is captured by {} already",
                    o.name
                ));
            }
            out.push(CaptureMap {
                name: name.into(),
                port,
                keep_last,
                snap,
            });
        }
        warnings.push(format!(
            "{p}: landspeed keeps the {} {CAPTURE_FRAMES} frames each of its ports receives",
            if keep_last { "last" } else { "first" }
        ));
    }
    Ok(out)
}

/// `profile` (the mapped profile's JSON text) with a capture on the RX
/// task of each port in `started`, written into `dir`; and each captured
/// port's file.
pub fn with_captures(
    profile: &str,
    m: &Mapped,
    started: &[usize],
    dir: &Path,
) -> Result<(String, Vec<(usize, PathBuf)>), String> {
    let mut v: Value =
        serde_json::from_str(profile).map_err(|e| format!("the mapped profile: {e}"))?;
    let mut files = Vec::new();
    for c in m.captures.iter().filter(|c| started.contains(&c.port)) {
        let task = m
            .rx_task(c.port)
            .ok_or_else(|| format!("port {} has no RX task", m.ports[c.port].name))?;
        let file = dir.join(format!("capture-{}.pcap", c.port));
        let mut spec = json!({
            "file": file.display().to_string(),
            "frames": CAPTURE_FRAMES,
            "keep": if c.keep_last { "last" } else { "first" },
        });
        if let Some(s) = c.snap {
            spec["snap"] = json!(s);
        }
        v["rx"][task]["capture"] = spec;
        files.push((c.port, file));
    }
    let text = serde_json::to_string_pretty(&v).expect("a JSON value serialises");
    Ok((text, files))
}
