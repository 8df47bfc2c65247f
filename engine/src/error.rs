//! The library's one error type.
//!
//! Every fallible entry point of the library returns [`Result<T>`]. The
//! leaves keep their own precise error types (`ConfigError`, `DpdkError`,
//! `LimitsError`, …) and convert into [`Error`] with `?`; each variant
//! displays as the one line the user reads after `landspeed: error: `, and
//! names what is wrong and where (file, line, field, option).

use std::path::{Path, PathBuf};

use crate::config::ConfigError;
use crate::dpdk::DpdkError;
use crate::limits::LimitsError;
use crate::pace::replay::ReplayCliError;
use crate::pace::trace::TraceError;

/// What went wrong, for the user.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A profile error, or a run-time check tied to a profile field:
    /// `file:line: field: message`.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// DPDK refused something, with what landspeed was doing.
    #[error(transparent)]
    Dpdk(#[from] DpdkError),
    /// The EAL refused to start: `DPDK could not start: what: text` and a
    /// hint on what to change (may be empty).
    #[error("DPDK could not start: {source}{hint}")]
    EalStart {
        /// DPDK's error.
        source: DpdkError,
        /// Text appended after DPDK's, starting with its own separator.
        hint: String,
    },
    /// A `limits` input is wrong, or its page could not be rendered.
    #[error(transparent)]
    Limits(#[from] LimitsError),
    /// A `replay` input is wrong (rate, buffer or trace).
    #[error(transparent)]
    Replay(#[from] ReplayCliError),
    /// A departure trace could not be read, parsed or written.
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// `serve` could not start or serve: what, and why.
    #[error("{0}")]
    Serve(String),
    /// A command-line option's value is wrong: `--option value: message`.
    #[error("{option}: {message}")]
    Option {
        /// The option as the user wrote it, with its value (`--json x.json`).
        option: String,
        /// What is wrong with it.
        message: String,
    },
    /// A file could not be read, written or understood: `path: message`.
    #[error("{}: {message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong (the OS error's text, or what is malformed).
        message: String,
    },
    /// A file could not be read or written: `path: OS error`, or
    /// `--option path: OS error` when a command-line option named it.
    #[error("{}: {source}", io_place(.option, .path))]
    Io {
        /// The option that named the file (`--json`), if one did.
        option: Option<&'static str>,
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A JSON file is not what landspeed wrote: `path:line:column: field:
    /// what` (the field as a path, `tx.streams[0].frames`), or
    /// `path:line:column: not a landspeed result: what` when the document
    /// itself is wrong (not JSON, a field missing at the top).
    #[error("{}", json_text(.path, .field, .source))]
    Json {
        /// The file.
        path: PathBuf,
        /// Where in the document, as `tx.frames` (empty: the document).
        field: String,
        /// serde_json's error (its line and column are the file's).
        source: serde_json::Error,
    },
    /// A certification could not go on (a port that received nothing):
    /// `certification stopped: what`.
    #[error("certification stopped: {0}")]
    Certify(String),
}

impl Error {
    /// An error about a command-line option and its value.
    pub fn option(option: impl Into<String>, message: impl std::fmt::Display) -> Self {
        Error::Option {
            option: option.into(),
            message: message.to_string(),
        }
    }

    /// An error about a file.
    pub fn file(path: impl Into<PathBuf>, message: impl std::fmt::Display) -> Self {
        Error::File {
            path: path.into(),
            message: message.to_string(),
        }
    }
}

impl Error {
    /// The EAL refused to start; `hint` follows DPDK's text as it is.
    pub fn eal_start(source: DpdkError, hint: impl Into<String>) -> Self {
        Error::EalStart {
            source,
            hint: hint.into(),
        }
    }

    /// A file that could not be read or written.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            option: None,
            path: path.into(),
            source,
        }
    }

    /// A file named by a command-line `option` (`--json`) that could not be
    /// written or read.
    pub fn io_option(
        option: &'static str,
        path: impl Into<PathBuf>,
        source: std::io::Error,
    ) -> Self {
        Error::Io {
            option: Some(option),
            path: path.into(),
            source,
        }
    }

    /// `path` read as JSON did not fit: `field` is where (empty: the whole
    /// document or its syntax).
    pub fn json(
        path: impl Into<PathBuf>,
        field: impl Into<String>,
        source: serde_json::Error,
    ) -> Self {
        Error::Json {
            path: path.into(),
            field: field.into(),
            source,
        }
    }
}

fn io_place(option: &Option<&str>, path: &Path) -> String {
    match option {
        Some(o) => format!("{o} {}", path.display()),
        None => path.display().to_string(),
    }
}

fn json_text(path: &Path, field: &str, e: &serde_json::Error) -> String {
    // serde_json ends its text with ` at line L column C`; the place goes
    // after the path instead, as in every other located error.
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let what = text.strip_suffix(&suffix).unwrap_or(&text);
    // A quoted value keeps its newline escaped: the message stays one line.
    let what: String = what
        .chars()
        .map(|c| match c.is_control() {
            true => c.escape_debug().to_string(),
            false => c.to_string(),
        })
        .collect();
    let place = match (e.line(), e.column()) {
        (0, _) => path.display().to_string(),
        (line, 0) => format!("{}:{line}", path.display()),
        (line, column) => format!("{}:{line}:{column}", path.display()),
    };
    if field.is_empty() {
        format!("{place}: not a landspeed result: {what}")
    } else {
        format!("{place}: {field}: {what}")
    }
}

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
