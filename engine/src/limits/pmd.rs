//! What landspeed asks of a port's poll-mode driver, and what the
//! driver's answers mean: the decisions that a virtual device cannot show
//! wrong but an Intel or Mellanox NIC would, each a pure function of the
//! driver's name, what it offers and what the run needs, so that each is
//! tested with the names and bits of the real drivers.
//!
//! The facts are DPDK 22.11's drivers' (docs/real-nics.md, "Offloads,
//! fast paths and counters per driver"):
//!
//! - RX `drop_en`: ixgbe counts a frame dropped at a full ring of a queue
//!   with `SRRCTL.DROP_EN` set in that queue's `QPRDC`
//!   (`ixgbe_read_stats_registers`: `q_errors`, the `rx_qN_errors`
//!   statistics), not in `imissed`; with it clear, a full ring holds the
//!   packet buffer and the frames the MAC then drops count in `imissed`
//!   (`MPC`). Dropping per queue is worth it only when there are several
//!   queues, one of which must not stall the others ([`rx_drop_en`]).
//! - The TX vector paths: ixgbe takes its vector or simple TX only with
//!   no TX offload at all (`ixgbe_set_tx_function`), i40e only with none
//!   but fast free (`i40e_set_tx_function_flag`); ice leaves its vector
//!   path for multi-segment TX and, for checksums, takes the "offload"
//!   variant that prepares every packet, or no vector path on a CPU
//!   without AVX2 (`ice_tx_vec_queue_default`, `ice_set_tx_function`).
//!   landspeed patches its checksums from sums precomputed per frame
//!   size, so on these drivers `checksum: auto` computes them in software
//!   ([`checksum_auto_offloads`]).
//! - ixgbe has no `tx_burst_mode_get` / `rx_burst_mode_get` in 22.11: its
//!   TX path is inferred from the offloads asked ([`inferred_tx_path`]).
#![forbid(unsafe_code)]

/// Whether RX queues are set up with `rx_drop_en`: only when the port
/// has several, so that one full ring drops its own frames instead of
/// holding the packet buffer for all (ixgbe's default, `DROP_EN` clear).
/// With one queue there is no other queue to protect, and a drop stays
/// in `imissed`, which every driver reports.
pub fn rx_drop_en(rx_queues: u16) -> bool {
    rx_queues > 1
}

/// Drivers whose TX vector path a checksum offload request takes away or
/// slows (module docs).
fn checksum_leaves_vector_tx(driver: &str) -> bool {
    matches!(
        driver,
        "net_ixgbe" | "net_ixgbe_vf" | "net_i40e" | "net_ice"
    )
}

/// Whether `checksum: auto` asks the NIC for the TX checksums, on a port
/// of `driver` that can (`offered`) or cannot compute them: yes where it
/// can, except on the drivers whose vector TX path the request would
/// leave (module docs), where landspeed's own O(1) patch costs less than
/// the scalar path.
pub fn checksum_auto_offloads(driver: &str, offered: bool) -> bool {
    offered && !checksum_leaves_vector_tx(driver)
}

/// The name of the TX path that an ixgbe port (`net_ixgbe`, `net_ixgbe_vf`)
/// takes with the TX offloads `tx_offloads` asked (`RTE_ETH_TX_OFFLOAD_*`
/// bits), for a driver that cannot say itself (DPDK 22.11's ixgbe has no
/// `tx_burst_mode_get`); `None` for other drivers. landspeed's TX rings
/// keep the driver's default `tx_rs_thresh` (32), which the vector path
/// takes.
pub fn inferred_tx_path(driver: &str, tx_offloads: u64) -> Option<&'static str> {
    if !matches!(driver, "net_ixgbe" | "net_ixgbe_vf") {
        return None;
    }
    Some(if tx_offloads == 0 {
        "Vector (inferred: no TX offload asked)"
    } else {
        "Scalar full-featured (inferred: a TX offload asked)"
    })
}

/// What a burst path's name says of its speed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathKind {
    /// A SIMD path (`Vector SSE`, `Vector AVX2`, `Offload Vector AVX2`).
    Vector,
    /// A scalar path (`Scalar`, `Scalar Simple`, `Scalar Bulk Alloc`).
    Scalar,
    /// The driver's own words (mlx5's `Enhanced MPW`, ...), or none.
    Other,
}

/// The kind of the burst path named `info` (`rte_eth_burst_mode.info`).
pub fn path_kind(info: &str) -> PathKind {
    let words: Vec<String> = info
        .split(|c: char| !c.is_ascii_alphanumeric())
        .map(str::to_ascii_lowercase)
        .collect();
    let has = |w: &str| words.iter().any(|x| x == w);
    if has("vector") {
        PathKind::Vector
    } else if has("scalar") {
        PathKind::Scalar
    } else {
        PathKind::Other
    }
}

/// Drivers with a TX vector path that a run can keep (module docs).
fn has_vector_tx(driver: &str) -> bool {
    matches!(
        driver,
        "net_ixgbe" | "net_ixgbe_vf" | "net_i40e" | "net_ice"
    )
}

/// Why a port of `driver` left its TX vector path, and what to change,
/// given the path it took (`tx_path`) and the TX offloads asked (their
/// names as `landspeed ports` lists them); `None` when it kept it, when
/// the driver has none, or when nothing landspeed asked explains it.
pub fn vector_tx_advice(driver: &str, tx_path: &str, asked: &[&str]) -> Option<String> {
    if !has_vector_tx(driver) || path_kind(tx_path) == PathKind::Vector {
        return None;
    }
    let mut fixes = Vec::new();
    if asked.contains(&"tx-multi-segs") {
        fixes.push("`payload: copy` (no chained frames)");
    }
    if asked.iter().any(|a| a.ends_with("-cksum")) {
        fixes.push("`checksum: software` (landspeed patches its checksums itself)");
    }
    if fixes.is_empty() {
        return None;
    }
    Some(format!(
        "TX path `{tx_path}` on {driver}: the offloads asked ({}) take its vector path away → \
         set {} on the port",
        asked.join(", "),
        fixes.join(" and ")
    ))
}

/// What setting a port's MTU and reading it back found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MtuReadback {
    /// The MTU asked.
    pub asked: u16,
    /// What `rte_eth_dev_set_mtu` returned (0, or a negative errno;
    /// `-ENOTSUP`: the driver has no `mtu_set`, the MTU configured
    /// through `rxmode.mtu` is the one it applies at start).
    pub set_ret: i32,
    /// `rte_eth_dev_get_mtu` afterwards (0: it could not say).
    pub dpdk: u16,
    /// The MTU of the port's kernel network interface, where the driver
    /// has one that carries it (mlx5: its PCI device's netdev in sysfs);
    /// `None` when there is none or it could not be read.
    pub netdev: Option<u16>,
}

/// `-ENOTSUP` as ethdev returns it.
const ENOTSUP: i32 = 95;

/// Whether the MTU of a port of `driver` also lives in its kernel
/// interface: mlx5's `mtu_set` sets the netdev's MTU, which the device
/// applies (`mlx5_dev_set_mtu`); `rte_eth_dev_configure` only stores it.
pub fn mtu_in_netdev(driver: &str) -> bool {
    matches!(driver, "mlx5_pci" | "net_mlx5")
}

/// Whether landspeed sets the MTU of a port of `driver` after configuring
/// it (`rte_eth_dev_set_mtu`): every driver but af_packet, whose MTU is
/// its kernel interface's, which the user set and landspeed only checks
/// against the frames (af_packet's `mtu_set` would change it).
pub fn sets_mtu(driver: &str) -> bool {
    driver != "net_af_packet"
}

/// Why frames of up to `frame` bytes (FCS included, needing MTU `need`)
/// cannot pass a port of `driver` after its MTU was set as `r` says;
/// `None` when they can. A driver without `mtu_set` keeps the MTU
/// configured; one that refused the MTU, reads back less than asked, or
/// whose kernel interface (mlx5) kept a smaller MTU cannot carry them.
pub fn mtu_problem(driver: &str, r: MtuReadback, need: u16, frame: u32) -> Option<String> {
    if r.set_ret != 0 && r.set_ret != -ENOTSUP {
        return Some(format!(
            "the driver refused MTU {} (rte_eth_dev_set_mtu returned {}): {frame}-byte frames \
             cannot pass{}",
            r.asked,
            r.set_ret,
            if mtu_in_netdev(driver) {
                "; the kernel interface's largest MTU is below it (see `ip -d link` maxmtu)"
            } else {
                ""
            }
        ));
    }
    if r.dpdk != 0 && r.dpdk < need {
        return Some(format!(
            "the driver reads back MTU {} after {} was asked: {frame}-byte frames need {need}",
            r.dpdk, r.asked
        ));
    }
    match r.netdev {
        Some(m) if mtu_in_netdev(driver) && m < need => Some(format!(
            "its kernel interface kept MTU {m} after {} was asked: {frame}-byte frames need \
             {need} (the device applies the interface's MTU)",
            r.asked
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drop_en_only_with_several_queues() {
        assert!(!rx_drop_en(0));
        assert!(!rx_drop_en(1));
        assert!(rx_drop_en(2));
        assert!(rx_drop_en(16));
    }

    #[test]
    fn checksums_stay_in_software_where_the_vector_path_would_go() {
        for d in ["net_ixgbe", "net_ixgbe_vf", "net_i40e", "net_ice"] {
            assert!(!checksum_auto_offloads(d, true), "{d}");
            assert!(!checksum_auto_offloads(d, false), "{d}");
        }
        for d in ["mlx5_pci", "net_virtio", "net_tap", "net_null"] {
            assert!(checksum_auto_offloads(d, true), "{d}");
            assert!(!checksum_auto_offloads(d, false), "{d}");
        }
    }

    #[test]
    fn ixgbe_s_path_is_inferred_from_the_offloads() {
        assert_eq!(
            inferred_tx_path("net_ixgbe", 0),
            Some("Vector (inferred: no TX offload asked)")
        );
        assert_eq!(
            inferred_tx_path("net_ixgbe_vf", 0x8000),
            Some("Scalar full-featured (inferred: a TX offload asked)")
        );
        assert_eq!(inferred_tx_path("net_i40e", 0), None);
        assert_eq!(inferred_tx_path("net_null", 2), None);
    }

    #[test]
    fn path_names_by_kind() {
        for v in [
            "Vector SSE",
            "Vector AVX2",
            "Offload Vector AVX2",
            "Vector AVX512 Scattered",
            "Vector (inferred: no TX offload asked)",
        ] {
            assert_eq!(path_kind(v), PathKind::Vector, "{v}");
        }
        for s in ["Scalar", "Scalar Simple", "Scalar Bulk Alloc", "scalar"] {
            assert_eq!(path_kind(s), PathKind::Scalar, "{s}");
        }
        for o in ["", "Enhanced MPW", "Multi-Packet RQ", "Vectorised"] {
            assert_eq!(path_kind(o), PathKind::Other, "{o}");
        }
    }

    #[test]
    fn advice_names_what_took_the_vector_path_away() {
        let a = vector_tx_advice(
            "net_i40e",
            "Scalar",
            &["tx-udp-cksum", "tx-multi-segs", "tx-ipv4-cksum"],
        );
        assert_eq!(
            a.as_deref(),
            Some(
                "TX path `Scalar` on net_i40e: the offloads asked (tx-udp-cksum, tx-multi-segs, \
                 tx-ipv4-cksum) take its vector path away → set `payload: copy` (no chained \
                 frames) and `checksum: software` (landspeed patches its checksums itself) on \
                 the port"
            )
        );
        let a = vector_tx_advice("net_ice", "Scalar", &["tx-multi-segs"]).unwrap();
        assert!(
            a.ends_with("set `payload: copy` (no chained frames) on the port"),
            "{a}"
        );
        // Kept, no vector path, or nothing landspeed asked explains it.
        assert_eq!(
            vector_tx_advice("net_i40e", "Vector AVX2", &["tx-multi-segs"]),
            None
        );
        assert_eq!(
            vector_tx_advice("mlx5_pci", "Scalar", &["tx-multi-segs"]),
            None
        );
        assert_eq!(
            vector_tx_advice("net_i40e", "Scalar", &["tx-mbuf-fast-free"]),
            None
        );
        assert_eq!(vector_tx_advice("net_i40e", "Scalar", &[]), None);
    }

    #[test]
    fn the_mtu_is_set_on_every_driver_but_af_packet() {
        for d in [
            "mlx5_pci",
            "net_ixgbe",
            "net_i40e",
            "net_ice",
            "net_tap",
            "net_null",
        ] {
            assert!(sets_mtu(d), "{d}");
        }
        assert!(!sets_mtu("net_af_packet"));
        assert!(mtu_in_netdev("mlx5_pci"));
        assert!(mtu_in_netdev("net_mlx5"));
        assert!(!mtu_in_netdev("net_tap"));
    }

    fn rb(set_ret: i32, dpdk: u16, netdev: Option<u16>) -> MtuReadback {
        MtuReadback {
            asked: 9112,
            set_ret,
            dpdk,
            netdev,
        }
    }

    #[test]
    fn the_mtu_read_back_says_whether_jumbo_frames_pass() {
        // Set and read back; a driver without mtu_set keeps the
        // configured one.
        assert_eq!(
            mtu_problem("net_ixgbe", rb(0, 9112, None), 9112, 9130),
            None
        );
        assert_eq!(
            mtu_problem("net_null", rb(-95, 9112, None), 9112, 9130),
            None
        );
        assert_eq!(mtu_problem("net_null", rb(-95, 0, None), 9112, 9130), None);
        // mlx5: the kernel interface took it.
        assert_eq!(
            mtu_problem("mlx5_pci", rb(0, 9112, Some(9112)), 9112, 9130),
            None
        );
        assert_eq!(mtu_problem("mlx5_pci", rb(0, 9112, None), 9112, 9130), None);
        // A refusal, with the interface's limit named on mlx5.
        assert_eq!(
            mtu_problem("mlx5_pci", rb(-22, 1500, Some(1500)), 9112, 9130).as_deref(),
            Some(
                "the driver refused MTU 9112 (rte_eth_dev_set_mtu returned -22): 9130-byte \
                 frames cannot pass; the kernel interface's largest MTU is below it (see `ip \
                 -d link` maxmtu)"
            )
        );
        assert_eq!(
            mtu_problem("net_i40e", rb(-16, 1500, None), 9112, 9130).as_deref(),
            Some("the driver refused MTU 9112 (rte_eth_dev_set_mtu returned -16): 9130-byte frames cannot pass")
        );
        // Read back short.
        assert_eq!(
            mtu_problem("net_ice", rb(0, 1500, None), 9112, 9130).as_deref(),
            Some("the driver reads back MTU 1500 after 9112 was asked: 9130-byte frames need 9112")
        );
        // mlx5's netdev kept less than the frames need.
        assert_eq!(
            mtu_problem("mlx5_pci", rb(0, 9112, Some(1500)), 9112, 9130).as_deref(),
            Some(
                "its kernel interface kept MTU 1500 after 9112 was asked: 9130-byte frames \
                 need 9112 (the device applies the interface's MTU)"
            )
        );
        // Only where the MTU lives in the netdev.
        assert_eq!(
            mtu_problem("net_tap", rb(0, 9112, Some(1500)), 9112, 9130),
            None
        );
        // A larger MTU than needed passes (auto-learning receivers).
        assert_eq!(
            mtu_problem("mlx5_pci", rb(0, 9500, Some(9500)), 9112, 9130),
            None
        );
    }
}
