//! Where a certification stands and how long it still has to go: the pure
//! part of the progress display (the terminal bar is
//! [`super::display`]'s).
//!
//! The estimate is a function of the settings and the trials so far, and
//! of the seconds elapsed. A certification is a sequence of searches, one
//! per test, frame size and direction, in the order the searches run them
//! ([`segments`]). A search's trial count is known only once it ends, so
//! each is estimated:
//!
//! - throughput: the upper bound, the halvings that bring the span from
//!   the lower to the upper bound down to the resolution, and the
//!   confirmation; once the upper bound passed, 2 (it and its
//!   confirmation);
//! - latency: the latency trials (none for a size whose throughput search
//!   passed no rate: latency has no rate to run at);
//! - frame loss: every step from the upper bound down; once started, the
//!   trials so far and the two loss-free steps that still end the curve
//!   (fewer when the steps run out);
//! - back-to-back: each search the longest burst, then the halvings of
//!   the burst length down to one frame; a search whose longest burst
//!   passed takes that one trial;
//! - system recovery: the recovery trials, reset: the reset trials (at
//!   the smallest size only), none for a size whose throughput search
//!   passed no rate, as for latency;
//! - a search not yet started that has a finished search of the same test
//!   before it is expected to take as many trials as the last of those
//!   did (a device that passes at line rate at one size likely does at
//!   the next).
//!
//! The time of a trial is its nominal length (the trial, the latency
//! trial, a recovery trial's overload and reduced load, the reset trial,
//! or a burst at line rate: the longest burst for the first trial of a
//! back-to-back search, half of it for each halving) plus the settle
//! time, the restabilise wait and, with learning before every trial, the
//! learning frames and the learning wait, plus the overhead measured so far: the seconds elapsed beyond
//! the nominal time of the trials that ran, shared among them.

use super::model::{Learning, Settings, Size, TrialSpec, LEARNING_FRAMES, LEARNING_GAP_S};
use super::search::{fps_at, max_burst, test_sizes, Step, AGGREGATE};

/// One search of a certification: a test, a direction (`None`: every
/// direction at once), a frame size.
#[derive(Clone, Debug, PartialEq)]
pub struct Segment {
    /// `throughput`, `latency`, `loss`, `back_to_back`, `recovery` or
    /// `reset`.
    pub test: String,
    /// Index into the directions, `None` for the aggregate.
    pub direction: Option<usize>,
    /// Frame size with FCS, bytes.
    pub frame_size: u32,
}

/// The searches of a certification with `directions` directions, in the
/// order they run: per test, per size (reset: the smallest only), each
/// direction then (two or more) the aggregate.
pub fn segments(s: &Settings, directions: usize) -> Vec<Segment> {
    let mut dirs: Vec<Option<usize>> = (0..directions).map(Some).collect();
    if directions > 1 {
        dirs.push(None);
    }
    let mut out = Vec::new();
    for test in &s.tests {
        for frame_size in test_sizes(s, test) {
            for &direction in &dirs {
                out.push(Segment {
                    test: test.clone(),
                    direction,
                    frame_size,
                });
            }
        }
    }
    out
}

/// What the estimate keeps of a trial that ended.
#[derive(Clone, Debug, PartialEq)]
struct EndedTrial {
    offered_pct: f64,
    burst: Option<u64>,
    passed: bool,
    lost: u64,
    tx_frames: u64,
    /// Its nominal seconds (the trial and the settle time).
    nominal_s: f64,
}

/// Where the certification stands.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// The test of the current search.
    pub test: String,
    /// Its direction label.
    pub direction: String,
    /// Its frame size.
    pub frame_size: u32,
    /// The current trial's number in its search (1-based; the last one
    /// that ended when none is running).
    pub trial: u32,
    /// The trials its search is expected to take (at least `trial`).
    pub trials: u32,
    /// Trials that ended in the whole certification.
    pub done: u32,
    /// Trials the whole certification is expected to take.
    pub total: u32,
    /// Offered load of the current trial, % of line.
    pub rate_pct: f64,
    /// Its burst length (back-to-back).
    pub burst: Option<u64>,
    /// Seconds the whole certification is expected to take from now.
    pub left_s: f64,
}

/// Follows a certification trial by trial (from its [`Step`]s) and
/// estimates the rest.
#[derive(Clone, Debug)]
pub struct Estimator {
    s: Settings,
    labels: Vec<String>,
    line_bps: u64,
    segs: Vec<Segment>,
    /// The trials that ended, per segment.
    seen: Vec<Vec<EndedTrial>>,
    /// The segment of the latest step.
    cur: usize,
    /// The trial running now, when one is.
    running: Option<TrialSpec>,
}

impl Estimator {
    /// An estimator for a certification of `s` over the directions
    /// `labels` at a line rate of `line_bps` (L1).
    pub fn new(s: &Settings, labels: &[String], line_bps: u64) -> Self {
        let segs = segments(s, labels.len());
        Estimator {
            s: s.clone(),
            labels: labels.to_vec(),
            line_bps,
            seen: vec![Vec::new(); segs.len()],
            segs,
            cur: 0,
            running: None,
        }
    }

    /// Takes one step of the searches: a trial that starts or ends.
    pub fn step(&mut self, st: &Step) {
        self.cur = self.segment_of(st.test, st.spec);
        match st.trial {
            None => self.running = Some(st.spec.clone()),
            Some(t) => {
                self.running = None;
                let nominal_s = self.nominal_s(st.test, st.spec);
                self.seen[self.cur].push(EndedTrial {
                    offered_pct: t.offered_pct,
                    burst: st.spec.burst,
                    passed: t.passed,
                    lost: t.lost,
                    tx_frames: t.tx_frames,
                    nominal_s,
                });
            }
        }
    }

    /// The segment a trial of `test` with `spec` belongs to: the first
    /// from the current one on that matches (a search never goes back).
    fn segment_of(&self, test: &str, spec: &TrialSpec) -> usize {
        let matches = |g: &Segment| {
            g.test == test && g.direction == spec.direction && g.frame_size == spec.frame_size
        };
        (self.cur..self.segs.len())
            .find(|&i| matches(&self.segs[i]))
            .unwrap_or(self.cur)
    }

    /// Nominal seconds of a trial of `test` with `spec`: its length and
    /// the settle time.
    fn nominal_s(&self, test: &str, spec: &TrialSpec) -> f64 {
        let len = match (test, spec.burst) {
            (_, Some(n)) => n as f64 / fps_at(self.line_bps, spec.frame_size, 100.0),
            (test, None) => self.length_s(test),
        };
        len + self.s.settle_s + self.between_s()
    }

    /// Nominal length of a trial of `test` that is not a burst, seconds.
    fn length_s(&self, test: &str) -> f64 {
        match test {
            "latency" => self.s.latency_trial_s,
            "recovery" => self.s.recovery_overload_s + self.s.recovery_reduced_s,
            "reset" => self.s.reset_trial_s,
            // The learning frames of the most addresses, their wait, the
            // test frames.
            "address_caching" | "learning_rate" => {
                let a = &self.s.addresses;
                let most = a.taught.or(a.max).unwrap_or(1024) as f64;
                let fps = match test {
                    "address_caching" => a.learning_fps,
                    _ => a.rate_min_fps,
                };
                most / fps + self.s.learning_wait_s + self.s.search_trial()
            }
            _ => self.s.trial_s,
        }
    }

    /// Seconds every trial adds besides its own length and settle time:
    /// the restabilise wait before it and, when learning frames go out
    /// before every trial, their sending and the learning wait.
    fn between_s(&self) -> f64 {
        let learning = match self.s.learning {
            Learning::EveryTrial => {
                self.s.learning_wait_s + f64::from(LEARNING_FRAMES - 1) * LEARNING_GAP_S
            }
            Learning::Once | Learning::Off => 0.0,
        };
        self.s.restabilise_s + learning
    }

    /// The estimate after the steps so far, `elapsed_s` seconds into the
    /// certification.
    pub fn estimate(&self, elapsed_s: f64) -> Estimate {
        let trials: Vec<u32> = (0..self.segs.len()).map(|i| self.trials_of(i)).collect();
        let done: usize = self.seen.iter().map(Vec::len).sum();
        let nominal_done: f64 = self.seen.iter().flatten().map(|t| t.nominal_s).sum();
        let overhead = if done == 0 {
            0.0
        } else {
            ((elapsed_s - nominal_done) / done as f64).max(0.0)
        };
        let left_s: f64 = (self.cur..self.segs.len())
            .map(|i| self.seconds_left(i, trials[i], overhead))
            .sum();
        let g = &self.segs[self.cur];
        let seen = self.seen[self.cur].len() as u32;
        let trial = seen + u32::from(self.running.is_some());
        let running = self.running.as_ref();
        Estimate {
            test: g.test.clone(),
            direction: match g.direction {
                Some(d) => self.labels[d].clone(),
                None => AGGREGATE.to_string(),
            },
            frame_size: g.frame_size,
            trial,
            trials: trials[self.cur].max(trial),
            done: done as u32,
            total: trials.iter().sum::<u32>().max(done as u32),
            rate_pct: running.map_or_else(|| self.last_rate(), |r| r.rate_pct),
            burst: running.map_or_else(|| self.last_burst(), |r| r.burst),
            left_s,
        }
    }

    fn last_rate(&self) -> f64 {
        self.seen[self.cur].last().map_or(0.0, |t| t.offered_pct)
    }

    fn last_burst(&self) -> Option<u64> {
        self.seen[self.cur].last().and_then(|t| t.burst)
    }

    /// Seconds segment `i`, expected to take `n` trials, still needs.
    fn seconds_left(&self, i: usize, n: u32, overhead: f64) -> f64 {
        let g = &self.segs[i];
        let seen = &self.seen[i];
        let each = |k: u32| self.trial_s(g, k) + overhead;
        let mut left: f64 = (seen.len() as u32..n).map(each).sum();
        if i == self.cur {
            if let Some(r) = &self.running {
                // The running trial is the first of those still to come.
                let k = seen.len() as u32;
                if k >= n {
                    left += self.nominal_s(&g.test, r) + overhead;
                }
            }
        }
        left
    }

    /// Expected nominal seconds of trial `k` (0-based) of segment `g`.
    fn trial_s(&self, g: &Segment, k: u32) -> f64 {
        let settle = self.s.settle_s + self.between_s();
        match g.test.as_str() {
            "back_to_back" => {
                let longest = self.s.back_to_back_max_s;
                let per = self.b2b_search_trials(g);
                if per <= 1 || k.is_multiple_of(per) {
                    longest + settle
                } else {
                    longest / 2.0 + settle
                }
            }
            test => self.length_s(test) + settle,
        }
    }

    /// The trials segment `i` is expected to take in all.
    fn trials_of(&self, i: usize) -> u32 {
        let g = &self.segs[i];
        let seen = &self.seen[i];
        let ran = seen.len() as u32;
        let finished = i < self.cur;
        if finished {
            return ran;
        }
        let n = match g.test.as_str() {
            "throughput" => self.throughput_trials(i),
            "latency" => self.at_rate_trials(g, self.s.latency_trials),
            "recovery" => self.at_rate_trials(g, self.s.recovery_trials),
            "reset" => self.at_rate_trials(g, self.s.reset_trials),
            "loss" => self.loss_trials(i),
            "address_caching" | "learning_rate" => {
                super::search::address_trials(&self.s, &g.test, self.line_bps)
            }
            _ => self.b2b_trials(i),
        };
        n.max(ran)
    }

    /// Trials of the last finished search of the same test before
    /// segment `i`.
    fn like_last(&self, i: usize) -> Option<u32> {
        let test = &self.segs[i].test;
        (0..i)
            .rev()
            .find(|&j| &self.segs[j].test == test && self.finished(j))
            .map(|j| self.seen[j].len() as u32)
    }

    /// Segment `j` ran and ended: a later one started, or no trial is
    /// running and it ran every trial it is expected to.
    fn finished(&self, j: usize) -> bool {
        if self.seen[j].is_empty() {
            return false;
        }
        j < self.cur
            || (j == self.cur
                && self.running.is_none()
                && self.trials_of(j) <= self.seen[j].len() as u32)
    }

    fn throughput_trials(&self, i: usize) -> u32 {
        match self.seen[i].first() {
            Some(first) if first.passed => 2,
            Some(_) => full_throughput(&self.s),
            None => self
                .like_last(i)
                .unwrap_or_else(|| full_throughput(&self.s)),
        }
    }

    /// Trials of `g`, a test run at its throughput rate (latency,
    /// recovery, reset) that takes `n`: none when its throughput search
    /// ran and passed no rate.
    fn at_rate_trials(&self, g: &Segment, n: u32) -> u32 {
        let thr = (self.segs.iter().zip(&self.seen)).find(|(h, _)| {
            h.test == "throughput" && h.direction == g.direction && h.frame_size == g.frame_size
        });
        match thr {
            Some((h, seen))
                if self.finished(self.index_of(h)) && !seen.iter().any(|t| t.passed) =>
            {
                0
            }
            _ => n,
        }
    }

    fn index_of(&self, g: &Segment) -> usize {
        self.segs.iter().position(|h| h == g).unwrap_or(0)
    }

    fn loss_trials(&self, i: usize) -> u32 {
        let steps = loss_steps(&self.s);
        let seen = &self.seen[i];
        if seen.is_empty() {
            return self.like_last(i).unwrap_or(steps);
        }
        let zero = |t: &EndedTrial| t.lost == 0 && t.tx_frames > 0;
        let trailing = seen.iter().rev().take_while(|t| zero(t)).count() as u32;
        let ran = seen.len() as u32;
        let more = 2u32.saturating_sub(trailing).min(steps.saturating_sub(ran));
        ran + more
    }

    /// Trials of one back-to-back search of `g` when its longest burst
    /// fails: that burst and the halvings down to one frame.
    fn b2b_full(&self, g: &Segment) -> u32 {
        1 + halvings(max_burst(&self.s, self.line_bps, g.frame_size) as f64, 1.0)
    }

    /// Trials one search of `g` is expected to take.
    fn b2b_search_trials(&self, g: &Segment) -> u32 {
        let i = self.index_of(g);
        match self.b2b_searches(i).first() {
            Some(first) if first.len() == 1 && first[0].passed => 1,
            Some(_) => self.b2b_full(g),
            None => match self.like_last(i) {
                Some(n) if n <= self.s.back_to_back_trials => 1,
                _ => self.b2b_full(g),
            },
        }
    }

    /// The trials of segment `i` split into its searches (each starts
    /// with the longest burst).
    fn b2b_searches(&self, i: usize) -> Vec<Vec<EndedTrial>> {
        let max = max_burst(&self.s, self.line_bps, self.segs[i].frame_size);
        let mut out: Vec<Vec<EndedTrial>> = Vec::new();
        for t in &self.seen[i] {
            match out.last_mut() {
                Some(cur) if t.burst != Some(max) => cur.push(t.clone()),
                _ => out.push(vec![t.clone()]),
            }
        }
        out
    }

    fn b2b_trials(&self, i: usize) -> u32 {
        let g = &self.segs[i];
        let searches = self.b2b_searches(i);
        let per = self.b2b_search_trials(g);
        let total = self.s.back_to_back_trials;
        let Some(last) = searches.last() else {
            return per * total;
        };
        let max = max_burst(&self.s, self.line_bps, g.frame_size);
        let done_before: u32 = searches[..searches.len() - 1]
            .iter()
            .map(|v| v.len() as u32)
            .sum();
        let current = last.len() as u32 + burst_halvings_left(last, max);
        let after = total.saturating_sub(searches.len() as u32) * per;
        done_before + current + after
    }
}

/// Trials of a whole throughput search whose upper bound fails: it, the
/// halvings of the span to the resolution, the confirmation.
pub fn full_throughput(s: &Settings) -> u32 {
    1 + halvings(s.upper_pct - s.lower_pct, s.resolution_pct) + 1
}

/// Steps of a loss curve from the upper bound down, every one run.
pub fn loss_steps(s: &Settings) -> u32 {
    let mut k = 0u32;
    while s.upper_pct - f64::from(k) * s.loss_step_pct > 1e-9 && k < 10_000 {
        k += 1;
    }
    k
}

/// Halvings of `span` until it is no more than `resolution` (as the
/// binary searches halve theirs).
pub fn halvings(span: f64, resolution: f64) -> u32 {
    let (mut w, mut k) = (span, 0u32);
    while w > resolution && k < 64 {
        w /= 2.0;
        k += 1;
    }
    k
}

/// Halvings left in a back-to-back search whose trials so far are
/// `trials` (the first at the longest burst `max`): none when the first
/// passed, else those of the span still open.
fn burst_halvings_left(trials: &[EndedTrial], max: u64) -> u32 {
    let Some(first) = trials.first() else {
        return 0;
    };
    if first.passed {
        return 0;
    }
    let (mut lo, mut hi) = (0u64, max);
    for t in &trials[1..] {
        let n = t.burst.unwrap_or(0);
        if t.passed {
            lo = lo.max(n);
        } else {
            hi = hi.min(n);
        }
    }
    halvings(hi.saturating_sub(lo) as f64, 1.0)
}

/// `s` seconds for people: `45 s`, `12 min 05 s`, `3 h 20 min`.
pub fn human_duration(s: f64) -> String {
    let t = s.max(0.0).round() as u64;
    match t {
        0..=59 => format!("{t} s"),
        60..=3599 => format!("{} min {:02} s", t / 60, t % 60),
        _ => format!("{} h {:02} min", t / 3600, t % 3600 / 60),
    }
}

/// The current trial for people: the test, size and direction, trial i
/// of ~n, the rate (or the burst).
pub fn now_text(e: &Estimate) -> String {
    let what = match e.burst {
        Some(n) => format!("burst of {n} frames at line rate"),
        None => format!("{:.3} % of line", e.rate_pct),
    };
    format!(
        "{} {} {}: trial {} of ~{}, {}",
        e.test,
        Size(e.frame_size).bytes(),
        e.direction,
        e.trial,
        e.trials,
        what
    )
}

/// The plain line written once per trial as it ends (no terminal, `-q`
/// or `--progress plain`).
pub fn plain_line(st: &Step, e: &Estimate) -> String {
    let Some(t) = st.trial else {
        return String::new();
    };
    format!(
        "landspeed: {} {} {}: trial {} of ~{} (certification: {} of ~{}): {:.3} % of line, {} sent, {} lost{}{} (~{} left)",
        st.test,
        Size(t.frame_size).bytes(),
        t.direction,
        e.trial,
        e.trials,
        e.done,
        e.total,
        t.offered_pct,
        t.tx_frames,
        t.lost,
        if t.passed { ", pass" } else { ", fail" },
        if t.tester_bound { ", tester-bound" } else { "" },
        human_duration(e.left_s)
    )
}

#[cfg(test)]
#[path = "progress_tests.rs"]
mod tests;
