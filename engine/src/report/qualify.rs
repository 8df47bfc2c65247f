//! What a run's problems change in its verdict, once it is decided: a
//! receiving link that went down, streams the receiver could not track.
//! The run applies it to its own verdict and `landspeed report` to the
//! verdict it decides again from the receiver's observation, so both
//! carry the same qualifiers.

use crate::limits::verdict::{self, Limit, Verdict};
use crate::outcome::Problem;

/// Qualifies `v` by the run's `problems`: a receiving port whose link went
/// down (a verdict that found nothing binding becomes network-bound: what
/// was sent meanwhile never reached it), and frames of streams beyond what
/// an RX lcore tracks (the figures cover only the tracked streams).
pub(crate) fn qualify(v: &mut Verdict, problems: &[Problem]) {
    link_loss(v, problems);
    for p in problems {
        if let Problem::StreamsNotTracked {
            frames,
            streams,
            limit,
        } = p
        {
            verdict::note_untracked(v, *frames, *streams, *limit);
        }
    }
}

/// A verdict that found nothing binding cannot stand when a receiving
/// link went down: the frames sent meanwhile were lost before the port.
fn link_loss(v: &mut Verdict, problems: &[Problem]) {
    let lost = problems.iter().find_map(|p| match p {
        Problem::LinkDown {
            port,
            side,
            down_at_s,
            down_s,
            ..
        } if side.contains("RX") => Some((port, *down_at_s, *down_s)),
        _ => None,
    });
    if let Some((port, at, down)) = lost {
        if v.binding == Limit::None {
            v.binding = Limit::Network;
        }
        v.explanation = format!(
            "The receiving port {port}'s link went down {at:.2} s into the run for {down:.2} s: \
             what was sent meanwhile never reached it. {}",
            v.explanation
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clean() -> Verdict {
        Verdict {
            binding: Limit::None,
            ceilings: Vec::new(),
            explanation: "Nothing bound the run.".into(),
        }
    }

    fn down(side: &str) -> Problem {
        Problem::LinkDown {
            port: "p1".into(),
            side: side.into(),
            down_at_s: 1.5,
            down_s: 0.25,
            outages: 1,
            down_at_end: false,
        }
    }

    #[test]
    fn a_receiving_link_down_makes_a_clean_verdict_network_bound() {
        let mut v = clean();
        qualify(&mut v, &[down("RX")]);
        assert_eq!(v.binding, Limit::Network);
        assert_eq!(
            v.explanation,
            "The receiving port p1's link went down 1.50 s into the run for 0.25 s: what was \
             sent meanwhile never reached it. Nothing bound the run."
        );
        let mut v = Verdict {
            binding: Limit::Cpu,
            ..clean()
        };
        qualify(&mut v, &[down("TX+RX")]);
        assert_eq!(v.binding, Limit::Cpu, "a binding found stays");
        assert!(v.explanation.starts_with("The receiving port p1's"));
    }

    #[test]
    fn a_sending_link_down_or_no_problem_changes_nothing() {
        let mut v = clean();
        qualify(&mut v, &[down("TX")]);
        assert_eq!(v, clean());
        qualify(&mut v, &[]);
        assert_eq!(v, clean());
    }

    #[test]
    fn streams_not_tracked_say_the_figures_cover_the_tracked_streams_only() {
        let mut v = clean();
        let p = Problem::StreamsNotTracked {
            frames: 70,
            streams: 7,
            limit: 4096,
        };
        qualify(&mut v, &[p]);
        assert_eq!(v.binding, Limit::None);
        assert_eq!(
            v.explanation,
            "Nothing bound the run. Its figures cover only the 4096 streams tracked: 70 frames \
             of 7 more streams arrived untracked (overflow), so their loss, order and \
             integrity are unknown."
        );
    }
}
