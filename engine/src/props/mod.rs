//! Property tests (proptest) of every parser of outside input, run inside
//! `cargo test`: structured generators (mutated
//! profiles, frames from the project's own builder with bytes flipped,
//! mutated traces and JSON results, ptp4l's management responses) fed to the parsers and the
//! accounting, with properties that must hold for any input: no panic,
//! errors on one line naming where, valid inputs round-trip, counts add
//! up. See `docs/fuzzing.md`.
//!
//! Each target runs [`cases`] inputs: a few hundred by default, so the
//! whole set takes seconds; `LANDSPEED_FUZZ_CASES=N` runs N of each for a
//! longer local search (`LANDSPEED_FUZZ_SEED` picks the generator's
//! seed, fixed by default so that CI is repeatable). Every input that once failed is kept under
//! `tests/fuzz-corpus/<target>/` and replayed by [`corpus`]'s tests.

mod corpus;
mod encap;
mod frame;
mod json;
mod otg;
mod profile;
mod ptp;
mod trace;

use proptest::test_runner::{Config, RngSeed};

/// How many inputs each target tries: `LANDSPEED_FUZZ_CASES`, else
/// `default` (a target whose inputs cost more asks for fewer).
fn cases(default: u32) -> u32 {
    std::env::var("LANDSPEED_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The seed of every target's generator: fixed, so that a run of the
/// test suite is repeatable; `LANDSPEED_FUZZ_SEED=N` picks another one,
/// `LANDSPEED_FUZZ_SEED=random` a new one each run.
fn seed() -> RngSeed {
    match std::env::var("LANDSPEED_FUZZ_SEED").as_deref() {
        Ok("random") => RngSeed::Random,
        Ok(n) => RngSeed::Fixed(
            n.parse()
                .expect("LANDSPEED_FUZZ_SEED: a number or `random`"),
        ),
        Err(_) => RngSeed::Fixed(13),
    }
}

/// The proptest settings of a target: its case count, no shrinking
/// beyond a bounded effort, no regression files in the source tree (a
/// crasher goes into the corpus by hand, with a name).
fn config(default: u32) -> Config {
    Config {
        cases: cases(default),
        rng_seed: seed(),
        failure_persistence: None,
        max_shrink_iters: 2048,
        ..Config::default()
    }
}

/// An error message as a user sees it: one line, not empty.
fn assert_one_line(what: &str, message: &str) {
    assert!(!message.is_empty(), "{what}: empty error message");
    assert!(
        !message.contains(['\n', '\r']),
        "{what}: error message spans lines: {message:?}"
    );
}
