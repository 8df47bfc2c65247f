//! The payload step of a TX frame: its fill after the stamp is either
//! copied into the frame's mbuf or, on a port set up for chained mbufs,
//! attached as a second segment pointing into the run's fill pattern in
//! DPDK memory. The frame's bytes on the wire are the same either way; the
//! checksums take the fill's sum from the frame's plan
//! ([`FramePlan::fill_sum`], from the pattern's prefix table), so nothing
//! reads the fill per frame.
//!
//! Chosen per port (`ports[].payload`: `auto` attaches where the driver
//! reports multi-segment TX and some frame's fill reaches the threshold,
//! `attach` and `copy` force one), then per
//! frame: frames with a fill shorter than the port's threshold are copied,
//! and so is any frame when the segment pool runs dry (the frame is the
//! same, only slower). An attached fill takes the next of the task's held
//! segments ([`HeldSegments`], more than the TX ring keeps in flight) when
//! no frame carries it, else a fresh one from the port's segment pool.

use std::sync::Arc;

use crate::config::{Payload as Mode, Plan};
use crate::dpdk::{
    DpdkError, Eal, ExtPattern, HeldSegment, HeldSegments, Mempool, PortInfo, Segment, Segments,
    TxBatch, TxQueue,
};
use crate::wire::builder::{FrameBuilder, FramePlan};
use crate::wire::fill::FillPattern;
use crate::wire::stamp::COMPACT_LEN;
use crate::Result;

/// In `auto`, fills shorter than this are copied: below it a copy costs
/// less than a segment's attach and free.
const AUTO_MIN_FILL: usize = 1024;

/// How the port's frames get their fill, decided when it is configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PortPayload {
    /// Fills of at least this many bytes are attached; `None`: all copied.
    pub attach_from: Option<usize>,
    /// Segments each TX task holds ([`HeldSegments`]): more than the
    /// frames its TX ring and two batches keep in flight, so that the next
    /// one is free again by its turn; 0 when the port copies.
    pub held: usize,
}

/// The fill threshold of `payload: auto` on a device that does or does not
/// offer multi-segment TX (`multi_segs`), whose frames' largest fill is
/// `largest_fill` bytes: [`AUTO_MIN_FILL`] when some frame's fill reaches
/// it, else `None` (every frame copied, and multi-segment TX, which takes
/// ixgbe, i40e and ice off their vector TX paths, not requested).
pub(crate) fn auto_attach_from(multi_segs: bool, largest_fill: usize) -> Option<usize> {
    (multi_segs && largest_fill >= AUTO_MIN_FILL).then_some(AUTO_MIN_FILL)
}

/// The largest fill (the payload after the stamp) of any frame the TX
/// tasks of port `i` send: the largest L4 payload less the shortest
/// stamp, an upper bound whatever stamp each frame carries.
pub(crate) fn largest_fill(plan: &Plan, i: usize) -> usize {
    let streams = (plan.tx.iter().filter(|t| t.port == i)).flat_map(|t| &t.streams);
    streams
        .map(|&s| FrameBuilder::max_fill(&plan.streams[s]).saturating_sub(COMPACT_LEN))
        .max()
        .unwrap_or(0)
}

/// What `ports[i].payload` means on a device that does or does not report
/// multi-segment TX, with TX rings of `tx_ring` descriptors.
pub(crate) fn resolve(plan: &Plan, i: usize, info: &PortInfo, tx_ring: u16) -> PortPayload {
    let attach_from = match plan.ports[i].payload {
        Mode::Copy => None,
        Mode::Attach => Some(1),
        Mode::Auto => auto_attach_from(info.tx_multi_segs(), largest_fill(plan, i)),
    };
    let held = attach_from.map_or(0, |_| {
        (usize::from(tx_ring) + 2 * crate::dpdk::BATCH_MAX).next_power_of_two()
    });
    PortPayload { attach_from, held }
}

/// The segment pool of port `i`, whose frames attach as `port` says: as
/// many data-less mbufs as its frame pool has (`mbufs`), and the held
/// segments of its TX tasks, on `socket`.
pub(crate) fn segment_pool<'e>(
    eal: &'e Eal,
    plan: &Plan,
    i: usize,
    port: PortPayload,
    mbufs: u32,
    socket: i32,
) -> std::result::Result<Mempool<'e>, DpdkError> {
    let tx_tasks = plan.tx.iter().filter(|t| t.port == i).count();
    let held = (tx_tasks * port.held) as u32;
    Mempool::create_segments(eal, &format!("ls_segs{i}"), mbufs + held, socket)
}

/// A frame's fill as a second segment.
pub enum Fill<'q> {
    /// A segment held by the task, already attached at the frame's place.
    Held(HeldSegment<'q>),
    /// A fresh segment, to attach.
    Fresh(Segment<'q>),
}

/// One TX task's payload step: per stream, copy or attach.
pub struct Payload<'q> {
    /// Segments to attach; `None`: every frame is copied.
    segs: Option<Segments<'q>>,
    /// The distinct fill patterns of the task's streams.
    patterns: Vec<ExtPattern<'q>>,
    /// Per stream: the index of its pattern in `patterns`.
    stream_pattern: Vec<usize>,
    /// Per pattern: the segments held for its fills, if the pool had them.
    held: Vec<Option<HeldSegments<'q>>>,
    /// Fills of at least this many bytes are attached.
    attach_from: usize,
    /// Frames prepared with their fill attached.
    attached: u64,
}

impl<'q> Payload<'q> {
    /// Every frame copied.
    pub fn copy() -> Self {
        Payload {
            segs: None,
            patterns: Vec::new(),
            stream_pattern: Vec::new(),
            held: Vec::new(),
            attach_from: usize::MAX,
            attached: 0,
        }
    }

    /// The payload step of a task sending `builders`' frames on `queue`,
    /// of a port whose frames attach as `port` says.
    pub(crate) fn new(
        queue: &TxQueue<'q>,
        builders: &[FrameBuilder],
        port: PortPayload,
    ) -> std::result::Result<Self, DpdkError> {
        let (Some(attach_from), Some(mut segs)) = (port.attach_from, Segments::new(queue)) else {
            return Ok(Self::copy());
        };
        let mut seen: Vec<&Arc<FillPattern>> = Vec::new();
        let mut patterns = Vec::new();
        let mut stream_pattern = Vec::new();
        for b in builders {
            let fill = b.fill_pattern();
            let k = match seen.iter().position(|p| Arc::ptr_eq(p, fill)) {
                Some(k) => k,
                None => {
                    patterns.push(ExtPattern::new(queue, fill.bytes())?);
                    seen.push(fill);
                    seen.len() - 1
                }
            };
            stream_pattern.push(k);
        }
        let held = (patterns.iter())
            .map(|p| HeldSegments::new(&mut segs, p, port.held))
            .collect();
        Ok(Payload {
            segs: Some(segs),
            patterns,
            stream_pattern,
            held,
            attach_from,
            attached: 0,
        })
    }

    /// Frames prepared with their fill attached.
    pub fn attached(&self) -> u64 {
        self.attached
    }

    /// A segment for the fill of frame `p` of stream `s`, when its frames
    /// attach: a held one when the task holds that fill's place and no
    /// frame carries it, or else a fresh one when one is free; `None`:
    /// the fill is copied.
    #[inline(always)]
    pub fn segment(&mut self, s: usize, p: &FramePlan) -> Option<Fill<'q>> {
        let fill = p.len - p.head_len;
        if fill == 0 || fill < self.attach_from {
            return None;
        }
        if let Some(h) = self.held[self.stream_pattern[s]].as_mut() {
            if let Some(seg) = h.claim(p.fill_offset, fill) {
                return Some(Fill::Held(seg));
            }
        }
        self.segs.as_mut()?.take().map(Fill::Fresh)
    }

    /// Chains `fill` to slot `i` of `batch` (whose first segment holds
    /// frame `p`'s `p.head_len` bytes of headers and stamp) as the fill of
    /// stream `s`'s frame: the pattern from `p.fill_offset`.
    #[inline(always)]
    pub fn attach(
        &mut self,
        s: usize,
        batch: &mut TxBatch<'_>,
        i: usize,
        fill: Fill<'_>,
        p: &FramePlan,
    ) {
        match fill {
            Fill::Held(seg) => batch.chain(i, seg),
            Fill::Fresh(seg) => {
                let pattern = &self.patterns[self.stream_pattern[s]];
                batch.attach(i, seg, pattern, p.fill_offset, p.len - p.head_len);
            }
        }
        self.attached += 1;
    }
}

/// The payload step of task `ti` on `queue` (its port set up as `port`), as a
/// profile error naming the task when the pattern cannot be placed.
pub(crate) fn for_task<'q>(
    plan: &Plan,
    ti: usize,
    queue: &TxQueue<'q>,
    builders: &[FrameBuilder],
    port: PortPayload,
) -> Result<Payload<'q>> {
    Payload::new(queue, builders, port)
        .map_err(|e| crate::Error::Config(plan.error(&format!("tx[{ti}]"), e.to_string())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(sizes: &str) -> Plan {
        let yaml = format!(
            "eal: {{ cores: [0, 1, 2], vdevs: [net_ring0, net_ring1] }}\n\
             ports: [ {{ name: p0, device: net_ring0 }}, {{ name: p1, device: net_ring1 }} ]\n\
             streams: [ {{ name: a, frame_size: {sizes} }}, {{ name: b, frame_size: 9130 }} ]\n\
             tx: [ {{ lcore: 1, port: p0, rate: 1G, streams: [a] }},\n\
                   {{ lcore: 2, port: p1, rate: 1G, streams: [b] }} ]\n"
        );
        crate::config::load_str(&yaml, "t.yaml").unwrap()
    }

    /// The largest fill of a port's frames: the L4 payload less the
    /// IPv4/UDP headers (42 + FCS 4) and the shortest stamp (18).
    #[test]
    fn the_largest_fill_is_per_port() {
        let p = plan("[64, 1088]");
        assert_eq!(largest_fill(&p, 0), 1088 - 4 - 42 - 18);
        assert_eq!(largest_fill(&p, 1), 9130 - 4 - 42 - 18);
        let p = plan("64");
        assert_eq!(largest_fill(&p, 0), 0);
    }

    /// Multi-segment TX only where the driver offers it and a fill
    /// reaches the threshold.
    #[test]
    fn auto_attaches_only_fills_that_reach_the_threshold() {
        assert_eq!(auto_attach_from(true, AUTO_MIN_FILL), Some(AUTO_MIN_FILL));
        assert_eq!(auto_attach_from(true, 9066), Some(1024));
        assert_eq!(auto_attach_from(true, AUTO_MIN_FILL - 1), None);
        assert_eq!(auto_attach_from(true, 0), None);
        assert_eq!(auto_attach_from(false, 9066), None);
    }
}
