//! Every input a fuzz target once failed on, replayed: the files under
//! `tests/fuzz-corpus/<target>/`, each named after what it broke.

use std::path::{Path, PathBuf};

/// The corpus files of `target`, sorted by name.
fn files(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fuzz-corpus")
        .join(target);
    // A target with no crasher yet has no folder (git keeps no empty one).
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("a corpus entry").path())
        .filter(|p| p.is_file() && p.file_name().is_some_and(|n| n != "README.md"))
        .collect();
    out.sort();
    out
}

fn read(p: &Path) -> Vec<u8> {
    std::fs::read(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn profile_corpus() {
    for p in files("profile") {
        let text = String::from_utf8_lossy(&read(&p)).into_owned();
        eprintln!("{}", p.display());
        let _ = super::profile::check(&text);
    }
}

#[test]
fn frame_corpus() {
    for p in files("frame") {
        eprintln!("{}", p.display());
        super::frame::check_bytes(&read(&p));
    }
}

#[test]
fn ptp_corpus() {
    for p in files("ptp") {
        eprintln!("{}", p.display());
        let decoded = super::ptp::check_bytes(&read(&p));
        // A `seed-` file is a response captured from a real ptp4l.
        let seed = p
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("seed-"));
        assert!(!seed || decoded.is_some(), "a captured response decodes");
    }
}

/// A trace corpus file: the trace, then optionally a last line
/// `# replay BPS BUFFER` that replays it.
#[test]
fn trace_corpus() {
    for p in files("trace") {
        eprintln!("{}", p.display());
        let bytes = read(&p);
        let Some(t) = super::trace::check_text(&bytes) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for l in text.lines() {
            let f: Vec<&str> = l.split_whitespace().collect();
            if let ["#", "replay", bps, buffer] = f[..] {
                super::trace::check_replay(&t, bps.parse().unwrap(), buffer.parse().unwrap());
            }
        }
    }
}

/// JSON corpus files come in pairs, `NAME.tx.json` and `NAME.rx.json`; a
/// missing side is the seed's.
#[test]
fn json_corpus() {
    let dir = tempfile::tempdir().unwrap();
    let all = files("json");
    let names: std::collections::BTreeSet<String> = all
        .iter()
        .filter_map(|p| {
            p.file_name()?
                .to_str()?
                .split('.')
                .next()
                .map(str::to_string)
        })
        .collect();
    let side = |name: &str, side: &str, seed: &str| {
        let p = all.iter().find(|p| {
            p.file_name().and_then(|n| n.to_str()) == Some(&format!("{name}.{side}.json"))
        });
        p.map_or(seed.to_string(), |p| {
            String::from_utf8_lossy(&read(p)).into_owned()
        })
    };
    for name in names {
        eprintln!("{name}");
        let tx = side(&name, "tx", super::json::SEED_TX);
        let rx = side(&name, "rx", super::json::SEED_RX);
        super::json::check(dir.path(), &tx, &rx);
    }
}
