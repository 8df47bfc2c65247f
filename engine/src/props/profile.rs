//! The profile parser and validator: YAML text → `Plan` or one clean
//! error line naming the file, and the line when there is one.

use proptest::prelude::*;

use crate::config::{load_str, ConfigError};

/// The profiles shipped with the project: the valid inputs mutated.
pub(super) const BASES: &[&str] = &[
    include_str!("../../../configs/null.yaml"),
    include_str!("../../../configs/null-rx.yaml"),
    include_str!("../../../configs/lsr-ipv4.yaml"),
    include_str!("../../../configs/lsr-ipv6.yaml"),
    include_str!("../../../configs/lab-ipv4-tx.yaml"),
    include_str!("../../../configs/lab-ipv6-rx.yaml"),
    include_str!("../../../configs/memif-tx.yaml"),
    include_str!("../../../configs/rfc2544.yaml"),
    include_str!("../../../configs/pcap-capture.yaml"),
    include_str!("../../../configs/rfc2544-ring-mesh.yaml"),
    include_str!("../../../configs/lab-dut-mesh.yaml"),
    include_str!("../../../configs/lab-dut-congestion.yaml"),
    include_str!("../../../configs/lab-dut-address.yaml"),
];

/// The name profiles go by in messages.
const ORIGIN: &str = "fuzz.yaml";

/// Values that have broken parsers before: limits, signs, floats, odd
/// YAML, unicode, control characters.
const VALUES: &[&str] = &[
    "0",
    "-1",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "-9223372036854775809",
    "1000000000000",
    "4294967296",
    "65536",
    "1e309",
    "-1e309",
    ".nan",
    "-.inf",
    "0x",
    "0xFFFFFFFFFFFFFFFF",
    "1.5",
    "~",
    "''",
    "\"a\\nb\"",
    "\"\\t\\r\\u0000\"",
    "\"line\\nbreak: x\"",
    "ü€𝄞",
    "[",
    "{",
    "]",
    "[[[[[[[[[[",
    "*nope",
    "&a x",
    "!!binary eA==",
    "!custom x",
    "? x",
    "|\n  block\n  text",
    "[a, b, c]",
    "{a: 1, a: 2}",
    "1-0",
    "0-18446744073709551615",
    "00:00:00:00:00:00-ff:ff:ff:ff:ff:ff",
    "02-00-00-00-00-00-02-00-00-00-ff-ff",
    "02:00:00:00:00:01-",
    "-02:00:00:00:00:01",
    "02:00:00:00:00:01-02:00:00:00:00:01-02:00:00:00:00:02",
    "[02:00:00:00:00:01, 01:00:5e:00:00:01]",
    "02-00-00-00-00",
    "5G@L9",
    "1e99",
    "100%",
    "1000000%",
    "0.000001ns",
    "99999999999h",
    "true",
    "net_null0,size=1",
    "net_ring_mesh9",
    "\"net_pcap0,tx_pcap=\\n\"",
];

/// One edit of a profile's lines.
#[derive(Debug, Clone)]
enum Edit {
    /// Remove a line.
    Delete(usize),
    /// Repeat a line after itself.
    Duplicate(usize),
    /// Exchange two lines.
    Swap(usize, usize),
    /// Replace what follows the line's first `: ` (or the whole line).
    Value(usize, &'static str),
    /// Replace the value with generated text.
    Text(usize, String),
    /// Indent a line by two more spaces, or two fewer.
    Indent(usize, bool),
    /// Nest the value `depth` flow lists deep.
    Nest(usize, usize),
    /// Cut the text after this many characters.
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let i = 0usize..200;
    let text = proptest::collection::vec(any::<char>(), 0..12).prop_map(String::from_iter);
    prop_oneof![
        1 => i.clone().prop_map(Edit::Delete),
        1 => i.clone().prop_map(Edit::Duplicate),
        1 => (i.clone(), i.clone()).prop_map(|(a, b)| Edit::Swap(a, b)),
        4 => (i.clone(), proptest::sample::select(VALUES)).prop_map(|(a, v)| Edit::Value(a, v)),
        1 => (i.clone(), text).prop_map(|(a, t)| Edit::Text(a, t)),
        1 => (i.clone(), any::<bool>()).prop_map(|(a, b)| Edit::Indent(a, b)),
        1 => (i.clone(), 1usize..100).prop_map(|(a, d)| Edit::Nest(a, d)),
        1 => (0usize..4000).prop_map(Edit::Truncate),
    ]
}

/// `base` with `edits` applied in order.
fn mutate(base: &str, edits: &[Edit]) -> String {
    let mut lines: Vec<String> = base.lines().map(str::to_string).collect();
    for e in edits {
        if lines.is_empty() {
            break;
        }
        let n = lines.len();
        match e {
            Edit::Delete(i) => {
                lines.remove(i % n);
            }
            Edit::Duplicate(i) => {
                let l = lines[i % n].clone();
                lines.insert(i % n, l);
            }
            Edit::Swap(a, b) => lines.swap(a % n, b % n),
            Edit::Value(i, v) => set_value(&mut lines[i % n], v),
            Edit::Text(i, t) => set_value(&mut lines[i % n], t),
            Edit::Indent(i, deeper) => {
                let l = &mut lines[i % n];
                if *deeper {
                    l.insert_str(0, "  ");
                } else if l.starts_with("  ") {
                    l.replace_range(..2, "");
                }
            }
            Edit::Nest(i, depth) => {
                let v = format!("{}x{}", "[".repeat(*depth), "]".repeat(*depth));
                set_value(&mut lines[i % n], &v);
            }
            Edit::Truncate(at) => {
                let text = lines.join("\n");
                let cut: String = text.chars().take(*at).collect();
                lines = cut.lines().map(str::to_string).collect();
            }
        }
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// Replaces the value of a `key: value` line (the whole line when it has
/// no `: `).
fn set_value(line: &mut String, value: &str) {
    match line.find(": ") {
        Some(at) => line.replace_range(at + 2.., value),
        None => *line = value.to_string(),
    }
}

/// The property: `text` loads, or fails with one line that starts with the
/// file's name and names a line of the text (or none).
pub(super) fn check(text: &str) -> Result<(), ConfigError> {
    let e = match load_str(text, ORIGIN) {
        Ok(_) => return Ok(()),
        Err(e) => e,
    };
    let shown = e.to_string();
    super::assert_one_line("profile error", &shown);
    assert!(shown.starts_with(ORIGIN), "error names no file: {shown}");
    if let Some(line) = e.line {
        // YAML breaks lines at `\n`, `\r\n` and a lone `\r`.
        let lines = text.replace("\r\n", "\n").split(['\n', '\r']).count();
        assert!(
            (1..=lines).contains(&line),
            "error names line {line} of a {lines}-line profile: {shown}"
        );
    }
    Err(e)
}

#[test]
fn the_shipped_profiles_load() {
    for (i, base) in BASES.iter().enumerate() {
        // The pcap profile names files next to it; every other one loads.
        if base.contains("tx_pcap=") || base.contains("rx_pcap=") {
            let _ = check(base);
            continue;
        }
        check(base).unwrap_or_else(|e| panic!("profile {i}: {e}"));
    }
}

proptest! {
    #![proptest_config(super::config(256))]

    /// Mutated profiles load or fail with one clean line.
    #[test]
    fn mutated_profiles_fail_cleanly(
        base in proptest::sample::select(BASES),
        edits in proptest::collection::vec(edit(), 1..6),
    ) {
        let _ = check(&mutate(base, &edits));
    }

    /// Any text at all (a profile's bytes replaced by whatever comes)
    /// fails cleanly.
    #[test]
    fn arbitrary_text_fails_cleanly(
        text in proptest::collection::vec(
            prop_oneof![
                any::<char>(),
                proptest::sample::select(&[':', ' ', '\n', '-', '[', ']', '{', '}', '&', '*', '"', '\'', '#', '?', '|', '>', '!', ','][..]),
            ],
            0..200,
        ).prop_map(String::from_iter),
    ) {
        let _ = check(&text);
    }
}
