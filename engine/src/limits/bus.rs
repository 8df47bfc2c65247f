//! I/O bus ceilings: how many frames per second a NIC's host bus can move,
//! receiving (the NIC DMA-writes frames into memory) or transmitting (the NIC
//! DMA-reads them), for PCI-X (64-bit, 66/100/133/266) and PCIe gen 1–5.
//!
//! Both models count, per frame, every bus transaction a simple descriptor
//! ring NIC makes: the frame data, its share of descriptor fetches, the
//! descriptor write-back, and its share of the driver's doorbell (tail
//! register) write. PCIe is counted in bytes on each direction of the link
//! (TLP data + header + framing, less the DLLP and SKIP overhead of the
//! link); PCI-X in bus clocks (address, attribute, target response, wait,
//! data and idle phases of each transaction on the shared bus). The
//! constants and their sources are in `docs/limits.md`.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{check_frame_size, LimitsError};

/// A host I/O bus a NIC sits on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bus {
    /// PCI-X, 64 bits wide.
    PciX {
        /// Nominal clock: 66, 100, 133, or 266 (PCI-X 2.0 Mode 2: 133 MHz
        /// clock, two data transfers per clock).
        mhz: u16,
        /// Maximum Memory Read Byte Count of the NIC: 512 (the power-on
        /// default), 1024, 2048 or 4096 bytes per read request.
        mmrbc: u16,
    },
    /// PCI Express.
    Pcie {
        /// Generation 1..=5 (2.5, 5, 8, 16, 32 GT/s per lane).
        gen: u8,
        /// Negotiated link width: 1, 2, 4, 8 or 16 lanes.
        lanes: u8,
        /// Max Payload Size, 128..=4096 bytes (power of two).
        mps: u16,
        /// Max Read Request Size, 128..=4096 bytes (power of two).
        mrrs: u16,
    },
}

/// Which way frames cross the bus, from the NIC's point of view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// The NIC receives from the wire and DMA-writes into host memory.
    Rx,
    /// The NIC DMA-reads from host memory and transmits on the wire.
    Tx,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::Rx => "RX",
            Direction::Tx => "TX",
        })
    }
}

// ----- NIC behaviour (both buses) -----

/// Descriptor size in bytes: the 16-byte RX/TX descriptor of the common
/// 10 GbE NICs (e.g. the legacy and advanced descriptors of Intel's 82598
/// and 82599 datasheets, which DPDK's ixgbe driver uses).
pub const DESC_BYTES: u32 = 16;
/// Descriptors the NIC fetches per descriptor read (assumption: a
/// 128-byte fetch, one cache line pair).
pub const DESC_FETCH_BATCH: u32 = 8;
/// Frames per doorbell (tail register) write by the driver: one per burst
/// of DPDK's usual 32 frames.
pub const DOORBELL_BATCH: u32 = 32;
/// TX descriptors per write-back: DPDK's default report-status threshold
/// (`tx_rs_thresh` 32); RX writes back every descriptor.
pub const TX_WRITEBACK_BATCH: u32 = 32;
/// The FCS (IEEE 802.3 clause 3) is stripped on receive and generated on
/// transmit: it never crosses the host bus.
pub const FCS_BYTES: u32 = 4;
/// MMRBC of a PCI-X device after reset: the PCI-X Command register's
/// Maximum Memory Read Byte Count field resets to 00b, 512 bytes (PCI-X
/// Addendum 1.0b).
pub const PCIX_DEFAULT_MMRBC: u16 = 512;
/// PCIe Max Payload Size assumed when none is given (assumption: what
/// server root ports of 10 GbE hosts commonly negotiate; the Device
/// Control register resets to 128).
pub const PCIE_DEFAULT_MPS: u16 = 256;
/// PCIe Max Read Request Size assumed when none is given: the Device
/// Control register's reset value, 512 bytes (PCIe Base Specification).
pub const PCIE_DEFAULT_MRRS: u16 = 512;

// ----- PCIe link and transaction layer (PCI Express Base Specification) -----

/// Per-TLP framing and data link layer bytes: 2.5 and 5 GT/s frame a TLP
/// with STP and END symbols (2) around a 2-byte sequence number and a
/// 4-byte LCRC; 8 GT/s and up use a 4-byte STP token (length and
/// sequence number) and the LCRC: 8 bytes either way.
pub const PCIE_TLP_FRAMING_BYTES: u32 = 8;
/// Memory read/write request header with a 64-bit address (4 DW, the
/// transaction layer's 4DW header format).
pub const PCIE_MEM_HEADER_BYTES: u32 = 16;
/// Completion header (3 DW).
pub const PCIE_CPL_HEADER_BYTES: u32 = 12;
/// Bytes on the link per MWr/MRd TLP beyond its data: 24.
pub const PCIE_MEM_TLP_OVERHEAD: u32 = PCIE_TLP_FRAMING_BYTES + PCIE_MEM_HEADER_BYTES;
/// Bytes on the link per CplD TLP beyond its data: 20.
pub const PCIE_CPL_TLP_OVERHEAD: u32 = PCIE_TLP_FRAMING_BYTES + PCIE_CPL_HEADER_BYTES;
/// Size of an Ack or UpdateFC DLLP on the link, framing included: a 6-byte
/// DLLP between SDP and END symbols (2.5, 5 GT/s), or after a 2-byte SDP
/// token (8 GT/s and up). Striped over the lanes like every packet: on an
/// xN link it takes 8/N symbol times.
pub const PCIE_DLLP_BYTES: f64 = 8.0;
/// SKP ordered sets for clock compensation: 4 symbols (COM and 3 SKP) on
/// every lane, scheduled every 1180 to 1538 symbol times (2.5, 5 GT/s);
/// the model takes the longest interval. At 8 GT/s and up a 16-symbol SKP
/// set every 370 to 375 blocks of 16 symbols is 0.27 %, within 0.01 % of
/// this figure, which the model uses for every generation.
pub const PCIE_SKIP_FRACTION: f64 = 4.0 / 1538.0;

// ----- PCI-X transaction timing (clocks of the bus clock) -----

/// Address phase + attribute phase of every transaction.
pub const PCIX_ADDR_ATTR_CLOCKS: u32 = 2;
/// Target response phase: decode speed B, the usual for a host bridge.
pub const PCIX_TARGET_RESPONSE_CLOCKS: u32 = 2;
/// Initial wait states a host bridge inserts as target of a memory write.
pub const PCIX_WRITE_WAIT_CLOCKS: u32 = 2;
/// Bus turnaround (1) + re-arbitration (1) between transactions.
pub const PCIX_IDLE_CLOCKS: u32 = 2;
/// The split response that ends a read request without data.
pub const PCIX_SPLIT_RESPONSE_CLOCKS: u32 = 1;
/// Longest burst the host bridge moves in one transaction before it
/// disconnects at an allowable disconnect boundary (assumption: 1 KiB,
/// eight 128-byte ADBs of posted-write / completion buffer).
pub const PCIX_BRIDGE_BURST_BYTES: u32 = 1024;
/// Time from a read request to its split completion (assumption).
pub const PCIX_READ_LATENCY_S: f64 = 1.0e-6;
/// Split read transactions the NIC keeps outstanding (assumption).
pub const PCIX_OUTSTANDING_READS: u32 = 2;

const POW2_SIZES: [u16; 6] = [128, 256, 512, 1024, 2048, 4096];

impl Bus {
    /// PCI-X/133 with the default MMRBC.
    pub const PCIX_133: Bus = Bus::PciX {
        mhz: 133,
        mmrbc: PCIX_DEFAULT_MMRBC,
    };

    /// A PCIe bus with the default MPS and MRRS.
    pub fn pcie(gen: u8, lanes: u8) -> Result<Bus, LimitsError> {
        let b = Bus::Pcie {
            gen,
            lanes,
            mps: PCIE_DEFAULT_MPS,
            mrrs: PCIE_DEFAULT_MRRS,
        };
        b.validate()?;
        Ok(b)
    }

    /// A PCI-X bus with the given clock and MMRBC.
    pub fn pcix(mhz: u16, mmrbc: u16) -> Result<Bus, LimitsError> {
        let b = Bus::PciX { mhz, mmrbc };
        b.validate()?;
        Ok(b)
    }

    /// The default set on the limits page: PCI-X 66/100/133/266 (and 133
    /// with MMRBC 4096), PCIe gen 1–5 x8, and gen3 x4 and x16.
    pub fn default_set() -> Vec<Bus> {
        let mut v = vec![
            Bus::PciX {
                mhz: 66,
                mmrbc: 512,
            },
            Bus::PciX {
                mhz: 100,
                mmrbc: 512,
            },
            Bus::PciX {
                mhz: 133,
                mmrbc: 512,
            },
            Bus::PciX {
                mhz: 133,
                mmrbc: 4096,
            },
            Bus::PciX {
                mhz: 266,
                mmrbc: 512,
            },
        ];
        for (gen, lanes) in [(1, 8), (2, 8), (3, 4), (3, 8), (3, 16), (4, 8), (5, 8)] {
            v.push(Bus::Pcie {
                gen,
                lanes,
                mps: PCIE_DEFAULT_MPS,
                mrrs: PCIE_DEFAULT_MRRS,
            });
        }
        v
    }

    /// Checks every field against the values the standards allow.
    pub fn validate(&self) -> Result<(), LimitsError> {
        match *self {
            Bus::PciX { mhz, mmrbc } => {
                if ![66, 100, 133, 266].contains(&mhz) {
                    return Err(LimitsError::invalid(
                        "bus",
                        format!("pcix-{mhz}"),
                        "PCI-X runs at 66, 100, 133 or 266 MHz",
                    ));
                }
                if ![512, 1024, 2048, 4096].contains(&mmrbc) {
                    return Err(LimitsError::invalid(
                        "mmrbc",
                        mmrbc,
                        "MMRBC is 512, 1024, 2048 or 4096 bytes",
                    ));
                }
            }
            Bus::Pcie {
                gen,
                lanes,
                mps,
                mrrs,
            } => {
                if !(1..=5).contains(&gen) {
                    return Err(LimitsError::invalid(
                        "bus",
                        format!("pcie{gen}x{lanes}"),
                        "PCIe generation must be 1..=5",
                    ));
                }
                if ![1, 2, 4, 8, 16].contains(&lanes) {
                    return Err(LimitsError::invalid(
                        "bus",
                        format!("pcie{gen}x{lanes}"),
                        "PCIe width must be x1, x2, x4, x8 or x16",
                    ));
                }
                if !POW2_SIZES.contains(&mps) {
                    return Err(LimitsError::invalid(
                        "mps",
                        mps,
                        "MPS is 128, 256, 512, 1024, 2048 or 4096 bytes",
                    ));
                }
                if !POW2_SIZES.contains(&mrrs) {
                    return Err(LimitsError::invalid(
                        "mrrs",
                        mrrs,
                        "MRRS is 128, 256, 512, 1024, 2048 or 4096 bytes",
                    ));
                }
            }
        }
        Ok(())
    }

    /// A human name, e.g. `PCI-X/133 MMRBC 512` or `PCIe gen3 x8 MPS 256`.
    pub fn name(&self) -> String {
        match *self {
            Bus::PciX { mhz, mmrbc } => format!("PCI-X/{mhz} MMRBC {mmrbc}"),
            Bus::Pcie {
                gen,
                lanes,
                mps,
                mrrs,
            } => {
                if mrrs == PCIE_DEFAULT_MRRS {
                    format!("PCIe gen{gen} x{lanes} MPS {mps}")
                } else {
                    format!("PCIe gen{gen} x{lanes} MPS {mps} MRRS {mrrs}")
                }
            }
        }
    }

    /// PCI-X: the bus clock in Hz (66 ⅔, 100, 133 ⅓ MHz; 266 is a 133 ⅓ MHz
    /// clock with two transfers per clock). `None` for PCIe.
    pub fn pcix_clock_hz(&self) -> Option<f64> {
        match *self {
            Bus::PciX { mhz, .. } => Some(match mhz {
                66 => 200e6 / 3.0,
                100 => 100e6,
                _ => 400e6 / 3.0,
            }),
            Bus::Pcie { .. } => None,
        }
    }

    /// PCI-X: bytes moved per clock in a data phase (8; 16 for PCI-X 266).
    fn pcix_bytes_per_clock(&self) -> u32 {
        match *self {
            Bus::PciX { mhz: 266, .. } => 16,
            _ => 8,
        }
    }

    /// Raw bandwidth in bit/s: for PCI-X width × clock (half duplex, shared
    /// by both directions); for PCIe per direction after line coding (8b/10b
    /// for gen 1–2, 128b/130b for gen 3–5).
    pub fn raw_bps(&self) -> f64 {
        match *self {
            Bus::PciX { .. } => {
                self.pcix_clock_hz().unwrap_or(0.0) * f64::from(self.pcix_bytes_per_clock()) * 8.0
            }
            Bus::Pcie { gen, lanes, .. } => {
                let (gts, coding) = match gen {
                    1 => (2.5e9, 8.0 / 10.0),
                    2 => (5.0e9, 8.0 / 10.0),
                    3 => (8.0e9, 128.0 / 130.0),
                    4 => (16.0e9, 128.0 / 130.0),
                    _ => (32.0e9, 128.0 / 130.0),
                };
                gts * coding * f64::from(lanes)
            }
        }
    }

    /// Bandwidth left for transactions: PCIe per direction after Ack and
    /// UpdateFC DLLPs at the spec's recommended rates and SKIP ordered sets;
    /// PCI-X the raw rate (its overheads are counted per transaction).
    pub fn usable_bps(&self) -> f64 {
        match *self {
            Bus::PciX { .. } => self.raw_bps(),
            Bus::Pcie { .. } => self.raw_bps() * (1.0 - self.pcie_link_overhead()),
        }
    }

    /// PCIe: the share of each direction of the link that Ack and UpdateFC
    /// DLLPs and SKP ordered sets take. The latency limits are in symbol
    /// times, during which each of the N lanes carries one symbol, while an
    /// 8-byte DLLP is striped over the lanes: one of each kind per limit is
    /// 2 · 8 / (N · limit) of the link (x8, gen3, MPS 256: 16 / (8 · 203) =
    /// 0.99 %). 0 for PCI-X.
    pub fn pcie_link_overhead(&self) -> f64 {
        match *self {
            Bus::PciX { .. } => 0.0,
            Bus::Pcie {
                gen, lanes, mps, ..
            } => {
                let limit = pcie_ack_fc_limit(gen, lanes, mps);
                let symbols = f64::from(lanes) * limit;
                2.0 * PCIE_DLLP_BYTES / symbols + PCIE_SKIP_FRACTION
            }
        }
    }

    /// The most frames per second this bus moves for a NIC at `frame_size`
    /// (FCS included) in `direction`, with the transfer accounting behind it.
    pub fn frame_ceiling(
        &self,
        frame_size: u32,
        direction: Direction,
    ) -> Result<BusCeiling, LimitsError> {
        self.validate()?;
        check_frame_size(frame_size)?;
        let dma = frame_size - FCS_BYTES;
        let (fps, bus_bytes, binding) = match *self {
            Bus::PciX { mmrbc, .. } => self.pcix_model(dma, mmrbc, direction),
            Bus::Pcie { mps, mrrs, .. } => self.pcie_model(dma, mps, mrrs, direction),
        };
        Ok(BusCeiling {
            bus: *self,
            name: self.name(),
            direction,
            frame_size,
            raw_bps: self.raw_bps(),
            usable_bps: self.usable_bps(),
            bus_bytes_per_frame: bus_bytes,
            efficiency: f64::from(dma) / bus_bytes,
            fps,
            bps_l2: fps * 8.0 * f64::from(frame_size),
            binding,
        })
    }

    /// PCIe: bytes per frame on each direction of the link; the busier
    /// direction sets the ceiling.
    fn pcie_model(&self, dma: u32, mps: u16, mrrs: u16, dir: Direction) -> (f64, f64, String) {
        let mps = u32::from(mps);
        let mrrs = u32::from(mrrs);
        let mem = f64::from(PCIE_MEM_TLP_OVERHEAD);
        let cpl = f64::from(PCIE_CPL_TLP_OVERHEAD);
        let desc_batch = DESC_BYTES * DESC_FETCH_BATCH;
        // Descriptor fetch: one MRd upstream, CplD(s) downstream, per batch.
        let desc_rd_up = mem / f64::from(DESC_FETCH_BATCH);
        let desc_cpl_down = (f64::from(desc_batch) + cpl * f64::from(desc_batch.div_ceil(mps)))
            / f64::from(DESC_FETCH_BATCH);
        // Doorbell: a 4-byte MWr downstream per burst.
        let doorbell_down = (mem + 4.0) / f64::from(DOORBELL_BATCH);
        let (up, down) = match dir {
            Direction::Rx => {
                let data = f64::from(dma) + mem * f64::from(dma.div_ceil(mps));
                let writeback = f64::from(DESC_BYTES) + mem;
                (data + writeback + desc_rd_up, desc_cpl_down + doorbell_down)
            }
            Direction::Tx => {
                let requests = mem * f64::from(dma.div_ceil(mrrs));
                let completions = f64::from(dma) + cpl * f64::from(dma.div_ceil(mps));
                let writeback = (f64::from(DESC_BYTES) + mem) / f64::from(TX_WRITEBACK_BATCH);
                (
                    requests + writeback + desc_rd_up,
                    completions + desc_cpl_down + doorbell_down,
                )
            }
        };
        let bytes_per_s = self.usable_bps() / 8.0;
        if up >= down {
            (
                bytes_per_s / up,
                up,
                "device-to-host direction of the link".into(),
            )
        } else {
            (
                bytes_per_s / down,
                down,
                "host-to-device direction of the link".into(),
            )
        }
    }

    /// PCI-X: clocks per frame on the shared bus; for transmit also the
    /// bound set by read latency with MMRBC-sized split reads.
    fn pcix_model(&self, dma: u32, mmrbc: u16, dir: Direction) -> (f64, f64, String) {
        let clock = self.pcix_clock_hz().unwrap_or(1.0);
        let bpc = self.pcix_bytes_per_clock();
        let mmrbc = u32::from(mmrbc);
        let desc_batch = DESC_BYTES * DESC_FETCH_BATCH;
        let desc_fetch = pcix_read_clocks(desc_batch, mmrbc, bpc) / f64::from(DESC_FETCH_BATCH);
        let doorbell = pcix_write_clocks(4, bpc) / f64::from(DOORBELL_BATCH);
        let clocks = match dir {
            Direction::Rx => {
                pcix_write_clocks(dma, bpc)
                    + pcix_write_clocks(DESC_BYTES, bpc)
                    + desc_fetch
                    + doorbell
            }
            Direction::Tx => {
                pcix_read_clocks(dma, mmrbc, bpc)
                    + pcix_write_clocks(DESC_BYTES, bpc) / f64::from(TX_WRITEBACK_BATCH)
                    + desc_fetch
                    + doorbell
            }
        };
        let occupancy_fps = clock / clocks;
        let bus_bytes = clocks * f64::from(bpc);
        if dir == Direction::Tx {
            // Each read request waits the bridge's latency, then its data
            // crosses the bus; only PCIX_OUTSTANDING_READS overlap.
            let bytes_per_s = self.raw_bps() / 8.0;
            let mut per_frame_s = 0.0;
            let mut left = dma;
            while left > 0 {
                let m = left.min(mmrbc);
                per_frame_s += PCIX_READ_LATENCY_S + f64::from(m) / bytes_per_s;
                left -= m;
            }
            let latency_fps = f64::from(PCIX_OUTSTANDING_READS) / per_frame_s;
            if latency_fps < occupancy_fps {
                return (
                    latency_fps,
                    bus_bytes,
                    format!(
                        "read latency: {} split reads of at most MMRBC {mmrbc} bytes in flight",
                        PCIX_OUTSTANDING_READS
                    ),
                );
            }
        }
        (occupancy_fps, bus_bytes, "bus occupancy".into())
    }
}

/// PCI-X clocks for a DMA write of `bytes`: one transaction per bridge
/// burst, each with address/attribute, response, wait and idle phases.
fn pcix_write_clocks(bytes: u32, bytes_per_clock: u32) -> f64 {
    let overhead = PCIX_ADDR_ATTR_CLOCKS
        + PCIX_TARGET_RESPONSE_CLOCKS
        + PCIX_WRITE_WAIT_CLOCKS
        + PCIX_IDLE_CLOCKS;
    let mut clocks = 0u32;
    let mut left = bytes;
    while left > 0 {
        let burst = left.min(PCIX_BRIDGE_BURST_BYTES);
        clocks += overhead + burst.div_ceil(bytes_per_clock);
        left -= burst;
    }
    f64::from(clocks)
}

/// PCI-X clocks for a DMA read of `bytes`: split read requests of at most
/// MMRBC bytes, each answered by split completions of at most one bridge
/// burst.
fn pcix_read_clocks(bytes: u32, mmrbc: u32, bytes_per_clock: u32) -> f64 {
    let request = PCIX_ADDR_ATTR_CLOCKS
        + PCIX_TARGET_RESPONSE_CLOCKS
        + PCIX_SPLIT_RESPONSE_CLOCKS
        + PCIX_IDLE_CLOCKS;
    let completion = PCIX_ADDR_ATTR_CLOCKS + PCIX_TARGET_RESPONSE_CLOCKS + PCIX_IDLE_CLOCKS;
    let mut clocks = 0u32;
    let mut left = bytes;
    while left > 0 {
        let req = left.min(mmrbc);
        clocks += request;
        let mut cleft = req;
        while cleft > 0 {
            let c = cleft.min(PCIX_BRIDGE_BURST_BYTES);
            clocks += completion + c.div_ceil(bytes_per_clock);
            cleft -= c;
        }
        left -= req;
    }
    f64::from(clocks)
}

/// The PCIe Base Specification's Ack transmission latency limits, in
/// symbol times, for a generation, width and MPS: its tables "Maximum Ack
/// Latency Limit and AckFactor for 2.5 GT/s", "... 5.0 GT/s" and
/// "... 8.0 GT/s (Symbol Times)" (rows x1, x2, x4, x8 and x16; columns
/// MPS 128 to 4096), the same values the pcie-bench model uses. The
/// UpdateFC transmission latency guidelines follow the same formula; the
/// model counts one 8-byte DLLP of each kind per limit. Generations 4 and 5
/// reuse the 8.0 GT/s values. The x8 row is not monotonic in the spec
/// either (its AckFactor drops from 2.5 to 1.0 above MPS 256).
fn pcie_ack_fc_limit(gen: u8, lanes: u8, mps: u16) -> f64 {
    const GEN1: [[u16; 6]; 5] = [
        [237, 416, 559, 1071, 2095, 4143],
        [128, 217, 289, 545, 1057, 2081],
        [73, 118, 154, 282, 538, 1050],
        [67, 107, 86, 150, 278, 534],
        [48, 72, 86, 150, 278, 534],
    ];
    const GEN2: [[u16; 6]; 5] = [
        [288, 467, 610, 1122, 2146, 4194],
        [179, 268, 340, 596, 1108, 2132],
        [124, 169, 205, 333, 589, 1101],
        [118, 158, 137, 201, 329, 585],
        [99, 123, 137, 201, 329, 585],
    ];
    const GEN3: [[u16; 6]; 5] = [
        [333, 512, 655, 1167, 2191, 4239],
        [224, 313, 385, 641, 1153, 2177],
        [169, 214, 250, 378, 634, 1146],
        [163, 203, 182, 246, 374, 630],
        [144, 168, 182, 246, 374, 630],
    ];
    let row = match lanes {
        1 => 0,
        2 => 1,
        4 => 2,
        8 => 3,
        _ => 4,
    };
    let col = POW2_SIZES.iter().position(|&s| s == mps).unwrap_or(1);
    let table = match gen {
        1 => &GEN1,
        2 => &GEN2,
        _ => &GEN3,
    };
    f64::from(table[row][col])
}

/// What one bus allows at one frame size in one direction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BusCeiling {
    /// The bus.
    pub bus: Bus,
    /// Its human name.
    pub name: String,
    /// RX (NIC writes to memory) or TX (NIC reads from memory).
    pub direction: Direction,
    /// Frame size in bytes, FCS included.
    pub frame_size: u32,
    /// Raw bandwidth, bit/s (PCIe: per direction, after line coding).
    pub raw_bps: f64,
    /// Bandwidth left for transactions, bit/s.
    pub usable_bps: f64,
    /// Bytes the bus spends per frame (PCI-X: clocks × bytes per clock;
    /// PCIe: bytes on the busier direction).
    pub bus_bytes_per_frame: f64,
    /// Frame bytes DMA'd ÷ bus bytes per frame.
    pub efficiency: f64,
    /// Frames per second the bus sustains.
    pub fps: f64,
    /// The same as an L2 rate (frame incl. FCS), bit/s.
    pub bps_l2: f64,
    /// What sets the ceiling (bus occupancy, read latency, link direction).
    pub binding: String,
}

impl fmt::Display for Bus {
    /// The canonical spelling `pcix-133:mmrbc=512` or
    /// `pcie3x8:mps=256:mrrs=512`, which [`Bus::from_str`] accepts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Bus::PciX { mhz, mmrbc } => write!(f, "pcix-{mhz}:mmrbc={mmrbc}"),
            Bus::Pcie {
                gen,
                lanes,
                mps,
                mrrs,
            } => write!(f, "pcie{gen}x{lanes}:mps={mps}:mrrs={mrrs}"),
        }
    }
}

const BUS_SYNTAX: &str =
    "expected pcix-133 (66, 100, 133, 266), pci-x/133:mmrbc=4096, pcie3x8, pcie-gen3-x8, pcie3x8:mps=256:mrrs=512";

impl FromStr for Bus {
    type Err = LimitsError;

    /// Accepts `pcix-133`, `pci-x/133`, `pcix133`, `pcix-133:mmrbc=4096`,
    /// `pcie3x8`, `pcie-gen3-x8`, `pcie gen3 x8`, `pcie3x8:mps=256`,
    /// `pcie3x8:mps=256,mrrs=1024`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.trim().to_ascii_lowercase();
        let mut parts = lower.split([':', ',', ';']);
        let base: String = parts
            .next()
            .unwrap_or("")
            .chars()
            .filter(|c| !matches!(c, '-' | '_' | '/' | ' ' | '.'))
            .collect();
        let bad = |reason: &str| LimitsError::invalid("bus", s, format!("{reason}; {BUS_SYNTAX}"));
        let mut bus = if let Some(rest) = base.strip_prefix("pcix") {
            let mhz: u16 = rest.parse().map_err(|_| bad("unknown PCI-X clock"))?;
            if ![66, 100, 133, 266].contains(&mhz) {
                return Err(bad("PCI-X runs at 66, 100, 133 or 266 MHz"));
            }
            Bus::PciX {
                mhz,
                mmrbc: PCIX_DEFAULT_MMRBC,
            }
        } else if let Some(rest) = base.strip_prefix("pcie") {
            let rest = rest
                .strip_prefix("gen")
                .or_else(|| rest.strip_prefix('g'))
                .unwrap_or(rest);
            let (g, l) = rest
                .split_once('x')
                .ok_or_else(|| bad("missing the width (e.g. x8)"))?;
            let gen: u8 = g.parse().map_err(|_| bad("unknown PCIe generation"))?;
            let lanes: u8 = l.parse().map_err(|_| bad("unknown PCIe width"))?;
            if !(1..=5).contains(&gen) {
                return Err(bad("PCIe generation must be 1..=5"));
            }
            if ![1, 2, 4, 8, 16].contains(&lanes) {
                return Err(bad("PCIe width must be x1, x2, x4, x8 or x16"));
            }
            Bus::Pcie {
                gen,
                lanes,
                mps: PCIE_DEFAULT_MPS,
                mrrs: PCIE_DEFAULT_MRRS,
            }
        } else {
            return Err(bad("unknown bus"));
        };
        for opt in parts {
            let opt = opt.trim();
            if opt.is_empty() {
                continue;
            }
            let (k, v) = opt
                .split_once('=')
                .ok_or_else(|| bad(&format!("option `{opt}` needs a value (key=value)")))?;
            let v: u16 = v
                .trim()
                .parse()
                .map_err(|_| bad(&format!("option `{opt}` needs a number")))?;
            match (&mut bus, k.trim()) {
                (Bus::PciX { mmrbc, .. }, "mmrbc") => *mmrbc = v,
                (Bus::Pcie { mps, .. }, "mps") => *mps = v,
                (Bus::Pcie { mrrs, .. }, "mrrs") => *mrrs = v,
                (Bus::PciX { .. }, k) => {
                    return Err(bad(&format!("unknown PCI-X option `{k}` (only mmrbc)")))
                }
                (Bus::Pcie { .. }, k) => {
                    return Err(bad(&format!("unknown PCIe option `{k}` (mps, mrrs)")))
                }
            }
        }
        bus.validate()?;
        Ok(bus)
    }
}

/// Checks and normalises a PCI address (`0000:03:00.0` or `03:00.0`).
fn normalise_pci_addr(addr: &str) -> Result<String, LimitsError> {
    let bad = || {
        LimitsError::invalid(
            "pci-addr",
            addr,
            "expected a PCI address like 0000:03:00.0 or 03:00.0",
        )
    };
    let a = addr.trim().to_ascii_lowercase();
    let parts: Vec<&str> = a.split(':').collect();
    let (domain, bus, devfn) = match parts.as_slice() {
        [d, b, df] => (*d, *b, *df),
        [b, df] => ("0000", *b, *df),
        _ => return Err(bad()),
    };
    let (dev, func) = devfn.split_once('.').ok_or_else(bad)?;
    let hex = |s: &str, max: usize| {
        !s.is_empty() && s.len() <= max && s.chars().all(|c| c.is_ascii_hexdigit())
    };
    if !(hex(domain, 4) && hex(bus, 2) && hex(dev, 2) && func.len() == 1 && hex(func, 1)) {
        return Err(bad());
    }
    let d = u32::from_str_radix(domain, 16).map_err(|_| bad())?;
    let b = u32::from_str_radix(bus, 16).map_err(|_| bad())?;
    let v = u32::from_str_radix(dev, 16).map_err(|_| bad())?;
    let f = u32::from_str_radix(func, 16).map_err(|_| bad())?;
    if v > 0x1f || f > 7 {
        return Err(bad());
    }
    Ok(format!("{d:04x}:{b:02x}:{v:02x}.{f:x}"))
}

/// Reads the negotiated PCIe link of a PCI device from sysfs:
/// `<sysfs_root>/bus/pci/devices/<pci_addr>/current_link_speed` (e.g.
/// `8.0 GT/s PCIe`) and `current_link_width` (e.g. `8`).
///
/// `sysfs_root` is normally `/sys`. Returns `Ok(None)` when the device or the
/// attributes do not exist (a virtual device, conventional PCI or PCI-X) or
/// the link is down (`Unknown`, width 0). MPS and MRRS are not in sysfs; the
/// defaults (256, 512) are assumed. Errors name the file that was malformed.
pub fn detect_from_sysfs(pci_addr: &str, sysfs_root: &Path) -> Result<Option<Bus>, LimitsError> {
    let addr = normalise_pci_addr(pci_addr)?;
    let dir = sysfs_root.join("bus/pci/devices").join(&addr);
    if !dir.is_dir() {
        return Ok(None);
    }
    let read = |name: &str| -> Result<Option<String>, LimitsError> {
        let p = dir.join(name);
        match std::fs::read_to_string(&p) {
            Ok(s) => Ok(Some(s.trim().to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(LimitsError::Sysfs {
                pci_addr: pci_addr.to_string(),
                path: p.display().to_string(),
                reason: e.to_string(),
            }),
        }
    };
    let (Some(speed), Some(width)) = (read("current_link_speed")?, read("current_link_width")?)
    else {
        return Ok(None);
    };
    let malformed = |name: &str, value: &str, why: &str| LimitsError::Sysfs {
        pci_addr: pci_addr.to_string(),
        path: dir.join(name).display().to_string(),
        reason: format!("unexpected value `{value}`: {why}"),
    };
    if speed.to_ascii_lowercase().starts_with("unknown") {
        return Ok(None);
    }
    let gts: f64 = speed
        .split_whitespace()
        .next()
        .and_then(|t| t.trim_end_matches("GT/s").parse().ok())
        .ok_or_else(|| {
            malformed(
                "current_link_speed",
                &speed,
                "expected e.g. `8.0 GT/s PCIe`",
            )
        })?;
    let gen = match gts {
        g if (g - 2.5).abs() < 0.01 => 1,
        g if (g - 5.0).abs() < 0.01 => 2,
        g if (g - 8.0).abs() < 0.01 => 3,
        g if (g - 16.0).abs() < 0.01 => 4,
        g if (g - 32.0).abs() < 0.01 => 5,
        _ => {
            return Err(malformed(
                "current_link_speed",
                &speed,
                "only 2.5, 5, 8, 16 and 32 GT/s (gen 1–5) are modelled",
            ))
        }
    };
    let lanes: u8 = width
        .trim_start_matches(['x', 'X'])
        .parse()
        .map_err(|_| malformed("current_link_width", &width, "expected a lane count"))?;
    if lanes == 0 {
        return Ok(None);
    }
    if ![1, 2, 4, 8, 16].contains(&lanes) {
        return Err(malformed(
            "current_link_width",
            &width,
            "only x1, x2, x4, x8 and x16 are modelled",
        ));
    }
    Ok(Some(Bus::Pcie {
        gen,
        lanes,
        mps: PCIE_DEFAULT_MPS,
        mrrs: PCIE_DEFAULT_MRRS,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gbit(v: f64) -> f64 {
        v / 1e9
    }

    #[test]
    fn raw_rates() {
        let g1x1 = Bus::pcie(1, 1).unwrap();
        assert!((gbit(g1x1.raw_bps()) - 2.0).abs() < 1e-9);
        let g3x8 = Bus::pcie(3, 8).unwrap();
        assert!(
            (gbit(g3x8.raw_bps()) - 63.0).abs() < 0.05,
            "{}",
            g3x8.raw_bps()
        );
        assert_eq!(format!("{:.1}", gbit(g3x8.raw_bps())), "63.0");
        let pcix = |mhz| Bus::pcix(mhz, 512).unwrap().raw_bps();
        assert_eq!(format!("{:.2}", gbit(pcix(66))), "4.27");
        assert_eq!(format!("{:.2}", gbit(pcix(100))), "6.40");
        assert_eq!(format!("{:.2}", gbit(pcix(133))), "8.53");
        assert_eq!(format!("{:.1}", gbit(pcix(266))), "17.1");
    }

    #[test]
    fn pcie_dllps_take_their_symbol_times_on_every_lane() {
        // The Ack/UpdateFC limits are symbol times of the xN link: an
        // 8-byte DLLP of each kind per limit is 2·8/(N·limit) of it.
        // gen3 x8, MPS 256 (limit 203): 16/1624 + 4/1538 = 1.2453 %, so
        // 63.015 · (1 − 0.012453) = 62.231 Gbit/s. (Counted as 2·8/limit,
        // as before, it was 57.885 Gbit/s: 7 % low.)
        let b = Bus::pcie(3, 8).unwrap();
        assert_eq!(b.pcie_link_overhead(), 16.0 / 1624.0 + 4.0 / 1538.0);
        assert_eq!(b.raw_bps(), 8e9 * (128.0 / 130.0) * 8.0);
        let overhead = 16.0 / 1624.0 + 4.0 / 1538.0;
        assert_eq!(b.usable_bps(), b.raw_bps() * (1.0 - overhead));
        assert_eq!(format!("{:.3}", gbit(b.usable_bps())), "62.231");
        // gen1 x8, MPS 256 (limit 107): 1.869 % of DLLPs, 2.129 % in all,
        // not the 15.2 % of 2·8/107 + 4/1538.
        let g1 = Bus::pcie(1, 8).unwrap();
        assert_eq!(format!("{:.4}", g1.pcie_link_overhead() * 100.0), "2.1292");
        assert_eq!(format!("{:.4}", gbit(g1.usable_bps())), "15.6593");
        // x1 is unchanged: one lane, one symbol per symbol time.
        let x1 = Bus::pcie(1, 1).unwrap();
        assert_eq!(x1.pcie_link_overhead(), 16.0 / 416.0 + 4.0 / 1538.0);
        assert_eq!(Bus::PCIX_133.pcie_link_overhead(), 0.0);
    }

    #[test]
    fn pcie_gen3_x8_receive_ceiling_at_9130_bytes() {
        // 9126 + 36·24 + (16 + 24) + 24/8 = 10,033 bytes upstream per frame.
        let c = Bus::pcie(3, 8)
            .unwrap()
            .frame_ceiling(9130, Direction::Rx)
            .unwrap();
        assert_eq!(c.bus_bytes_per_frame, 10_033.0);
        assert_eq!(c.fps, c.usable_bps / 8.0 / 10_033.0);
        assert_eq!(format!("{:.1}", c.fps), "775324.6");
        assert_eq!(format!("{:.3}", c.bps_l2 / 1e9), "56.630");
    }

    #[test]
    fn pcix_133_carries_10gbe_at_the_measured_level() {
        let b = Bus::PCIX_133;
        let rx = b.frame_ceiling(9130, Direction::Rx).unwrap();
        assert!(
            (6.2e9..=8.0e9).contains(&rx.bps_l2),
            "RX ceiling {}",
            rx.bps_l2
        );
        // Below 10 GbE line rate: the bus, not the link, is the limit.
        assert!(rx.fps < 136_612.0);
        let tx = b.frame_ceiling(9130, Direction::Tx).unwrap();
        assert!((5.0e9..=8.0e9).contains(&tx.bps_l2), "TX {}", tx.bps_l2);
        assert!(tx.binding.contains("latency"), "{}", tx.binding);
        // MMRBC 4096 lifts the transmit ceiling to the bus-occupancy bound.
        let tx4k = Bus::pcix(133, 4096)
            .unwrap()
            .frame_ceiling(9130, Direction::Tx)
            .unwrap();
        assert!(
            tx4k.bps_l2 > tx.bps_l2 * 1.3,
            "{} vs {}",
            tx4k.bps_l2,
            tx.bps_l2
        );
        assert!((6.9e9..=8.0e9).contains(&tx4k.bps_l2), "{}", tx4k.bps_l2);
        assert_eq!(tx4k.binding, "bus occupancy");
        // The receive ceiling barely depends on MMRBC (only descriptor reads).
        let rx4k = Bus::pcix(133, 4096)
            .unwrap()
            .frame_ceiling(9130, Direction::Rx)
            .unwrap();
        assert!((rx4k.fps - rx.fps).abs() / rx.fps < 0.01);
    }

    #[test]
    fn pcie_gen3_x8_is_not_the_bottleneck_for_10gbe() {
        let b = Bus::pcie(3, 8).unwrap();
        for dir in [Direction::Rx, Direction::Tx] {
            for size in [64, 1518, 9130] {
                let c = b.frame_ceiling(size, dir).unwrap();
                let line = crate::limits::LinkKind::Lan10G.frames_per_sec(size);
                assert!(c.fps > 2.0 * line, "{dir} {size}: {} vs {line}", c.fps);
            }
        }
        // A gen1 x1 slot is: about 2 Gbit/s raw.
        let slow = Bus::pcie(1, 1)
            .unwrap()
            .frame_ceiling(9130, Direction::Rx)
            .unwrap();
        assert!(slow.bps_l2 < 2e9);
    }

    #[test]
    fn smaller_mps_costs_more_headers() {
        let big = "pcie1x4:mps=512".parse::<Bus>().unwrap();
        let small = "pcie1x4:mps=128".parse::<Bus>().unwrap();
        let fb = big.frame_ceiling(9130, Direction::Rx).unwrap();
        let fs = small.frame_ceiling(9130, Direction::Rx).unwrap();
        assert!(fs.fps < fb.fps);
        assert!(fs.efficiency < fb.efficiency);
    }

    #[test]
    fn parse_good() {
        let cases = [
            ("pcix-133", Bus::PCIX_133),
            ("pci-x/133", Bus::PCIX_133),
            ("PCIX133", Bus::PCIX_133),
            (
                "pcix-133:mmrbc=4096",
                Bus::PciX {
                    mhz: 133,
                    mmrbc: 4096,
                },
            ),
            (
                "pci-x/266",
                Bus::PciX {
                    mhz: 266,
                    mmrbc: 512,
                },
            ),
            ("pcie3x8", Bus::pcie(3, 8).unwrap()),
            ("pcie-gen3-x8", Bus::pcie(3, 8).unwrap()),
            ("PCIe gen3 x8", Bus::pcie(3, 8).unwrap()),
            (
                "pcie3x8:mps=256",
                Bus::Pcie {
                    gen: 3,
                    lanes: 8,
                    mps: 256,
                    mrrs: 512,
                },
            ),
            (
                "pcie4x16:mps=512,mrrs=4096",
                Bus::Pcie {
                    gen: 4,
                    lanes: 16,
                    mps: 512,
                    mrrs: 4096,
                },
            ),
        ];
        for (s, want) in cases {
            assert_eq!(s.parse::<Bus>().unwrap(), want, "{s}");
            assert_eq!(want.to_string().parse::<Bus>().unwrap(), want);
        }
    }

    #[test]
    fn parse_bad() {
        for s in [
            "",
            "isa",
            "pcix-150",
            "pcix-133:mmrbc=300",
            "pcix-133:mps=256",
            "pcie6x8",
            "pcie3x12",
            "pcie3",
            "pcie3x8:mps=100",
            "pcie3x8:foo=1",
            "pcie3x8:mps",
        ] {
            let e = s.parse::<Bus>().unwrap_err();
            let msg = e.to_string();
            assert!(
                msg.contains("bus") || msg.contains("mps") || msg.contains("mmrbc"),
                "{s}: {msg}"
            );
        }
    }

    fn fake_device(root: &Path, addr: &str, speed: Option<&str>, width: Option<&str>) {
        let dir = root.join("bus/pci/devices").join(addr);
        std::fs::create_dir_all(&dir).unwrap();
        if let Some(s) = speed {
            std::fs::write(dir.join("current_link_speed"), format!("{s}\n")).unwrap();
        }
        if let Some(w) = width {
            std::fs::write(dir.join("current_link_width"), format!("{w}\n")).unwrap();
        }
    }

    #[test]
    fn sysfs_detection() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        fake_device(root, "0000:03:00.0", Some("8.0 GT/s PCIe"), Some("8"));
        fake_device(root, "0000:04:00.0", Some("2.5 GT/s"), Some("4"));
        fake_device(root, "0000:05:00.0", None, None);
        fake_device(root, "0000:06:00.0", Some("Unknown"), Some("0"));
        fake_device(root, "0000:07:00.0", Some("fast"), Some("8"));
        fake_device(root, "0000:08:00.0", Some("16.0 GT/s PCIe"), Some("x16"));
        assert_eq!(
            detect_from_sysfs("0000:03:00.0", root).unwrap(),
            Some(Bus::pcie(3, 8).unwrap())
        );
        assert_eq!(
            detect_from_sysfs("03:00.0", root).unwrap(),
            Some(Bus::pcie(3, 8).unwrap())
        );
        assert_eq!(
            detect_from_sysfs("0000:04:00.0", root).unwrap(),
            Some(Bus::pcie(1, 4).unwrap())
        );
        assert_eq!(
            detect_from_sysfs("0000:08:00.0", root).unwrap(),
            Some(Bus::pcie(4, 16).unwrap())
        );
        assert_eq!(detect_from_sysfs("0000:05:00.0", root).unwrap(), None);
        assert_eq!(detect_from_sysfs("0000:06:00.0", root).unwrap(), None);
        assert_eq!(detect_from_sysfs("0000:09:00.0", root).unwrap(), None);
        let e = detect_from_sysfs("0000:07:00.0", root).unwrap_err();
        assert!(e.to_string().contains("current_link_speed"), "{e}");
        let e = detect_from_sysfs("not-a-pci-address", root).unwrap_err();
        assert!(e.to_string().contains("pci-addr"), "{e}");
    }
}
