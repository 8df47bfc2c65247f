//! Ethernet ports: device info, configuration, start/stop, link, stats.

use std::cell::Cell;
use std::ffi::{CStr, CString};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};

use landspeed_sys as sys;
use serde::Serialize;

use super::extbuf::Patterns;
use super::{DpdkError, Eal, Mempool};

/// What a port's driver says it can do.
#[derive(Clone, Debug, Serialize)]
pub struct PortInfo {
    /// DPDK port id.
    pub id: u16,
    /// Device name (e.g. `net_null0`, `0000:03:00.0`).
    pub name: String,
    /// Driver name (e.g. `net_null`, `net_ixgbe`).
    pub driver: String,
    /// MAC address.
    pub mac: [u8; 6],
    /// Largest frame the port receives, in bytes, FCS included (DPDK's
    /// `max_rx_pktlen`; `u32::MAX` when the driver sets no limit).
    pub max_rx_pktlen: u32,
    /// Smallest and largest MTU.
    pub min_mtu: u16,
    /// Largest MTU.
    pub max_mtu: u16,
    /// Queue limits.
    pub max_rx_queues: u16,
    /// Queue limits.
    pub max_tx_queues: u16,
    /// Descriptor limits per RX ring (min, max).
    pub rx_ring: (u16, u16),
    /// Descriptor limits per TX ring (min, max).
    pub tx_ring: (u16, u16),
    /// `RTE_ETH_RX_OFFLOAD_*` capabilities.
    pub rx_offload_capa: u64,
    /// `RTE_ETH_TX_OFFLOAD_*` capabilities.
    pub tx_offload_capa: u64,
    /// RSS hash functions supported (0: no RSS).
    pub rss_offloads: u64,
    /// NUMA socket of the device (-1 when unknown).
    pub socket: i32,
}

impl PortInfo {
    /// Whether the port can compute IPv4/UDP/TCP checksums on transmit.
    pub fn tx_checksum_offload(&self) -> bool {
        let need = sys::RTE_ETH_TX_OFFLOAD_IPV4_CKSUM
            | sys::RTE_ETH_TX_OFFLOAD_UDP_CKSUM
            | sys::RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
        self.tx_offload_capa & need == need
    }

    /// Whether the port verifies IPv4/UDP/TCP checksums on receive.
    pub fn rx_checksum_offload(&self) -> bool {
        let need = sys::RTE_ETH_RX_OFFLOAD_IPV4_CKSUM
            | sys::RTE_ETH_RX_OFFLOAD_UDP_CKSUM
            | sys::RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
        self.rx_offload_capa & need == need
    }

    /// Whether the driver says it sends chained (multi-segment) mbufs.
    pub fn tx_multi_segs(&self) -> bool {
        self.tx_offload_capa & sys::RTE_ETH_TX_OFFLOAD_MULTI_SEGS != 0
    }

    /// Names of the checksum-related offloads the port has, for listings.
    pub fn offload_names(&self) -> Vec<&'static str> {
        let mut v = offload_names(self.rx_offload_capa, self.tx_offload_capa);
        if self.rss_offloads != 0 {
            v.push("rss");
        }
        v
    }

    /// The MAC address as `aa:bb:cc:dd:ee:ff`.
    pub fn mac_string(&self) -> String {
        let m = self.mac;
        format!(
            "{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}",
            m[0], m[1], m[2], m[3], m[4], m[5]
        )
    }
}

/// Names of the offloads among `rx` (`RTE_ETH_RX_OFFLOAD_*`) and `tx`
/// (`RTE_ETH_TX_OFFLOAD_*`) bits that landspeed asks for or lists
/// (`rx-ipv4-cksum`, `tx-multi-segs`, ...), RX first.
pub fn offload_names(rx: u64, tx: u64) -> Vec<&'static str> {
    let rx_names = [
        (sys::RTE_ETH_RX_OFFLOAD_IPV4_CKSUM, "rx-ipv4-cksum"),
        (sys::RTE_ETH_RX_OFFLOAD_UDP_CKSUM, "rx-udp-cksum"),
        (sys::RTE_ETH_RX_OFFLOAD_TCP_CKSUM, "rx-tcp-cksum"),
        (sys::RTE_ETH_RX_OFFLOAD_SCATTER, "rx-scatter"),
        (sys::RTE_ETH_RX_OFFLOAD_TIMESTAMP, "rx-timestamp"),
    ];
    let tx_names = [
        (sys::RTE_ETH_TX_OFFLOAD_IPV4_CKSUM, "tx-ipv4-cksum"),
        (sys::RTE_ETH_TX_OFFLOAD_UDP_CKSUM, "tx-udp-cksum"),
        (sys::RTE_ETH_TX_OFFLOAD_TCP_CKSUM, "tx-tcp-cksum"),
        (sys::RTE_ETH_TX_OFFLOAD_MULTI_SEGS, "tx-multi-segs"),
        (sys::RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE, "tx-mbuf-fast-free"),
    ];
    let rx = (rx_names.iter())
        .filter(|(b, _)| rx & b != 0)
        .map(|(_, n)| *n);
    let tx = (tx_names.iter())
        .filter(|(b, _)| tx & b != 0)
        .map(|(_, n)| *n);
    rx.chain(tx).collect()
}

/// The burst functions a started port's driver chose for its queue 0
/// (`rte_eth_tx_burst_mode_get`, `rte_eth_rx_burst_mode_get`): `Vector
/// AVX2`, `Scalar`, ...; `None` where the driver does not say (ixgbe,
/// the software vdevs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BurstModes {
    /// The TX path.
    pub tx: Option<String>,
    /// The RX path.
    pub rx: Option<String>,
}

/// How to set a port up.
#[derive(Clone, Debug)]
pub struct PortConfig {
    /// Number of RX queues (0 for a TX-only port is raised to 1: DPDK
    /// drivers expect one).
    pub rx_queues: u16,
    /// Number of TX queues.
    pub tx_queues: u16,
    /// RX descriptors per queue.
    pub rx_ring: u16,
    /// TX descriptors per queue.
    pub tx_ring: u16,
    /// Largest frame the run sends or expects, FCS included.
    pub max_frame: u32,
    /// The MTU to configure (`rxmode.mtu`); `None` keeps the driver's
    /// default (a device whose MTU is not set through DPDK, such as
    /// af_packet's kernel interface). ethdev checks it against the
    /// driver's limits.
    pub mtu: Option<u16>,
    /// Ask for scattered RX (`RTE_ETH_RX_OFFLOAD_SCATTER`) where the
    /// driver offers it: a frame may not fit one mbuf of the pool, and
    /// the receiver walks the segments.
    pub rx_scatter: bool,
    /// Ask the NIC to compute TX checksums.
    pub tx_checksum_offload: bool,
    /// Frames may be chained (an attached payload segment): multi-segment
    /// TX is requested where the driver offers it, and fast free is not.
    pub tx_multi_segs: bool,
    /// Each TX queue sends the mbufs of one mempool only, so fast free
    /// (`RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE`), which returns a whole batch
    /// to its first mbuf's pool, is safe; it is requested where the driver
    /// offers it and frames are not chained.
    pub tx_one_pool: bool,
    /// Set `rx_drop_en` on the RX queues: a full ring drops its own frames
    /// (counted per queue by drivers such as ixgbe) instead of holding the
    /// packet buffer for every queue.
    pub rx_drop_en: bool,
    /// Ask the NIC to verify RX checksums.
    pub rx_checksum_offload: bool,
    /// Ask the NIC to timestamp received frames
    /// (`RTE_ETH_RX_OFFLOAD_TIMESTAMP`) where the driver offers it; the
    /// stamps are read through [`RxStampField`](super::RxStampField).
    pub rx_timestamp: bool,
    /// Receive every frame regardless of destination MAC.
    pub promiscuous: bool,
}

/// A port's link as the driver reports it.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
pub struct LinkStatus {
    /// Whether the link is up.
    pub up: bool,
    /// Speed in Mbit/s (0 when unknown).
    pub speed_mbps: u32,
    /// Full duplex.
    pub full_duplex: bool,
}

/// What became of a port's 802.3x flow control when it was configured:
/// landspeed turns it off, as RFC 2544 asks (a DUT's PAUSE frames would
/// throttle the tester and hide the DUT's loss as a slow sender).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FlowControl {
    /// It was on (in some mode) and the driver turned it off.
    TurnedOff,
    /// The driver reported it off already (ixgbe and i40e start so:
    /// `eth_ixgbe_dev_init` and `eth_i40e_dev_init` request none).
    AlreadyOff,
    /// The driver has no flow-control operations
    /// (`rte_eth_dev_flow_ctrl_get` returned `-ENOTSUP`): the software
    /// vdevs, and `net_ice`, whose PMD leaves PAUSE as the firmware
    /// negotiated it.
    NotSupported,
    /// Reading it failed with another error: its state is unknown.
    ReadFailed,
    /// It is on and the driver refused to turn it off.
    StillOn,
}

impl FlowControl {
    /// Flow control is known to be off.
    pub fn off(self) -> bool {
        matches!(self, FlowControl::TurnedOff | FlowControl::AlreadyOff)
    }

    /// The JSON name (`turned_off`, `already_off`, ...).
    pub fn name(self) -> &'static str {
        match self {
            FlowControl::TurnedOff => "turned_off",
            FlowControl::AlreadyOff => "already_off",
            FlowControl::NotSupported => "not_supported",
            FlowControl::ReadFailed => "read_failed",
            FlowControl::StillOn => "still_on",
        }
    }

    /// The state from what `rte_eth_dev_flow_ctrl_get` returned (`get`)
    /// with the mode it read, and what the set to `RTE_ETH_FC_NONE`
    /// returned (`set`, `None` when not tried).
    fn from_calls(get: i32, mode: u32, set: Option<i32>) -> Self {
        match (get, set) {
            (g, _) if g == -libc::ENOTSUP => FlowControl::NotSupported,
            (g, _) if g != 0 => FlowControl::ReadFailed,
            _ if mode == sys::RTE_ETH_FC_NONE => FlowControl::AlreadyOff,
            (_, Some(0)) => FlowControl::TurnedOff,
            _ => FlowControl::StillOn,
        }
    }
}

/// The PMD's basic counters (`rte_eth_stats`).
#[derive(Clone, Copy, Debug, Default, Serialize, serde::Deserialize, PartialEq, Eq)]
pub struct PortStats {
    /// Frames received.
    pub ipackets: u64,
    /// Frames sent.
    pub opackets: u64,
    /// Bytes received (FCS excluded by most drivers).
    pub ibytes: u64,
    /// Bytes sent.
    pub obytes: u64,
    /// Frames the NIC dropped because the host did not take them in time.
    pub imissed: u64,
    /// Receive errors.
    pub ierrors: u64,
    /// Transmit errors.
    pub oerrors: u64,
    /// RX mbuf allocation failures.
    pub rx_nombuf: u64,
}

impl std::ops::AddAssign for PortStats {
    /// Counter-wise sum (several ports' counters together).
    fn add_assign(&mut self, o: PortStats) {
        self.ipackets += o.ipackets;
        self.opackets += o.opackets;
        self.ibytes += o.ibytes;
        self.obytes += o.obytes;
        self.imissed += o.imissed;
        self.ierrors += o.ierrors;
        self.oerrors += o.oerrors;
        self.rx_nombuf += o.rx_nombuf;
    }
}

impl PortStats {
    /// Counter-wise difference `self − earlier` (saturating at 0).
    pub fn since(&self, earlier: &PortStats) -> PortStats {
        PortStats {
            ipackets: self.ipackets.saturating_sub(earlier.ipackets),
            opackets: self.opackets.saturating_sub(earlier.opackets),
            ibytes: self.ibytes.saturating_sub(earlier.ibytes),
            obytes: self.obytes.saturating_sub(earlier.obytes),
            imissed: self.imissed.saturating_sub(earlier.imissed),
            ierrors: self.ierrors.saturating_sub(earlier.ierrors),
            oerrors: self.oerrors.saturating_sub(earlier.oerrors),
            rx_nombuf: self.rx_nombuf.saturating_sub(earlier.rx_nombuf),
        }
    }
}

/// Which port ids have an owner: [`Port::open`] claims an id, dropping the
/// port releases it, so no two `Port`s close the same device.
static CLAIMED: [AtomicBool; sys::RTE_MAX_ETHPORTS as usize] =
    [const { AtomicBool::new(false) }; sys::RTE_MAX_ETHPORTS as usize];

/// Ownership of one port id, released on drop.
#[derive(Debug)]
struct Claim(u16);

impl Claim {
    /// Claim `id`, refusing one already owned or out of DPDK's range.
    fn take(id: u16) -> Result<Claim, DpdkError> {
        let Some(slot) = CLAIMED.get(usize::from(id)) else {
            return Err(DpdkError::msg(
                format!("port {id}"),
                format!("DPDK port ids are below {}", sys::RTE_MAX_ETHPORTS),
            ));
        };
        if slot.swap(true, Ordering::AcqRel) {
            return Err(DpdkError::msg(
                format!("port {id}"),
                "already open: a port has one owner",
            ));
        }
        Ok(Claim(id))
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        CLAIMED[usize::from(self.0)].store(false, Ordering::Release);
    }
}

/// A probed Ethernet port, with one owner. It borrows the [`Eal`] and,
/// once configured, owns its [`Mempool`]. Dropping it (or [`Port::close`])
/// stops and closes the device, then frees the pool.
///
/// [`Port::start`] hands out the queue handles, which borrow the port: it
/// cannot be stopped, reconfigured or dropped while a handle lives.
pub struct Port<'eal> {
    id: u16,
    info: PortInfo,
    /// Queues configured (RX, TX); (0, 0) until `configure`.
    queues: (u16, u16),
    /// Descriptors per RX and TX queue, as the driver adjusted them.
    rings: (u16, u16),
    started: Cell<bool>,
    closed: bool,
    /// Dropped after the port is closed (fields drop after `Drop::drop`).
    pool: Option<Mempool<'eal>>,
    /// Data-less mbufs for attached payload segments (dropped after close).
    segs: Option<Mempool<'eal>>,
    /// The fill patterns attached segments point into (zeroed and freed
    /// after close, when no frame can refer to them).
    patterns: Patterns,
    /// Flow control as `configure` left it (`None` before).
    flow_control: Option<FlowControl>,
    /// The RX and TX offloads `configure` asked for (0, 0 before).
    offloads: (u64, u64),
    _claim: Claim,
    _eal: PhantomData<&'eal Eal>,
}

/// The queue handles of a started port, one per queue, by queue id.
pub struct Queues<'p> {
    /// TX queues 0..n.
    pub tx: Vec<TxQueue<'p>>,
    /// RX queues 0..n.
    pub rx: Vec<RxQueue<'p>>,
}

/// The right to transmit on one TX queue of a started port. There is one
/// per queue; it is `Send` (give it to the lcore that polls the queue) but
/// not `Sync` (two lcores cannot share it). Batches to send on it come
/// from its port's pool ([`TxBatch::new`](super::TxBatch::new)).
pub struct TxQueue<'p> {
    pub(super) port: u16,
    pub(super) queue: u16,
    pub(super) pool: &'p Mempool<'p>,
    /// The port's segment pool, if it has one.
    pub(super) segs: Option<&'p Mempool<'p>>,
    /// The fill patterns placed on the port.
    pub(super) patterns: &'p Patterns,
    _not_sync: PhantomData<Cell<()>>,
}

/// The right to poll one RX queue of a started port: one per queue, `Send`
/// but not `Sync`, like [`TxQueue`].
pub struct RxQueue<'p> {
    pub(super) port: u16,
    pub(super) queue: u16,
    _port: PhantomData<&'p ()>,
    _not_sync: PhantomData<Cell<()>>,
}

impl TxQueue<'_> {
    /// The DPDK port id.
    pub fn port_id(&self) -> u16 {
        self.port
    }

    /// The queue id.
    pub fn id(&self) -> u16 {
        self.queue
    }
}

impl RxQueue<'_> {
    /// The DPDK port id.
    pub fn port_id(&self) -> u16 {
        self.port
    }

    /// The queue id.
    pub fn id(&self) -> u16 {
        self.queue
    }
}

impl<'eal> Port<'eal> {
    /// Open the port DPDK knows by `name` (a vdev name such as `net_null0`
    /// or a PCI address).
    pub fn by_name(eal: &'eal Eal, name: &str) -> Result<Port<'eal>, DpdkError> {
        let cname =
            CString::new(name).map_err(|_| DpdkError::msg("port", "name has a NUL byte"))?;
        let mut id = 0u16;
        // SAFETY: cname is a valid C string; id is a valid out pointer.
        let ret = unsafe { sys::rte_eth_dev_get_port_by_name(cname.as_ptr(), &mut id) };
        if ret != 0 {
            return Err(DpdkError::msg(
                format!("port {name}"),
                "DPDK has no such port (a vdev that failed to probe, a PCI device not bound to a DPDK driver, or a misspelt name)",
            ));
        }
        Self::open(eal, id)
    }

    /// Open port `id`. Refused if the port is already open (one owner).
    pub fn open(_eal: &'eal Eal, id: u16) -> Result<Port<'eal>, DpdkError> {
        let claim = Claim::take(id)?;
        let info = query_info(id)?;
        let patterns = Patterns::on_socket(info.socket);
        Ok(Port {
            id,
            info,
            queues: (0, 0),
            rings: (0, 0),
            started: Cell::new(false),
            closed: false,
            pool: None,
            segs: None,
            patterns,
            flow_control: None,
            offloads: (0, 0),
            _claim: claim,
            _eal: PhantomData,
        })
    }

    /// The DPDK port id.
    pub fn id(&self) -> u16 {
        self.id
    }

    /// What the driver said about the device.
    pub fn info(&self) -> &PortInfo {
        &self.info
    }

    /// Configure queues, MTU and offloads, once. The port takes `pool`: its
    /// RX queues fill from it, its TX batches are allocated from it, and it
    /// is freed after the port is closed.
    pub fn configure(&mut self, cfg: &PortConfig, pool: Mempool<'eal>) -> Result<(), DpdkError> {
        if self.pool.is_some() {
            return Err(DpdkError::msg(
                format!("port {}", self.info.name),
                "already configured",
            ));
        }
        let rxq = cfg.rx_queues.max(1);
        check_config(&self.info, cfg, rxq, &pool)?;
        let conf = eth_conf(&self.info, cfg, rxq);
        // SAFETY: conf is a fully initialised rte_eth_conf; id is valid.
        let ret = unsafe { sys::rte_eth_dev_configure(self.id, rxq, cfg.tx_queues, &conf) };
        if ret < 0 {
            return Err(DpdkError::from_ret(
                format!("rte_eth_dev_configure(port {})", self.info.name),
                ret,
            ));
        }
        let rings = self.adjust_rings(cfg.rx_ring, cfg.tx_ring)?;
        let cfg = &PortConfig {
            rx_ring: rings.0,
            tx_ring: rings.1,
            ..cfg.clone()
        };
        // Owned before any RX queue holds its mbufs.
        let pool = &*self.pool.insert(pool);
        setup_rx_queues(self.id, &self.info, cfg, rxq, pool)?;
        self.offloads = (conf.rxmode.offloads, conf.txmode.offloads);
        let mut txconf = self.tx_defaults();
        txconf.offloads = conf.txmode.offloads;
        setup_tx_queues(self.id, &self.info, cfg, &txconf)?;
        self.queues = (rxq, cfg.tx_queues);
        self.rings = rings;
        self.flow_control = Some(flow_control_off(self.id));
        if cfg.promiscuous {
            // SAFETY: valid port id. Some virtual drivers do not support
            // promiscuous mode: that is not an error for the engine.
            unsafe { sys::rte_eth_promiscuous_enable(self.id) };
        }
        Ok(())
    }

    /// `rx` and `tx` descriptors per queue as the driver takes them
    /// (`rte_eth_dev_adjust_nb_rx_tx_desc`: aligned up to its multiple,
    /// then within its minimum and maximum). Needs no configuration, so a
    /// pool can be sized for the rings before [`configure`](Self::configure),
    /// which adjusts the same way.
    pub fn adjust_rings(&self, rx: u16, tx: u16) -> Result<(u16, u16), DpdkError> {
        let (mut rx, mut tx) = (rx, tx);
        // SAFETY: valid port id; both out pointers are live u16s.
        let ret = unsafe { sys::rte_eth_dev_adjust_nb_rx_tx_desc(self.id, &mut rx, &mut tx) };
        if ret < 0 {
            return Err(DpdkError::from_ret(
                format!("rte_eth_dev_adjust_nb_rx_tx_desc(port {})", self.info.name),
                ret,
            ));
        }
        Ok((rx, tx))
    }

    /// Descriptors per RX and TX queue since [`configure`](Self::configure)
    /// ((0, 0) before).
    pub fn rings(&self) -> (u16, u16) {
        self.rings
    }

    /// Bytes of each mbuf of the port's pool after the headroom (0 before
    /// [`configure`](Self::configure)).
    pub fn frame_room(&self) -> u32 {
        self.pool.as_ref().map_or(0, Mempool::max_frame)
    }

    /// The MTU the device has now (`rte_eth_dev_get_mtu`; 0 when the
    /// driver cannot say).
    pub fn mtu(&self) -> u16 {
        let mut mtu = 0u16;
        // SAFETY: valid port id and out pointer.
        if unsafe { sys::rte_eth_dev_get_mtu(self.id, &mut mtu) } != 0 {
            return 0;
        }
        mtu
    }

    /// Flow control as `configure` left it; `None` before `configure`.
    pub fn flow_control(&self) -> Option<FlowControl> {
        self.flow_control
    }

    /// The RX and TX offloads (`RTE_ETH_*_OFFLOAD_*` bits) `configure`
    /// asked for; (0, 0) before.
    pub fn offloads_asked(&self) -> (u64, u64) {
        self.offloads
    }

    /// Whether `configure` asked for fast free
    /// (`RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE`): every TX queue must then send
    /// the mbufs of one pool only.
    pub fn fast_free(&self) -> bool {
        self.offloads.1 & sys::RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE != 0
    }

    /// Set the MTU of the configured port (`rte_eth_dev_set_mtu`), which
    /// pushes it to where the driver keeps it (mlx5: the kernel
    /// interface; `rte_eth_dev_configure` only stores it). Returns what
    /// the call returned: 0, or a negative errno (`-ENOTSUP` from a driver
    /// without `mtu_set`, which applies the configured MTU at start).
    pub fn set_mtu(&self, mtu: u16) -> i32 {
        // SAFETY: valid port id; ethdev checks the port is configured and
        // the MTU within the driver's limits.
        unsafe { sys::rte_eth_dev_set_mtu(self.id, mtu) }
    }

    /// The burst functions the driver chose for queue 0 ([`BurstModes`]);
    /// both `None` before the start.
    pub fn burst_modes(&self) -> BurstModes {
        if !self.started.get() {
            return BurstModes::default();
        }
        let info = |m: &sys::rte_eth_burst_mode| {
            // SAFETY: the driver wrote a NUL-terminated string into the
            // zeroed 1024-byte array (snprintf).
            let s = unsafe { CStr::from_ptr(m.info.as_ptr()) };
            let s = s.to_string_lossy().trim().to_string();
            (!s.is_empty()).then_some(s)
        };
        let mut tx = sys::rte_eth_burst_mode::default();
        let mut rx = sys::rte_eth_burst_mode::default();
        let (txq, rxq) = (self.queues.1, self.queues.0);
        // SAFETY: valid, started port; queue 0 exists when counted; out
        // pointers are live structs.
        let tx_ret = if txq > 0 {
            unsafe { sys::rte_eth_tx_burst_mode_get(self.id, 0, &mut tx) }
        } else {
            -1
        };
        // SAFETY: as above.
        let rx_ret = if rxq > 0 {
            unsafe { sys::rte_eth_rx_burst_mode_get(self.id, 0, &mut rx) }
        } else {
            -1
        };
        BurstModes {
            tx: if tx_ret == 0 { info(&tx) } else { None },
            rx: if rx_ret == 0 { info(&rx) } else { None },
        }
    }

    fn tx_defaults(&self) -> sys::rte_eth_txconf {
        let mut dev = sys::rte_eth_dev_info::default();
        // SAFETY: id is valid, dev a valid out pointer.
        unsafe { sys::rte_eth_dev_info_get(self.id, &mut dev) };
        dev.default_txconf
    }

    /// Give the port a pool of segment mbufs for attached payloads
    /// ([`Segments`](super::Segments)), made by
    /// [`Mempool::create_segments`], freed after the port is closed.
    /// Refused once started (the queue handles carry it), if it has one,
    /// or if the pool's mbufs have no room for their shared info.
    pub fn set_segment_pool(&mut self, pool: Mempool<'eal>) -> Result<(), DpdkError> {
        if self.started.get() || self.segs.is_some() {
            return Err(DpdkError::msg(
                format!("port {}", self.info.name),
                "a segment pool is set once, before the start",
            ));
        }
        if !pool.holds_segments() {
            return Err(DpdkError::msg(
                format!("port {}", self.info.name),
                "a segment pool is made by Mempool::create_segments",
            ));
        }
        self.segs = Some(pool);
        Ok(())
    }

    /// Start the configured device and hand out its queue handles, one
    /// per queue. Refused when not configured or already started: the
    /// handles of one start are the only ones.
    pub fn start(&self) -> Result<Queues<'_>, DpdkError> {
        let Some(pool) = self.pool.as_ref() else {
            return Err(DpdkError::msg(
                format!("port {}", self.info.name),
                "started before it was configured",
            ));
        };
        if self.started.get() {
            return Err(DpdkError::msg(
                format!("port {}", self.info.name),
                "already started",
            ));
        }
        // SAFETY: the port was configured (it owns a pool only then).
        let ret = unsafe { sys::rte_eth_dev_start(self.id) };
        if ret < 0 {
            return Err(DpdkError::from_ret(
                format!("rte_eth_dev_start(port {})", self.info.name),
                ret,
            ));
        }
        self.started.set(true);
        let (rxq, txq) = self.queues;
        Ok(Queues {
            tx: (0..txq)
                .map(|queue| TxQueue {
                    port: self.id,
                    queue,
                    pool,
                    segs: self.segs.as_ref(),
                    patterns: &self.patterns,
                    _not_sync: PhantomData,
                })
                .collect(),
            rx: (0..rxq)
                .map(|queue| RxQueue {
                    port: self.id,
                    queue,
                    _port: PhantomData,
                    _not_sync: PhantomData,
                })
                .collect(),
        })
    }

    /// Stop the device (frames still in its rings are freed by the driver).
    /// `&mut self`: no queue handle of the port is alive.
    pub fn stop(&mut self) {
        if self.started.get() {
            // SAFETY: valid, started port; no queue handle exists (they
            // borrow the port), so no lcore polls it.
            unsafe { sys::rte_eth_dev_stop(self.id) };
            self.started.set(false);
        }
    }

    /// Stop and close the device and give back its pool (to check that
    /// every mbuf came back). Dropping the port does the same and frees
    /// the pool.
    pub fn close(mut self) -> Option<Mempool<'eal>> {
        self.shut_down();
        self.pool.take()
    }

    /// Like [`close`](Self::close), giving back the segment pool too.
    pub fn close_pools(mut self) -> Vec<Mempool<'eal>> {
        self.shut_down();
        self.pool
            .take()
            .into_iter()
            .chain(self.segs.take())
            .collect()
    }

    fn shut_down(&mut self) {
        if !self.closed {
            self.stop();
            // SAFETY: the port is stopped; close releases its queues and
            // frees the mbufs they held into the pool, which is still
            // alive (dropped after this). The id is not used afterwards.
            unsafe { sys::rte_eth_dev_close(self.id) };
            self.closed = true;
        }
    }

    /// The link as the driver reports it now (does not wait).
    pub fn link(&self) -> LinkStatus {
        let mut link = sys::rte_eth_link::default();
        // SAFETY: valid port id and out pointer.
        unsafe { sys::rte_eth_link_get_nowait(self.id, &mut link) };
        LinkStatus {
            up: link.link_status() != 0,
            speed_mbps: if link.link_speed == u32::MAX {
                0
            } else {
                link.link_speed
            },
            full_duplex: link.link_duplex() != 0,
        }
    }

    /// The PMD's basic counters.
    pub fn stats(&self) -> PortStats {
        stats_of(self.id)
    }

    /// Every extended statistic, by name, in the driver's order.
    pub fn xstats(&self) -> Vec<(String, u64)> {
        xstats_of(self.id)
    }
}

impl Drop for Port<'_> {
    fn drop(&mut self) {
        self.shut_down();
    }
}

/// The queue counts and frame size `cfg` asks fit the driver and `pool`.
fn check_config(
    info: &PortInfo,
    cfg: &PortConfig,
    rxq: u16,
    pool: &Mempool,
) -> Result<(), DpdkError> {
    if rxq > info.max_rx_queues || cfg.tx_queues > info.max_tx_queues {
        return Err(DpdkError::msg(
            format!("port {}", info.name),
            format!(
                "{} RX / {} TX queues asked, the driver allows {} / {}",
                rxq, cfg.tx_queues, info.max_rx_queues, info.max_tx_queues
            ),
        ));
    }
    if cfg.max_frame > pool.max_frame() {
        return Err(DpdkError::msg(
            format!("port {}", info.name),
            format!(
                "{}-byte frames do not fit {}-byte mbufs",
                cfg.max_frame,
                pool.max_frame()
            ),
        ));
    }
    Ok(())
}

/// The device configuration for `cfg`: MTU, scattered RX, checksum
/// offloads, fast free (only for queues of one pool, frames unchained),
/// RSS over `rxq` queues.
fn eth_conf(info: &PortInfo, cfg: &PortConfig, rxq: u16) -> sys::rte_eth_conf {
    let mut conf = sys::rte_eth_conf::default();
    // 0 is ethdev's "default" (1500).
    conf.rxmode.mtu = cfg.mtu.map_or(0, u32::from);
    if cfg.rx_scatter {
        conf.rxmode.offloads |= info.rx_offload_capa & sys::RTE_ETH_RX_OFFLOAD_SCATTER;
    }
    if cfg.tx_checksum_offload {
        conf.txmode.offloads |= sys::RTE_ETH_TX_OFFLOAD_IPV4_CKSUM
            | sys::RTE_ETH_TX_OFFLOAD_UDP_CKSUM
            | sys::RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
    }
    if cfg.tx_multi_segs {
        conf.txmode.offloads |= info.tx_offload_capa & sys::RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
    } else if cfg.tx_one_pool && info.tx_offload_capa & sys::RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE != 0
    {
        conf.txmode.offloads |= sys::RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
    }
    if cfg.rx_checksum_offload {
        conf.rxmode.offloads |= sys::RTE_ETH_RX_OFFLOAD_IPV4_CKSUM
            | sys::RTE_ETH_RX_OFFLOAD_UDP_CKSUM
            | sys::RTE_ETH_RX_OFFLOAD_TCP_CKSUM;
    }
    if cfg.rx_timestamp {
        conf.rxmode.offloads |= info.rx_offload_capa & sys::RTE_ETH_RX_OFFLOAD_TIMESTAMP;
    }
    if rxq > 1 && info.rss_offloads != 0 {
        conf.rxmode.mq_mode = sys::RTE_ETH_MQ_RX_RSS_FLAG as _;
        conf.rx_adv_conf.rss_conf.rss_hf =
            (sys::RTE_ETH_RSS_IP | sys::RTE_ETH_RSS_UDP | sys::RTE_ETH_RSS_TCP) & info.rss_offloads;
    }
    conf
}

/// The NUMA socket argument of a queue setup for a device on `socket`:
/// the device's own, or `SOCKET_ID_ANY` when it has none (-1), which the
/// unsigned parameter carries as all ones (not socket 0, which a
/// two-socket host may not have the device on).
fn queue_socket(socket: i32) -> u32 {
    if socket < 0 {
        sys::SOCKET_ID_ANY as u32
    } else {
        socket as u32
    }
}

/// Set up RX queues 0..rxq of configured port `id`, filling from `pool`.
fn setup_rx_queues(
    id: u16,
    info: &PortInfo,
    cfg: &PortConfig,
    rxq: u16,
    pool: &Mempool,
) -> Result<(), DpdkError> {
    let socket = queue_socket(info.socket);
    let rxconf = rx_defaults(id, cfg.rx_drop_en);
    for q in 0..rxq {
        // SAFETY: the port is configured with rxq queues; rxconf is the
        // driver's defaults with rx_drop_en as asked; the port owns the pool,
        // which it frees only after closing (which empties the queues).
        let ret =
            unsafe { sys::rte_eth_rx_queue_setup(id, q, cfg.rx_ring, socket, &rxconf, pool.raw()) };
        if ret < 0 {
            return Err(DpdkError::from_ret(
                format!(
                    "rte_eth_rx_queue_setup(port {}, queue {q}, {} descriptors)",
                    info.name, cfg.rx_ring
                ),
                ret,
            ));
        }
    }
    Ok(())
}

/// Turns port `id`'s flow control off (a paused port would skew every
/// rate measured) and says what became of it.
fn flow_control_off(id: u16) -> FlowControl {
    let mut fc = sys::rte_eth_fc_conf::default();
    // SAFETY: valid port id and out pointer.
    let get = unsafe { sys::rte_eth_dev_flow_ctrl_get(id, &mut fc) };
    let (mode, mut set) = (fc.mode, None);
    if get == 0 && mode != sys::RTE_ETH_FC_NONE {
        fc.mode = sys::RTE_ETH_FC_NONE;
        // SAFETY: fc was filled by the driver and only its mode changed.
        set = Some(unsafe { sys::rte_eth_dev_flow_ctrl_set(id, &mut fc) });
    }
    FlowControl::from_calls(get, mode, set)
}

/// Port `id`'s default RX queue settings with `rx_drop_en` as asked: set,
/// a queue with no free descriptor drops what comes for it instead of
/// holding the port's packet buffer (ixgbe's default, `SRRCTL.DROP_EN`
/// clear, lets one full queue stall every other queue of the port), and
/// ixgbe counts those drops per queue (`QPRDC`, `q_errors`), not in
/// `imissed`; i40e, ice and mlx5 drop per queue already.
fn rx_defaults(id: u16, drop_en: bool) -> sys::rte_eth_rxconf {
    let mut dev = sys::rte_eth_dev_info::default();
    // SAFETY: id is valid, dev a valid out pointer.
    unsafe { sys::rte_eth_dev_info_get(id, &mut dev) };
    let mut conf = dev.default_rxconf;
    conf.rx_drop_en = u8::from(drop_en);
    conf
}

/// Set up TX queues 0..cfg.tx_queues of configured port `id`.
fn setup_tx_queues(
    id: u16,
    info: &PortInfo,
    cfg: &PortConfig,
    txconf: &sys::rte_eth_txconf,
) -> Result<(), DpdkError> {
    let socket = queue_socket(info.socket);
    for q in 0..cfg.tx_queues {
        // SAFETY: the port is configured with tx_queues queues; txconf is
        // a valid, initialised struct for the call.
        let ret = unsafe { sys::rte_eth_tx_queue_setup(id, q, cfg.tx_ring, socket, txconf) };
        if ret < 0 {
            return Err(DpdkError::from_ret(
                format!(
                    "rte_eth_tx_queue_setup(port {}, queue {q}, {} descriptors)",
                    info.name, cfg.tx_ring
                ),
                ret,
            ));
        }
    }
    Ok(())
}

/// Basic counters of port `id` (a snapshot of the driver's counters).
fn stats_of(id: u16) -> PortStats {
    let mut s = sys::rte_eth_stats::default();
    // SAFETY: valid port id and out pointer.
    unsafe { sys::rte_eth_stats_get(id, &mut s) };
    PortStats {
        ipackets: s.ipackets,
        opackets: s.opackets,
        ibytes: s.ibytes,
        obytes: s.obytes,
        imissed: s.imissed,
        ierrors: s.ierrors,
        oerrors: s.oerrors,
        rx_nombuf: s.rx_nombuf,
    }
}

fn xstats_of(id: u16) -> Vec<(String, u64)> {
    // SAFETY: a null buffer with size 0 asks for the count.
    let n = unsafe { sys::rte_eth_xstats_get_names(id, std::ptr::null_mut(), 0) };
    if n <= 0 {
        return Vec::new();
    }
    let mut names = vec![sys::rte_eth_xstat_name::default(); n as usize];
    let mut vals = vec![sys::rte_eth_xstat::default(); n as usize];
    // SAFETY: both buffers hold n entries, as passed.
    let got_n = unsafe { sys::rte_eth_xstats_get_names(id, names.as_mut_ptr(), n as u32) };
    // SAFETY: as above.
    let got_v = unsafe { sys::rte_eth_xstats_get(id, vals.as_mut_ptr(), n as u32) };
    if got_n != n || got_v != n {
        return Vec::new();
    }
    vals.iter()
        .map(|x| {
            let raw = &names[x.id as usize].name;
            // SAFETY: DPDK NUL-terminates xstat names within the 64-byte array.
            let name = unsafe { CStr::from_ptr(raw.as_ptr()) };
            (name.to_string_lossy().into_owned(), x.value)
        })
        .collect()
}

fn query_info(id: u16) -> Result<PortInfo, DpdkError> {
    let mut dev = sys::rte_eth_dev_info::default();
    // SAFETY: dev is a valid out pointer; DPDK validates the id.
    let ret = unsafe { sys::rte_eth_dev_info_get(id, &mut dev) };
    if ret != 0 {
        return Err(DpdkError::from_ret(
            format!("rte_eth_dev_info_get(port {id})"),
            ret,
        ));
    }
    let mut name = [0 as std::ffi::c_char; 64];
    // SAFETY: name holds RTE_ETH_NAME_MAX_LEN (64) bytes as DPDK requires.
    unsafe { sys::rte_eth_dev_get_name_by_port(id, name.as_mut_ptr()) };
    let mut mac = sys::rte_ether_addr::default();
    // SAFETY: valid port id and out pointer.
    unsafe { sys::rte_eth_macaddr_get(id, &mut mac) };
    // SAFETY: valid port id.
    let socket = unsafe { sys::rte_eth_dev_socket_id(id) };
    let cstr = |p: *const std::ffi::c_char| {
        if p.is_null() {
            String::new()
        } else {
            // SAFETY: DPDK strings in dev_info are static NUL-terminated.
            unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
        }
    };
    Ok(PortInfo {
        id,
        // SAFETY: name was NUL-terminated by DPDK (or is all zero).
        name: unsafe { CStr::from_ptr(name.as_ptr()) }
            .to_string_lossy()
            .into_owned(),
        driver: cstr(dev.driver_name),
        mac: mac.addr_bytes,
        max_rx_pktlen: dev.max_rx_pktlen,
        min_mtu: dev.min_mtu,
        max_mtu: dev.max_mtu,
        max_rx_queues: dev.max_rx_queues,
        max_tx_queues: dev.max_tx_queues,
        rx_ring: (dev.rx_desc_lim.nb_min, dev.rx_desc_lim.nb_max),
        tx_ring: (dev.tx_desc_lim.nb_min, dev.tx_desc_lim.nb_max),
        rx_offload_capa: dev.rx_offload_capa,
        tx_offload_capa: dev.tx_offload_capa,
        rss_offloads: dev.flow_type_rss_offloads,
        socket,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_port_id_has_one_owner() {
        let first = Claim::take(7).expect("a free id is claimed");
        let again = Claim::take(7).expect_err("a claimed id is refused");
        assert!(again.to_string().contains("already open"), "{again}");
        drop(first);
        let _ = Claim::take(7).expect("a released id is free again");
        assert!(Claim::take(sys::RTE_MAX_ETHPORTS as u16).is_err());
    }

    /// A driver's port as `rte_eth_dev_info_get` would describe it.
    fn fake(driver: &str, rx_capa: u64, tx_capa: u64) -> PortInfo {
        PortInfo {
            id: 0,
            name: "0000:03:00.0".into(),
            driver: driver.into(),
            mac: [0; 6],
            max_rx_pktlen: 9728,
            min_mtu: 68,
            max_mtu: 9702,
            max_rx_queues: 64,
            max_tx_queues: 64,
            rx_ring: (64, 4096),
            tx_ring: (64, 4096),
            rx_offload_capa: rx_capa,
            tx_offload_capa: tx_capa,
            rss_offloads: 0,
            socket: 0,
        }
    }

    fn cfg(tx_checksum_offload: bool, tx_multi_segs: bool, tx_one_pool: bool) -> PortConfig {
        PortConfig {
            rx_queues: 1,
            tx_queues: 1,
            rx_ring: 1024,
            tx_ring: 1024,
            max_frame: 1518,
            mtu: Some(1500),
            rx_scatter: false,
            tx_checksum_offload,
            tx_multi_segs,
            tx_one_pool,
            rx_drop_en: false,
            rx_checksum_offload: false,
            rx_timestamp: false,
            promiscuous: false,
        }
    }

    /// Fast free only on a queue of one pool with unchained frames, and
    /// only where the driver offers it; the exact TX bits per case.
    #[test]
    fn fast_free_is_asked_for_one_pool_only() {
        let ff = sys::RTE_ETH_TX_OFFLOAD_MBUF_FAST_FREE;
        let ms = sys::RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
        let cs = sys::RTE_ETH_TX_OFFLOAD_IPV4_CKSUM
            | sys::RTE_ETH_TX_OFFLOAD_UDP_CKSUM
            | sys::RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
        for driver in ["net_i40e", "mlx5_pci"] {
            let info = fake(driver, 0, ff | ms | cs);
            let tx = |c: &PortConfig| eth_conf(&info, c, 1).txmode.offloads;
            assert_eq!(tx(&cfg(false, false, true)), ff, "{driver}");
            assert_eq!(tx(&cfg(false, false, false)), 0, "{driver}: two pools");
            assert_eq!(tx(&cfg(false, true, true)), ms, "{driver}: chained");
            assert_eq!(tx(&cfg(true, false, true)), cs | ff, "{driver}");
            assert_eq!(tx(&cfg(true, false, false)), cs, "{driver}");
        }
        // ixgbe offers no fast free: never asked.
        let ixgbe = fake("net_ixgbe", 0, ms | cs);
        assert_eq!(
            eth_conf(&ixgbe, &cfg(false, false, true), 1)
                .txmode
                .offloads,
            0
        );
        assert_eq!(
            offload_names(0, ff | ms),
            vec!["tx-multi-segs", "tx-mbuf-fast-free"]
        );
        assert_eq!(
            offload_names(sys::RTE_ETH_RX_OFFLOAD_TIMESTAMP, cs),
            vec![
                "rx-timestamp",
                "tx-ipv4-cksum",
                "tx-udp-cksum",
                "tx-tcp-cksum"
            ]
        );
    }

    #[test]
    fn an_unknown_socket_is_any_socket_not_socket_0() {
        assert_eq!(queue_socket(-1), u32::MAX);
        assert_eq!(sys::SOCKET_ID_ANY as u32, u32::MAX);
        assert_eq!(queue_socket(0), 0);
        assert_eq!(queue_socket(1), 1);
    }

    #[test]
    fn flow_control_state_from_the_driver_calls() {
        use FlowControl::*;
        let (none, full) = (sys::RTE_ETH_FC_NONE, sys::RTE_ETH_FC_FULL);
        let rx = sys::RTE_ETH_FC_RX_PAUSE;
        assert_eq!(
            FlowControl::from_calls(-libc::ENOTSUP, 0, None),
            NotSupported
        );
        assert_eq!(FlowControl::from_calls(-libc::EIO, 0, None), ReadFailed);
        assert_eq!(FlowControl::from_calls(0, none, None), AlreadyOff);
        assert_eq!(FlowControl::from_calls(0, full, Some(0)), TurnedOff);
        assert_eq!(FlowControl::from_calls(0, rx, Some(0)), TurnedOff);
        assert_eq!(FlowControl::from_calls(0, full, Some(-libc::EIO)), StillOn);
        assert_eq!(
            FlowControl::from_calls(0, full, Some(-libc::ENOTSUP)),
            StillOn
        );
        let off: Vec<bool> = [TurnedOff, AlreadyOff, NotSupported, ReadFailed, StillOn]
            .iter()
            .map(|f| f.off())
            .collect();
        assert_eq!(off, [true, true, false, false, false]);
        assert_eq!(serde_json::to_string(&StillOn).unwrap(), "\"still_on\"");
        assert_eq!(NotSupported.name(), "not_supported");
    }
}
