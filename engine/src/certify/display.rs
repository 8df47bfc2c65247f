//! The progress display of `landspeed rfc2544` on standard error: a
//! live bar on a terminal (indicatif), else one plain line per trial.
//!
//! The bar shows the current test, size and direction, trial i of ~n of
//! its search, the current rate (or burst), the trials of the whole
//! certification, the time elapsed and the time left, as
//! [`super::progress`] estimates them. Each trial that ends also leaves
//! its plain line above the bar, so the log of trials stays on screen.
//! Nothing of it goes to standard output: the tables and reports are the
//! same with either display.

use std::io::{IsTerminal, Write as _};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};

use super::progress::{human_duration, now_text, plain_line, Estimate, Estimator};
use super::search::Step;

/// How the progress is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// A live bar (standard error is a terminal).
    Bar,
    /// One plain line per trial.
    Plain,
}

/// The mode for `--progress` (`auto` or `plain`) and `-q`: the bar only
/// when neither asks for plain lines and `terminal` (standard error is a
/// terminal).
pub fn choose(quiet: bool, plain: bool, terminal: bool) -> Mode {
    if quiet || plain || !terminal {
        Mode::Plain
    } else {
        Mode::Bar
    }
}

/// The mode for this process's standard error.
pub fn choose_for_stderr(quiet: bool, plain: bool) -> Mode {
    choose(quiet, plain, std::io::stderr().is_terminal())
}

/// The time left as last estimated, and when.
#[derive(Debug)]
struct Left {
    left_s: f64,
    at: Instant,
}

/// The display of one certification.
pub struct Display {
    mode: Mode,
    target: Option<ProgressDrawTarget>,
    est: Option<Estimator>,
    started: Instant,
    bar: Option<ProgressBar>,
    left: Arc<Mutex<Left>>,
}

/// The bar's template: the current trial, then the whole certification.
const TEMPLATE: &str =
    "{spinner} {msg}\n  {elapsed_precise} [{wide_bar}] {pos}/~{len} trials, ~{left} left";

impl Display {
    /// A display in `mode`, drawing a bar on standard error.
    pub fn new(mode: Mode) -> Self {
        Self::with_target(mode, ProgressDrawTarget::stderr())
    }

    /// A display in `mode` whose bar draws on `target` (a test's terminal).
    pub fn with_target(mode: Mode, target: ProgressDrawTarget) -> Self {
        Display {
            mode,
            target: Some(target),
            est: None,
            started: Instant::now(),
            bar: None,
            left: Arc::new(Mutex::new(Left {
                left_s: 0.0,
                at: Instant::now(),
            })),
        }
    }

    /// Takes one step of the searches: updates the estimate and shows it.
    pub fn step(&mut self, st: &Step) {
        let est = self
            .est
            .get_or_insert_with(|| Estimator::new(st.settings, st.directions, st.line_bps));
        est.step(st);
        let e = est.estimate(self.started.elapsed().as_secs_f64());
        match self.mode {
            Mode::Plain => {
                if st.trial.is_some() {
                    let _ = writeln!(std::io::stderr(), "{}", plain_line(st, &e));
                }
            }
            Mode::Bar => self.draw(st, &e),
        }
    }

    fn draw(&mut self, st: &Step, e: &Estimate) {
        if let Ok(mut l) = self.left.lock() {
            *l = Left {
                left_s: e.left_s,
                at: Instant::now(),
            };
        }
        if self.bar.is_none() {
            let target = self
                .target
                .take()
                .unwrap_or_else(ProgressDrawTarget::hidden);
            let bar = ProgressBar::with_draw_target(Some(u64::from(e.total)), target)
                .with_style(style(Arc::clone(&self.left)));
            bar.enable_steady_tick(Duration::from_millis(250));
            self.bar = Some(bar);
        }
        let Some(bar) = &self.bar else {
            return;
        };
        if st.trial.is_some() {
            bar.println(plain_line(st, e));
        }
        bar.set_length(u64::from(e.total));
        bar.set_position(u64::from(e.done));
        bar.set_message(now_text(e));
    }

    /// Clears the bar (before the tables are printed).
    pub fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Display {
    fn drop(&mut self) {
        self.finish();
    }
}

/// The bar's style: [`TEMPLATE`], its `{left}` counting down from the
/// last estimate.
fn style(left: Arc<Mutex<Left>>) -> ProgressStyle {
    let key = move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
        let s = left
            .lock()
            .map_or(0.0, |l| l.left_s - l.at.elapsed().as_secs_f64());
        let _ = w.write_str(&human_duration(s));
    };
    ProgressStyle::with_template(TEMPLATE)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .with_key("left", key)
        .progress_chars("=> ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::certify::model::{Settings, Trial, TrialSpec};
    use indicatif::TermLike;

    /// A terminal that keeps what was written.
    #[derive(Debug, Clone, Default)]
    struct Screen(Arc<Mutex<String>>);

    impl TermLike for Screen {
        fn width(&self) -> u16 {
            120
        }
        fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
            Ok(())
        }
        fn write_line(&self, s: &str) -> std::io::Result<()> {
            let mut t = self.0.lock().unwrap();
            t.push_str(s);
            t.push('\n');
            Ok(())
        }
        fn write_str(&self, s: &str) -> std::io::Result<()> {
            self.0.lock().unwrap().push_str(s);
            Ok(())
        }
        fn clear_line(&self) -> std::io::Result<()> {
            Ok(())
        }
        fn flush(&self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn plain_unless_a_terminal_and_nobody_asks_for_plain() {
        assert_eq!(choose(false, false, true), Mode::Bar);
        assert_eq!(choose(true, false, true), Mode::Plain);
        assert_eq!(choose(false, true, true), Mode::Plain);
        assert_eq!(choose(false, false, false), Mode::Plain);
    }

    #[test]
    fn the_bar_shows_the_test_the_trial_the_rate_and_the_time_left() {
        let screen = Screen::default();
        let target = ProgressDrawTarget::term_like(Box::new(screen.clone()));
        let mut d = Display::with_target(Mode::Bar, target);
        let s = Settings {
            tests: vec!["throughput".into()],
            sizes: vec![512],
            trial_s: 60.0,
            settle_s: 2.0,
            ..Settings::default()
        };
        let dirs = vec!["p0 → p1".to_string()];
        let spec = TrialSpec {
            direction: Some(0),
            frame_size: 512,
            rate_pct: 100.0,
            duration_s: 60.0,
            burst: None,
            settle_s: 2.0,
            ..TrialSpec::default()
        };
        let step = |trial, done| Step {
            test: "throughput",
            spec: &spec,
            trial,
            done,
            planned: 12,
            settings: &s,
            directions: &dirs,
            line_bps: 10_000_000_000,
        };
        d.step(&step(None, 0));
        let t = Trial {
            direction: dirs[0].clone(),
            frame_size: 512,
            offered_pct: 100.0,
            tx_frames: 10,
            rx_frames: 10,
            passed: true,
            ..Trial::default()
        };
        d.step(&step(Some(&t), 1));
        std::thread::sleep(Duration::from_millis(300));
        if let Some(bar) = &d.bar {
            bar.tick();
        }
        let text = screen.0.lock().unwrap().clone();
        d.finish();
        assert!(
            text.contains("throughput 512 B p0 → p1: trial 1 of ~2, 100.000 % of line"),
            "{text}"
        );
        // The confirmation: 60 s, 2 s to settle, 5 s to restabilise, 2 s
        // and two 10 ms gaps of learning.
        assert!(text.contains("1/~2 trials, ~1 min 09 s left"), "{text}");
        assert!(
            text.contains("landspeed: throughput 512 B p0 → p1: trial 1 of ~2"),
            "{text}"
        );
    }
}
