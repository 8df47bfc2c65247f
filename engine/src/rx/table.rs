//! The streams of one RX lcore, by id: small ids looked up directly,
//! large ones through a multiply hash, and the overflow past the most an
//! lcore tells apart.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use super::seq::{CountFrom, SeqTracker};
use super::stream::{StreamAcc, StreamPool, MAX_STREAMS};

/// Stream ids below this are looked up directly; larger ones in a hash map.
pub(super) const DIRECT_IDS: usize = 1 << 16;
/// `direct` entry of a stream id seen beyond [`MAX_STREAMS`].
pub(super) const OVERFLOWED: u16 = u16::MAX;

/// Why a frame of ours has no stream accumulator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Miss {
    /// Its stream is not in the task's `streams:` list: foreign.
    Untracked,
    /// The table holds [`MAX_STREAMS`] streams already: overflow.
    Overflow,
}

/// Hashes a stream id of [`DIRECT_IDS`] or more: one multiply, its high
/// half folded into the low bits the map indexes by.
#[derive(Default)]
pub(super) struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b) ^ (self.0 as u32).rotate_left(8));
        }
    }

    fn write_u32(&mut self, n: u32) {
        let h = u64::from(n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        self.0 = h ^ (h >> 32);
    }
}

/// Entries of the ids of [`DIRECT_IDS`] or more, as in `Table::direct`.
pub(super) type LargeIds = HashMap<u32, u16, BuildHasherDefault<IdHasher>>;

/// The streams of one RX lcore, by id.
pub(super) struct Table {
    /// For ids below [`DIRECT_IDS`]: 0 (not seen), index + 1, or
    /// [`OVERFLOWED`].
    pub(super) direct: Vec<u16>,
    /// The same for larger ids (room for every stream and as many
    /// overflowed ones made at start: no allocation while running).
    pub(super) large: LargeIds,
    /// The streams' accumulators: `accs[..used]`; the rest is the pool
    /// made ready before the loop.
    pub(super) accs: Vec<StreamAcc>,
    pub(super) used: usize,
    /// The stream of the latest frame and its index: consecutive frames of
    /// one stream look it up once.
    pub(super) last: Option<(u32, usize)>,
    /// Only the listed streams are checked (a `streams:` list).
    pub(super) listed: bool,
    /// Listed ids beyond [`MAX_STREAMS`], sorted: overflow, not foreign.
    pub(super) listed_beyond: Vec<u32>,
    /// Ids of [`DIRECT_IDS`] or more counted in `overflow_streams` (once
    /// [`MAX_STREAMS`] are, further ones are not told apart).
    pub(super) large_overflowed: usize,
    /// Distinct streams seen beyond [`MAX_STREAMS`].
    pub(super) overflow_streams: u64,
    pub(super) tsc_hz: u64,
    /// Where each new stream's `lost` counts from.
    pub(super) count_from: CountFrom,
}

impl Table {
    /// A table of the `expected` streams, new streams taken from `pool`
    /// first; with a list (`Some`), only they are checked and other ids
    /// are foreign, even when it is empty (a monitoring port); `None`
    /// learns the streams from their stamps.
    pub(super) fn new(
        expected: Option<&[u32]>,
        tsc_hz: u64,
        count_from: CountFrom,
        pool: StreamPool,
    ) -> Self {
        let listed = expected.is_some();
        let expected = expected.unwrap_or_default();
        let mut accs = pool.accs;
        accs.reserve(
            expected
                .len()
                .clamp(16, MAX_STREAMS)
                .saturating_sub(accs.len()),
        );
        let mut t = Table {
            direct: vec![0; DIRECT_IDS],
            large: LargeIds::with_capacity_and_hasher(2 * MAX_STREAMS, Default::default()),
            accs,
            used: 0,
            last: None,
            listed: false,
            listed_beyond: Vec::new(),
            large_overflowed: 0,
            overflow_streams: 0,
            tsc_hz,
            count_from,
        };
        let (tracked, beyond) = expected.split_at(expected.len().min(MAX_STREAMS));
        for &id in tracked {
            let _ = t.slot(id);
        }
        t.listed = listed;
        t.listed_beyond = beyond.to_vec();
        t.listed_beyond.sort_unstable();
        t
    }

    /// Stream `id`'s entry: 0 (not seen), index + 1, or [`OVERFLOWED`].
    #[inline(always)]
    pub(super) fn entry(&self, id: u32) -> u16 {
        if (id as usize) < DIRECT_IDS {
            self.direct[id as usize]
        } else {
            self.large.get(&id).copied().unwrap_or(0)
        }
    }

    /// Sets stream `id`'s entry.
    pub(super) fn set_entry(&mut self, id: u32, e: u16) {
        if (id as usize) < DIRECT_IDS {
            self.direct[id as usize] = e;
        } else {
            self.large.insert(id, e);
        }
    }

    /// The index of stream `id`'s accumulator, if it has one.
    #[inline(always)]
    pub(super) fn find(&self, id: u32) -> Option<usize> {
        match self.entry(id) {
            0 | OVERFLOWED => None,
            d => Some(usize::from(d) - 1),
        }
    }

    /// The accumulator of stream `id`, taken on first sight (from the
    /// pool, else allocated: about 45 KiB) unless the streams are listed.
    /// A frame of the same stream as the one before is not looked up.
    #[inline(always)]
    pub(super) fn slot(&mut self, id: u32) -> Result<&mut StreamAcc, Miss> {
        let i = self.index(id)?;
        Ok(&mut self.accs[i])
    }

    /// The index of [`Table::slot`]'s accumulator.
    #[inline(always)]
    pub(super) fn index(&mut self, id: u32) -> Result<usize, Miss> {
        match self.last {
            Some((last, i)) if last == id => Ok(i),
            _ => self.lookup(id),
        }
    }

    /// [`Table::slot`]'s index of a stream other than the latest one.
    #[inline]
    pub(super) fn lookup(&mut self, id: u32) -> Result<usize, Miss> {
        let i = match self.find(id) {
            Some(i) => i,
            None if self.listed => return Err(self.unlisted(id)),
            None => self.add(id)?,
        };
        self.last = Some((id, i));
        Ok(i)
    }

    /// A new accumulator for stream `id`, or overflow when the table is
    /// full (each stream beyond it counted once in `overflow_streams`).
    #[cold]
    pub(super) fn add(&mut self, id: u32) -> Result<usize, Miss> {
        if self.used >= MAX_STREAMS {
            self.overflowed(id);
            return Err(Miss::Overflow);
        }
        let i = self.used;
        if i == self.accs.len() {
            self.accs.push(StreamAcc::new(id, self.tsc_hz));
        }
        let acc = &mut self.accs[i];
        acc.tally.id = id;
        if self.count_from != CountFrom::FirstSeen {
            acc.seq = SeqTracker::counting_from(self.count_from);
        }
        self.used += 1;
        self.set_entry(id, (i + 1) as u16);
        Ok(i)
    }

    /// Why stream `id`, without an accumulator, is not checked when the
    /// streams are listed: listed beyond the table (overflow) or not
    /// listed (foreign).
    #[cold]
    pub(super) fn unlisted(&mut self, id: u32) -> Miss {
        if self.listed_beyond.binary_search(&id).is_ok() {
            self.overflowed(id);
            Miss::Overflow
        } else {
            Miss::Untracked
        }
    }

    /// Counts stream `id` among the overflowed streams, once.
    pub(super) fn overflowed(&mut self, id: u32) {
        if self.entry(id) == OVERFLOWED {
            return;
        }
        if (id as usize) >= DIRECT_IDS {
            if self.large_overflowed >= MAX_STREAMS {
                return;
            }
            self.large_overflowed += 1;
        }
        self.set_entry(id, OVERFLOWED);
        self.overflow_streams += 1;
    }

    /// Frames lost so far, summed over the streams.
    pub(super) fn lost(&self) -> u64 {
        self.accs[..self.used]
            .iter()
            .map(|a| a.seq.counts().lost)
            .sum()
    }

    /// The streams' accumulators (the pool's unused ones dropped).
    pub(super) fn into_streams(mut self) -> Vec<StreamAcc> {
        self.accs.truncate(self.used);
        self.accs
    }
}
