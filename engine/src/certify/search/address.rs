//! RFC 2889's address searches on a mesh with a monitoring port: address
//! caching capacity (section 5.7, a binary search on the number of
//! addresses) and address learning rate (section 5.8, a binary search on
//! the learning frames' rate).
//!
//! Every trial clears the device's address table (`certify.dut.flush`),
//! teaches it the trial's addresses with learning frames from the port
//! they live behind (each address once, paced), waits the learning wait,
//! then sends test frames to those addresses at the settings' load, long
//! enough that every address gets at least two. It passes when every test
//! frame reached its port and none reached another (a frame flooded to
//! the monitoring port, or to any port, counts in the trial's `foreign`):
//! the device knew every address.

use super::{tester_reason, Flow, Search, MAX_TRIES};
use crate::certify::model::{AddressRow, Bound, Trial};

/// Test frames a trial sends per address, at least.
pub const FRAMES_PER_ADDRESS: f64 = 2.0;

/// Frames/s of the smallest learning frame at the line rate `line_bps`.
fn learning_line_fps(line_bps: u64) -> f64 {
    super::fps_at(line_bps, 64, 100.0)
}

/// Whether an address trial of `n` addresses passed, on its counts: every
/// learning frame went out, every address got its test frames, and none
/// was lost, corrupt or flooded. The tester's timing does not change
/// which addresses the device knew, so a trial the tester bounded (its
/// sender descheduled) passes on the same counts; see
/// [`address_failure_is_testers`] for a failure.
pub fn address_passes(t: &Trial, n: u64) -> bool {
    let learnt = t.learning.as_ref().is_some_and(|l| l.refused == 0);
    let sent = t.tx_frames as f64 >= FRAMES_PER_ADDRESS * n as f64;
    learnt && sent && t.lost == 0 && t.corrupt == 0 && t.foreign == 0
}

/// A passing trial whose learning frames went slower than this share of
/// the rate asked gives the rate they went at as the figure.
pub const SENT_FLOOR: f64 = 0.99;

/// Learning frames that went faster than this share of the rate asked
/// were sent in bursts: a device that missed some was not offered the
/// rate the search names.
pub const LEARNING_RATE_SLACK: f64 = 1.1;

/// Whether the failure of address trial `t` is the tester's, not the
/// device's: the tester did not teach as asked (learning frames a port
/// refused, or sent in bursts above the rate asked), or, with nothing
/// flooded, it sent fewer test frames than every address needs or lost
/// frames while bounded (a descheduled sender's catch-up burst). A frame
/// flooded after learning as asked is the device's: it did not know the
/// address.
pub fn address_failure_is_testers(t: &Trial, n: u64) -> bool {
    let l = t.learning.as_ref();
    let refused = l.is_none_or(|l| l.refused > 0);
    let bursty = l.is_some_and(|l| match (l.paced_fps, l.sent_fps) {
        (Some(asked), Some(went)) => went > asked * LEARNING_RATE_SLACK,
        _ => false,
    });
    let short = (t.tx_frames as f64) < FRAMES_PER_ADDRESS * n as f64;
    let flooded = t.foreign > 0;
    refused || bursty || (!flooded && (short || t.tester_bound))
}

/// Why a failed address trial is the tester's, in words (`tester-bound:
/// ...`).
pub(super) fn address_tester_reason(t: &Trial) -> String {
    let l = t.learning.as_ref();
    let why = if let Some(l) = l.filter(|l| l.refused > 0) {
        format!("{} learning frames were refused by the port", l.refused)
    } else if let Some((asked, went)) = (l.and_then(|l| l.paced_fps.zip(l.sent_fps)))
        .filter(|(asked, went)| *went > asked * LEARNING_RATE_SLACK)
    {
        format!(
            "the learning frames went at {} frames/s, faster than the {} asked",
            crate::certify::round::whole(went),
            crate::certify::round::whole(asked)
        )
    } else if t.tester_bound {
        return tester_reason(t);
    } else {
        format!("{} test frames, fewer than two per address", t.tx_frames)
    };
    format!("tester-bound: {why}")
}

/// Where an address search stands.
struct Bisect {
    /// Highest value known to pass.
    ok: Option<f64>,
    /// Lowest value known to fail, and whether that failure was the
    /// tester's.
    bad: Option<(f64, bool)>,
}

impl Search<'_> {
    /// Address caching capacity at `size` over `dir` (the mesh's
    /// aggregate): the most addresses, between the settings' least and
    /// most, the device holds without flooding a frame to a learnt one.
    pub(super) fn address_caching(
        &mut self,
        dir: Option<usize>,
        size: u32,
    ) -> (AddressRow, Flow<()>) {
        let a = &self.s.addresses;
        let most = a.max.unwrap_or_else(|| self.tester.destinations());
        let (least, fps) = (a.min.min(most), a.learning_fps);
        let mut trials = Vec::new();
        let mut b = Bisect {
            ok: None,
            bad: None,
        };
        let flow = self.bisect_addresses(dir, size, (least, most), &mut b, &mut trials);
        let found = b.ok.map(|v| v as u64);
        let (bound, note) = self.address_bound(&b, most as f64, &trials, || {
            format!("every address of the search's top was held: the device holds at least {most}")
        });
        let note = note.or_else(|| {
            found.is_none().then(|| {
                format!(
                    "even {least} address(es) were not held: test frames to them were lost or \
                     flooded (see each trial)"
                )
            })
        });
        let row = AddressRow {
            direction: self.label(dir),
            frame_size: size,
            addresses: found,
            learning_fps: Some(fps),
            searched: [least as f64, most as f64],
            bound,
            note,
            trials,
            complete: flow.is_ok(),
        };
        (row, flow)
    }

    /// Address learning rate at `size` over `dir`: the fastest learning
    /// frames/s, between the settings' least and most, at which the
    /// device learns `taught` addresses (each taught once) without
    /// flooding a frame to one of them.
    pub(super) fn learning_rate(
        &mut self,
        dir: Option<usize>,
        size: u32,
        taught: u64,
    ) -> (AddressRow, Flow<()>) {
        let a = &self.s.addresses;
        let most = (a.rate_max_fps).unwrap_or_else(|| learning_line_fps(self.line_bps));
        let (least, res) = (a.rate_min_fps.min(most), a.rate_resolution_fps);
        let mut trials = Vec::new();
        let mut b = Bisect {
            ok: None,
            bad: None,
        };
        let flow = self.bisect_rate(dir, size, taught, (least, most, res), &mut b, &mut trials);
        // The figure is the rate the learning frames went at when the
        // tester could not send them as fast as asked.
        let went = (trials.iter().rev())
            .find(|t| t.passed && t.learning.as_ref().and_then(|l| l.paced_fps) == b.ok)
            .and_then(|t| t.learning.as_ref().and_then(|l| l.sent_fps));
        let slow =
            b.ok.zip(went)
                .filter(|(asked, went)| *went < asked * SENT_FLOOR);
        let found = slow.map_or(b.ok, |(_, went)| Some(went));
        let whole = crate::certify::round::whole;
        let (bound, note) = self.address_bound(&b, most, &trials, || {
            format!(
                "the search's top passed: the device learns at least {} frames/s",
                whole(found.unwrap_or(most))
            )
        });
        let note = note.or_else(|| {
            b.ok.is_none().then(|| {
                format!(
                    "not even at {} frames/s were the {taught} address(es) learnt: test frames \
                     to them were lost or flooded (see each trial)",
                    whole(least)
                )
            })
        });
        let note = match slow {
            Some((asked, went)) => Some(format!(
                "the learning frames went at {} frames/s, below the {} asked: the figure is the \
                 rate they went at{}",
                whole(went),
                whole(asked),
                note.map(|n| format!("; {n}")).unwrap_or_default()
            )),
            None => note,
        };
        let row = AddressRow {
            direction: self.label(dir),
            frame_size: size,
            addresses: Some(taught),
            learning_fps: found,
            searched: [least, most],
            bound,
            note,
            trials,
            complete: flow.is_ok(),
        };
        (row, flow)
    }

    /// What bound an address search that ended at `b` whose top was
    /// `top`, and the note that goes with it (`at_top` when the top
    /// passed).
    fn address_bound(
        &self,
        b: &Bisect,
        top: f64,
        trials: &[Trial],
        at_top: impl FnOnce() -> String,
    ) -> (Bound, Option<String>) {
        match b.bad {
            _ if b.ok == Some(top) => (Bound::Top, Some(at_top())),
            Some((_, true)) => {
                let why = (trials.iter().rev())
                    .find(|t| !t.passed)
                    .map(address_tester_reason)
                    .unwrap_or_default();
                (
                    Bound::Tester,
                    Some(format!(
                        "the nearest failure was the tester's ({why}): not the device's figure"
                    )),
                )
            }
            _ => (Bound::Device, None),
        }
    }

    /// The caching search: the top first, then halving between what
    /// passed and what failed, to one address.
    fn bisect_addresses(
        &mut self,
        dir: Option<usize>,
        size: u32,
        (least, most): (u64, u64),
        b: &mut Bisect,
        trials: &mut Vec<Trial>,
    ) -> Flow<()> {
        let fps = self.s.addresses.learning_fps;
        let mut lo = least.saturating_sub(1);
        let mut hi = most;
        let mut n = most;
        loop {
            let t = self.address_trial("address_caching", (dir, size), n, fps, trials)?;
            if t.passed {
                b.ok = Some(n as f64);
                lo = n;
            } else {
                b.bad = Some((n as f64, address_failure_is_testers(&t, n)));
                hi = n;
            }
            if hi <= lo + 1 || lo >= most {
                return Ok(());
            }
            n = lo + (hi - lo) / 2;
            if n < least {
                return Ok(());
            }
        }
    }

    /// The learning rate search: the top first, then halving between
    /// what passed and what failed to the resolution; the least last
    /// when nothing above it passed.
    fn bisect_rate(
        &mut self,
        dir: Option<usize>,
        size: u32,
        taught: u64,
        (least, most, res): (f64, f64, f64),
        b: &mut Bisect,
        trials: &mut Vec<Trial>,
    ) -> Flow<()> {
        let (mut lo, mut hi) = (least, most);
        let mut fps = most;
        loop {
            let t = self.address_trial("learning_rate", (dir, size), taught, fps, trials)?;
            if t.passed {
                b.ok = Some(fps);
                lo = fps;
            } else {
                b.bad = Some((fps, address_failure_is_testers(&t, taught)));
                hi = fps;
            }
            if b.ok.is_some() && hi - lo <= res || fps <= least {
                return Ok(());
            }
            fps = if hi - lo <= res {
                least
            } else {
                (lo + hi) / 2.0
            };
        }
    }

    /// One address trial of `test`: `n` addresses learnt at `fps`,
    /// tried again once when the tester bounded it; every try goes into
    /// `kept`.
    fn address_trial(
        &mut self,
        test: &'static str,
        (dir, size): (Option<usize>, u32),
        n: u64,
        fps: f64,
        kept: &mut Vec<Trial>,
    ) -> Flow<Trial> {
        let load = self.s.addresses.load_pct;
        let senders = match dir {
            Some(_) => 1.0,
            None => self.s.aggregate_shares(self.directions.len()),
        };
        let rate = self.s.fps_at(self.line_bps, size, load) * senders;
        let duration = self
            .s
            .search_trial()
            .max(FRAMES_PER_ADDRESS * n as f64 / rate);
        let mut spec = self.spec(dir, size, load, duration);
        spec.addresses = Some(n);
        spec.learning_fps = Some(fps);
        // A failure the tester may have caused is tried once more; a
        // flood is the device's at once.
        for tries in 1.. {
            let t = self.trial(test, spec.clone(), 0.0)?;
            if t.passed || !address_failure_is_testers(&t, n) || tries >= MAX_TRIES {
                kept.push(t.clone());
                return Ok(t);
            }
            let mut again = t;
            again.excluded = Some(format!("{}; tried again", address_tester_reason(&again)));
            kept.push(again);
        }
        unreachable!("the tries end at MAX_TRIES")
    }
}
