//! Profile errors through the binary: whatever a profile holds, the error
//! is one line naming the file and the line at fault, and comes at once.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{landspeed, write_file, Output};

/// `landspeed run NAME` on a profile holding `text`, and how long it took.
fn run(dir: &Path, name: &str, text: &str) -> (Output, Duration) {
    write_file(dir, name, text);
    // What is timed is the run, not a wait for the lock.
    let _alone = common::alone();
    let start = Instant::now();
    // Named relative to the working directory, as the messages show it.
    let out = landspeed(dir, ["run", name]);
    (out, start.elapsed())
}

/// Asserts a clean failure whose stderr is exactly the one line `want`.
fn assert_only_line(out: &Output, want: &str) {
    out.assert_error(&[]);
    assert_eq!(out.stderr, format!("landspeed: error: {want}\n"), "{out:?}");
}

#[test]
fn a_newline_in_a_value_does_not_split_the_error() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run(
        dir.path(),
        "nl.yaml",
        "eal:\n  cores: [0]\n  \"co\\nres\": [1]\n",
    );
    let fields =
        "`cores`, `cpus`, `memory_mb`, `hugepages`, `vdevs`, `pci`, `ring_mesh`, `file_prefix`, \
                  `log_level`, `extra_args`";
    assert_only_line(
        &out,
        &format!("nl.yaml:3: eal: unknown field `co\\nres`, expected one of {fields}"),
    );
    // A value the checker quotes, with a newline and a tab.
    let (out, _) = run(
        dir.path(),
        "name.yaml",
        "eal:\n  cores: [0, 1]\n  vdevs: [net_null0]\nports:\n  - name: p0\n    \
         device: net_null0\nstreams:\n  - name: a\ntx:\n  - lcore: 1\n    port: p0\n    \
         rate: 1G\n    streams: [\"b\\n\\tc\"]\n",
    );
    assert_only_line(
        &out,
        "name.yaml:13: tx[0].streams[0]: unknown stream `b\\n\\tc`: the streams are a",
    );
}

#[test]
fn a_duplicate_key_names_its_own_line() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run(
        dir.path(),
        "dup.yaml",
        "eal:\n  cores: [0]\n  # the same key again\n  cores: [1]\n",
    );
    assert_only_line(&out, "dup.yaml:4: eal: duplicate field `cores`");
    // In another mapping, with a value of another kind.
    let (out, _) = run(
        dir.path(),
        "dup2.yaml",
        "eal:\n  cores: [0, 1]\nrun:\n  duration: 1s\n  duration: 2s\n",
    );
    assert_only_line(&out, "dup2.yaml:5: run: duplicate field `duration`");
}

#[test]
fn an_alias_bomb_is_refused_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..10 {
        let refs = vec![format!("*a{}", i - 1); 10].join(", ");
        text.push_str(&format!("a{i}: &a{i} [{refs}]\n"));
    }
    let (out, took) = run(dir.path(), "bomb.yaml", &text);
    assert_only_line(
        &out,
        "bomb.yaml:5: the profile holds more than 100000 values once its aliases are \
         expanded: alias less (an alias of aliases multiplies)",
    );
    assert!(took < Duration::from_secs(2), "took {took:?}");
}

#[test]
fn deep_nesting_is_refused_at_once_on_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let n = 80_000;
    let flow = format!(
        "eal:\n  cores: [0]\nstreams:\n  - name: a\n    x: {}{}\n",
        "[".repeat(n),
        "]".repeat(n)
    );
    let (out, took) = run(dir.path(), "deep.yaml", &flow);
    assert_only_line(
        &out,
        "deep.yaml:5: lists and mappings nest deeper than 64 levels",
    );
    // 24.5 s before the depth limit; well under a second with it, even on a
    // loaded machine.
    assert!(took < Duration::from_secs(2), "took {took:?}");
    let mapping = format!("a: {}1{}\n", "{b: ".repeat(n), "}".repeat(n));
    let (out, took) = run(dir.path(), "deepmap.yaml", &mapping);
    assert_only_line(
        &out,
        "deepmap.yaml:1: lists and mappings nest deeper than 64 levels",
    );
    assert!(took < Duration::from_secs(2), "took {took:?}");
    // Block lists nest by indentation, one level a line.
    let block: String = (0..100)
        .map(|i| format!("{}- \n", "  ".repeat(i)))
        .collect();
    let (out, _) = run(dir.path(), "deepblock.yaml", &format!("a:\n{block}"));
    assert_only_line(
        &out,
        "deepblock.yaml:65: lists and mappings nest deeper than 64 levels",
    );
}

#[test]
fn an_error_at_the_end_names_the_last_line() {
    let dir = tempfile::tempdir().unwrap();
    let (out, _) = run(dir.path(), "open.yaml", "eal:\n  cores: [0, 1\n");
    out.assert_error(&["open.yaml:2: "]);
    assert_eq!(out.stderr.lines().count(), 1, "{out:?}");
}
