//! Departure trace files.
//!
//! A trace is plain text, one departure per line, so it can be read,
//! diffed, plotted and written by other tools:
//!
//! ```text
//! landspeed-trace 1
//! tsc_hz 2399987654
//! # tsc frame_len
//! 1000 9130
//! 15640 9130
//! ```
//!
//! The first line names the format and its version; the second gives the
//! TSC frequency in Hz. Each following line is a departure: the TSC at which
//! the PMD accepted the frame, and the frame's size in bytes including the
//! FCS, separated by white space. TSC values never decrease. Blank lines and
//! lines starting with `#` are ignored.

use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use thiserror::Error;

/// The first line of a trace file.
pub const TRACE_MAGIC: &str = "landspeed-trace 1";

/// What is wrong with a trace file.
#[derive(Debug, Error)]
pub enum TraceError {
    /// Reading or writing failed.
    #[error("trace {path}: {source}")]
    Io {
        /// The file (or `-` for a stream).
        path: String,
        /// The underlying error.
        source: io::Error,
    },
    /// A line could not be understood.
    #[error("trace {path}, line {line}: {reason}")]
    Parse {
        /// The file (or `-` for a stream).
        path: String,
        /// 1-based line number.
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
}

/// A recorded (or synthetic) sequence of departures.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trace {
    /// TSC frequency of the timestamps, Hz.
    pub tsc_hz: u64,
    /// `(tsc, frame_len)` in non-decreasing TSC order; frame length
    /// includes the FCS.
    pub departures: Vec<(u64, u32)>,
}

impl Trace {
    /// Writes the trace in the text format to `w`.
    pub fn write_to<W: Write>(&self, w: W) -> io::Result<()> {
        let mut w = BufWriter::new(w);
        writeln!(w, "{TRACE_MAGIC}")?;
        writeln!(w, "tsc_hz {}", self.tsc_hz)?;
        writeln!(w, "# tsc frame_len")?;
        for &(tsc, len) in &self.departures {
            writeln!(w, "{tsc} {len}")?;
        }
        w.flush()
    }

    /// Reads a trace in the text format from `r`; `name` is used in error
    /// messages.
    pub fn read_from<R: BufRead>(r: R, name: &str) -> Result<Trace, TraceError> {
        let parse = |line: usize, reason: String| TraceError::Parse {
            path: name.to_string(),
            line,
            reason,
        };
        let mut tsc_hz = None;
        let mut saw_magic = false;
        let mut departures = Vec::new();
        let mut last = 0u64;
        for (i, line) in r.lines().enumerate() {
            let n = i + 1;
            let line = line.map_err(|source| TraceError::Io {
                path: name.to_string(),
                source,
            })?;
            let t = line.trim();
            if !saw_magic {
                if t != TRACE_MAGIC {
                    return Err(parse(
                        n,
                        format!("expected `{TRACE_MAGIC}` as the first line, found `{t}`"),
                    ));
                }
                saw_magic = true;
                continue;
            }
            if t.is_empty() || t.starts_with('#') {
                continue;
            }
            let mut fields = t.split_whitespace();
            let (a, b) = (fields.next().unwrap_or(""), fields.next());
            if fields.next().is_some() {
                return Err(parse(n, format!("expected two fields, found `{t}`")));
            }
            if tsc_hz.is_none() {
                if a != "tsc_hz" {
                    return Err(parse(n, format!("expected `tsc_hz N`, found `{t}`")));
                }
                let hz: u64 = b.unwrap_or("").parse().map_err(|_| {
                    parse(
                        n,
                        format!("tsc_hz `{}` is not a whole number", b.unwrap_or("")),
                    )
                })?;
                if hz == 0 {
                    return Err(parse(n, "tsc_hz is zero".into()));
                }
                tsc_hz = Some(hz);
                continue;
            }
            let b = b.ok_or_else(|| parse(n, format!("expected `tsc frame_len`, found `{t}`")))?;
            let tsc: u64 = a
                .parse()
                .map_err(|_| parse(n, format!("tsc `{a}` is not a whole number")))?;
            let len: u32 = b
                .parse()
                .map_err(|_| parse(n, format!("frame length `{b}` is not a whole number")))?;
            if len == 0 {
                return Err(parse(n, "frame length is zero".into()));
            }
            if tsc < last {
                return Err(parse(
                    n,
                    format!("tsc {tsc} is earlier than the previous departure {last}"),
                ));
            }
            last = tsc;
            departures.push((tsc, len));
        }
        if !saw_magic {
            return Err(parse(1, "empty file: not a landspeed trace".into()));
        }
        let tsc_hz = tsc_hz.ok_or_else(|| parse(2, "missing `tsc_hz N` line".into()))?;
        Ok(Trace { tsc_hz, departures })
    }

    /// Writes the trace to a file (tests; a run writes its traces whole,
    /// through `output::write_atomic`).
    #[cfg(test)]
    pub fn save(&self, path: &Path) -> Result<(), TraceError> {
        let io_err = |source| TraceError::Io {
            path: path.display().to_string(),
            source,
        };
        let f = std::fs::File::create(path).map_err(io_err)?;
        self.write_to(f).map_err(io_err)
    }

    /// Reads a trace from a file.
    pub fn load(path: &Path) -> Result<Trace, TraceError> {
        let f =
            crate::input::open_regular(path, crate::input::MAX_TRACE_BYTES).map_err(|source| {
                TraceError::Io {
                    path: path.display().to_string(),
                    source,
                }
            })?;
        Trace::read_from(BufReader::new(f), &path.display().to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_a_file() {
        let t = Trace {
            tsc_hz: 2_399_987_654,
            departures: vec![(1000, 9130), (15_640, 9130), (15_640, 64)],
        };
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.trace");
        t.save(&p).unwrap();
        assert_eq!(Trace::load(&p).unwrap(), t);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.starts_with("landspeed-trace 1\ntsc_hz 2399987654\n"));
    }

    fn read(s: &str) -> Result<Trace, TraceError> {
        Trace::read_from(s.as_bytes(), "x")
    }

    #[test]
    fn errors_name_the_line() {
        let ok = "landspeed-trace 1\ntsc_hz 1000\n\n# c\n1 64\n2 64\n";
        assert_eq!(read(ok).unwrap().departures, vec![(1, 64), (2, 64)]);
        let e = read("landspeed-trace 1\ntsc_hz 1000\n1 64\n2 sixty\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "trace x, line 4: frame length `sixty` is not a whole number"
        );
        let e = read("landspeed-trace 1\ntsc_hz 1000\n5 64\n4 64\n").unwrap_err();
        assert!(e.to_string().contains("line 4"), "{e}");
        let e = read("hello\n").unwrap_err();
        assert!(e.to_string().contains("line 1"), "{e}");
        let e = read("landspeed-trace 1\n1 64\n").unwrap_err();
        assert!(e.to_string().contains("line 2: expected `tsc_hz N`"), "{e}");
        assert!(read("").is_err());
        assert!(read("landspeed-trace 1\ntsc_hz 0\n").is_err());
        assert!(read("landspeed-trace 1\ntsc_hz 10\n1 64 5\n").is_err());
        assert!(read("landspeed-trace 1\n").is_err());
    }
}
