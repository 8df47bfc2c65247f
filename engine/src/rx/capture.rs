//! An RX task's capture (`rx[].capture`): the first or the last N frames
//! it receives, each cut at a snap length, kept in memory reserved before
//! the run and written as a pcap file after it.
//!
//! The lcore copies each kept frame into a fixed slot: one `memcpy` and
//! three stores a frame, no allocation and no system call. A frame kept
//! past its first segment (a chained jumbo frame) is gathered segment by
//! segment. The TSC of the poll that brought the frame becomes its
//! timestamp, mapped onto the wall clock with the pair read when the
//! capture was made.

use std::io::Write;
use std::time::Duration;

use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};

use super::Burst;

/// Which frames a full capture keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// The first frames received; later ones are counted, not kept.
    First,
    /// The latest frames: each new frame takes the oldest one's slot.
    Last,
}

/// One kept frame's record.
#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    /// The TSC of the poll that brought it.
    tsc: u64,
    /// Its length as received (FCS not included).
    len: u32,
    /// The bytes kept of it.
    kept: u32,
}

/// A capture's memory and counts.
pub struct Capture {
    keep: Keep,
    /// Bytes kept of a frame at most.
    snap: usize,
    /// `slots.len() × snap` bytes.
    data: Vec<u8>,
    slots: Vec<Slot>,
    /// Frames received while capturing.
    seen: u64,
    /// A chained frame gathered whole.
    whole: Vec<u8>,
    /// The wall clock (ns since the epoch) and the TSC read together when
    /// the capture was made, and the TSC's frequency.
    anchor_ns: u64,
    anchor_tsc: u64,
    tsc_hz: u64,
}

impl Capture {
    /// A capture of `frames` frames of at most `snap` bytes each; its
    /// memory is taken now. `anchor` is a wall-clock time in ns since the
    /// epoch and the TSC read with it, `tsc_hz` the TSC's frequency.
    pub fn new(frames: usize, snap: usize, keep: Keep, anchor: (u64, u64), tsc_hz: u64) -> Self {
        Capture {
            keep,
            snap,
            data: vec![0; frames * snap],
            slots: vec![Slot::default(); frames],
            seen: 0,
            whole: Vec::with_capacity(snap),
            anchor_ns: anchor.0,
            anchor_tsc: anchor.1,
            tsc_hz: tsc_hz.max(1),
        }
    }

    /// Frames received while capturing.
    pub fn seen(&self) -> u64 {
        self.seen
    }

    /// Frames kept.
    pub fn kept(&self) -> usize {
        (self.seen.min(self.slots.len() as u64)) as usize
    }

    /// Bytes kept of a frame at most.
    pub fn snap(&self) -> usize {
        self.snap
    }

    /// Keeps what it should of `batch`, whose frames arrived at TSC `now`.
    #[inline]
    pub(super) fn take(&mut self, batch: &impl Burst, now: u64) {
        let n = self.slots.len() as u64;
        for i in 0..batch.len() {
            let at = match self.keep {
                Keep::First if self.seen >= n => {
                    self.seen += (batch.len() - i) as u64;
                    return;
                }
                Keep::First => self.seen,
                Keep::Last => self.seen % n,
            } as usize;
            self.seen += 1;
            let (seg, len) = batch.frame(i);
            let kept = len.min(self.snap);
            let bytes = if seg.len() >= kept {
                &seg[..kept]
            } else {
                self.whole.clear();
                batch.copy_frame(i, &mut self.whole);
                &self.whole[..kept.min(self.whole.len())]
            };
            let kept = bytes.len();
            self.data[at * self.snap..at * self.snap + kept].copy_from_slice(bytes);
            self.slots[at] = Slot {
                tsc: now,
                len: len as u32,
                kept: kept as u32,
            };
        }
    }

    /// The kept frames in the order they arrived: each one's wall-clock
    /// time (ns since the epoch), length received and kept bytes.
    pub fn frames(&self) -> impl Iterator<Item = (u64, u32, &[u8])> + '_ {
        let n = self.slots.len();
        let kept = self.kept();
        // A ring that went round starts at the oldest slot.
        let first = match self.keep {
            Keep::Last if self.seen > n as u64 => (self.seen % n as u64) as usize,
            _ => 0,
        };
        (0..kept).map(move |k| {
            let at = (first + k) % n;
            let s = self.slots[at];
            let off = at * self.snap;
            (
                self.wall_ns(s.tsc),
                s.len,
                &self.data[off..off + s.kept as usize],
            )
        })
    }

    /// TSC `tsc` on the wall clock, in ns since the epoch.
    fn wall_ns(&self, tsc: u64) -> u64 {
        let d = i128::from(tsc) - i128::from(self.anchor_tsc);
        let ns = d * 1_000_000_000 / i128::from(self.tsc_hz);
        (i128::from(self.anchor_ns) + ns).max(0) as u64
    }

    /// The kept frames as a pcap file (little-endian, Ethernet, ns
    /// timestamps) written to
    /// `out`.
    pub fn write_pcap(&self, out: impl Write) -> Result<(), pcap_file::PcapError> {
        let header = PcapHeader {
            snaplen: self.snap as u32,
            datalink: DataLink::ETHERNET,
            ts_resolution: TsResolution::NanoSecond,
            endianness: Endianness::Little,
            ..PcapHeader::default()
        };
        let mut w = PcapWriter::with_header(out, header)?;
        for (ns, len, data) in self.frames() {
            w.write_packet(&PcapPacket::new(Duration::from_nanos(ns), len, data))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Frames made in a test, optionally cut into two segments.
    struct Frames(Vec<Vec<u8>>, usize);

    impl Burst for Frames {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn frame(&self, i: usize) -> (&[u8], usize) {
            let f = &self.0[i];
            (&f[..f.len().min(self.1)], f.len())
        }
        fn ol_flags(&self, _: usize) -> u64 {
            0
        }
        fn prefetch(&self, _: usize) {}
        fn copy_frame(&self, i: usize, out: &mut Vec<u8>) {
            out.extend_from_slice(&self.0[i]);
        }
    }

    /// `n` frames of `len` bytes, frame `k` filled with byte `first + k`.
    fn frames(first: u8, n: usize, len: usize, seg: usize) -> Frames {
        Frames((0..n).map(|k| vec![first + k as u8; len]).collect(), seg)
    }

    fn kept(c: &Capture) -> Vec<(u64, u32, Vec<u8>)> {
        c.frames().map(|(t, l, d)| (t, l, d.to_vec())).collect()
    }

    #[test]
    fn first_keeps_the_first_frames_and_counts_the_rest() {
        let mut c = Capture::new(3, 8, Keep::First, (1_000, 100), 1_000_000_000);
        c.take(&frames(1, 2, 5, 64), 100);
        c.take(&frames(3, 4, 12, 64), 150);
        assert_eq!((c.seen(), c.kept()), (6, 3));
        assert_eq!(
            kept(&c),
            vec![
                (1_000, 5, vec![1; 5]),
                (1_000, 5, vec![2; 5]),
                (1_050, 12, vec![3; 8]),
            ]
        );
    }

    #[test]
    fn last_keeps_the_latest_frames_oldest_first() {
        let mut c = Capture::new(3, 4, Keep::Last, (0, 0), 1_000_000_000);
        c.take(&frames(1, 2, 4, 64), 10);
        c.take(&frames(3, 3, 4, 64), 20);
        assert_eq!((c.seen(), c.kept()), (5, 3));
        let got: Vec<u8> = c.frames().map(|(_, _, d)| d[0]).collect();
        assert_eq!(got, vec![3, 4, 5]);
        let times: Vec<u64> = c.frames().map(|f| f.0).collect();
        assert_eq!(times, vec![20, 20, 20]);
    }

    #[test]
    fn a_ring_not_yet_round_starts_at_its_first_slot() {
        let mut c = Capture::new(4, 4, Keep::Last, (0, 0), 1_000_000_000);
        c.take(&frames(7, 3, 4, 64), 0);
        let got: Vec<u8> = c.frames().map(|(_, _, d)| d[0]).collect();
        assert_eq!(got, vec![7, 8, 9]);
    }

    #[test]
    fn a_chained_frame_is_gathered_past_its_first_segment() {
        let mut c = Capture::new(1, 100, Keep::First, (0, 0), 1_000_000_000);
        let mut f = frames(0, 1, 60, 16);
        f.0[0] = (0..60).collect();
        c.take(&f, 0);
        assert_eq!(kept(&c)[0].2, (0..60).collect::<Vec<u8>>());
    }

    #[test]
    fn the_pcap_holds_every_kept_frame_with_its_time_and_length() {
        // A 2 GHz TSC: 2 cycles a ns.
        let mut c = Capture::new(
            2,
            6,
            Keep::First,
            (1_700_000_000_123_456_789, 1_000),
            2_000_000_000,
        );
        c.take(&frames(9, 1, 10, 64), 3_000);
        c.take(&frames(10, 1, 4, 64), 5_000);
        let mut file = Vec::new();
        c.write_pcap(&mut file).unwrap();
        // Read by hand, to the file format's letter (pcap-file's own
        // reader refuses a record cut at the snap length).
        let u32_at = |o: usize| u32::from_le_bytes(file[o..o + 4].try_into().unwrap());
        assert_eq!(u32_at(0), 0xa1b2_3c4d, "the magic of ns timestamps");
        assert_eq!((u32_at(16), u32_at(20)), (6, 1), "snap length, Ethernet");
        let record = |o: usize| (u32_at(o), u32_at(o + 4), u32_at(o + 8), u32_at(o + 12));
        assert_eq!(record(24), (1_700_000_000, 123_457_789, 6, 10));
        assert_eq!(file[40..46], [9u8; 6]);
        assert_eq!(record(46), (1_700_000_000, 123_458_789, 4, 4));
        assert_eq!(file[62..66], [10u8; 4]);
        assert_eq!(file.len(), 66);
    }

    #[test]
    fn a_frame_before_the_anchor_is_not_before_the_epoch() {
        let c = Capture::new(1, 4, Keep::First, (5, 1_000), 1_000_000_000);
        assert_eq!(c.wall_ns(0), 0);
        assert_eq!(c.wall_ns(999), 4);
    }
}
