//! Where a port is: on this host, on another host's `landspeed serve`
//! (`HOST:PORT;DEVICE`, the fan-out), or `remote` (a port the server that
//! fanned the config out holds, or a third host: this host maps only the
//! flows it sends or receives).

use serde_json::{json, Value};

use super::{PortMap, Refusal};

/// The location of a port held on another host in a config fanned out
/// to this one.
pub const REMOTE: &str = "remote";

/// Where a port is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Home {
    /// On this host: a device of its own.
    Here,
    /// On the `landspeed serve` at `HOST:PORT`: its device is there.
    Peer(String),
    /// Elsewhere, mapped by another host.
    Remote,
}

/// A port `location` as its home and its device (empty for `remote`), or
/// the refusal at `path`.
pub(super) fn place(location: &str, path: &str) -> Result<(Home, String), Refusal> {
    if location == REMOTE {
        return Ok((Home::Remote, String::new()));
    }
    let Some((addr, dev)) = location.split_once(';') else {
        return Ok((Home::Here, location.to_string()));
    };
    let bad = |why: &str| format!("{path}: {location}: {why}");
    let port = addr.rsplit_once(':').map(|(h, p)| (h, p.parse::<u16>()));
    match port {
        Some((h, Ok(p))) if !h.is_empty() && p > 0 => {}
        _ => {
            return Err(bad(
                "a port on another host is HOST:PORT;DEVICE (its landspeed serve, then the device there)",
            ))
        }
    }
    if dev.trim().is_empty() || dev.contains(';') || dev == REMOTE {
        return Err(bad("the device after HOST:PORT; is empty or not a device"));
    }
    Ok((Home::Peer(addr.to_string()), dev.to_string()))
}

/// One other host the config is fanned out to.
#[derive(Clone, Debug, PartialEq)]
pub struct Peer {
    /// Its server's `HOST:PORT`.
    pub addr: String,
    /// The config it is sent: its ports at their devices, every other
    /// port at `remote`.
    pub config: Value,
}

/// The hosts `ports` name, in the order they first appear, each with the
/// config (`config`, as the client sent it) it is sent.
pub(super) fn peers(config: &Value, ports: &[PortMap]) -> Vec<Peer> {
    let mut out: Vec<Peer> = Vec::new();
    for p in ports {
        let Home::Peer(addr) = &p.home else { continue };
        if out.iter().any(|q| &q.addr == addr) {
            continue;
        }
        let mut c = config.clone();
        for (i, q) in ports.iter().enumerate() {
            c["ports"][i]["location"] = match &q.home {
                Home::Peer(a) if a == addr => json!(q.device),
                _ => json!(REMOTE),
            };
        }
        out.push(Peer {
            addr: addr.clone(),
            config: c,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_location_names_its_host_and_device() {
        assert_eq!(
            place("net_ring0", "p").unwrap(),
            (Home::Here, "net_ring0".into())
        );
        assert_eq!(place("remote", "p").unwrap(), (Home::Remote, "".into()));
        assert_eq!(
            place("192.0.2.2:8443;net_af_packet0,iface=b0", "p").unwrap(),
            (
                Home::Peer("192.0.2.2:8443".into()),
                "net_af_packet0,iface=b0".into()
            )
        );
        assert_eq!(
            place("[2001:db8::2]:8443;0000:03:00.0", "p").unwrap(),
            (
                Home::Peer("[2001:db8::2]:8443".into()),
                "0000:03:00.0".into()
            )
        );
        for bad in [
            "host;net_ring0",
            ":8443;net_ring0",
            "h:0;net_ring0",
            "h:x;net_ring0",
            "h:1;",
            "h:1;remote",
            "h:1;a;b",
        ] {
            let e = place(bad, "ports[3].location").unwrap_err();
            assert!(e.starts_with(&format!("ports[3].location: {bad}: ")), "{e}");
        }
    }

    #[test]
    fn each_host_gets_its_ports_and_remote_for_the_rest() {
        let config = json!({ "ports": [
            { "name": "a", "location": "net_ring0" },
            { "name": "b", "location": "h1:1;net_ring1" },
            { "name": "c", "location": "h2:2;net_ring0" },
            { "name": "d", "location": "h1:1;net_ring2" },
        ], "flows": [] });
        let ports: Vec<PortMap> = (config["ports"].as_array().unwrap().iter())
            .map(|p| {
                let (home, device) = place(p["location"].as_str().unwrap(), "").unwrap();
                PortMap {
                    name: p["name"].as_str().unwrap().into(),
                    location: p["location"].as_str().unwrap().into(),
                    home,
                    device,
                }
            })
            .collect();
        let peers = peers(&config, &ports);
        let locations = |c: &Value| -> Vec<String> {
            (c["ports"].as_array().unwrap().iter())
                .map(|p| p["location"].as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(peers.len(), 2);
        assert_eq!(peers[0].addr, "h1:1");
        assert_eq!(
            locations(&peers[0].config),
            ["remote", "net_ring1", "remote", "net_ring2"]
        );
        assert_eq!(peers[1].addr, "h2:2");
        assert_eq!(
            locations(&peers[1].config),
            ["remote", "remote", "net_ring0", "remote"]
        );
        assert_eq!(peers[1].config["flows"], json!([]), "the rest as sent");
    }
}
