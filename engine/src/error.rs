//! The library's one error type.
//!
//! Every fallible entry point of the library returns [`Result<T>`]. The
//! leaves keep their own precise error types (`ConfigError`, `DpdkError`,
//! `LimitsError`, …) and convert into [`Error`] with `?`; each variant
//! displays as the one line the user reads after `landspeed: error: `, and
//! names what is wrong and where (file, line, field, option).

use std::path::PathBuf;

use crate::config::ConfigError;
use crate::dpdk::DpdkError;

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

/// The library's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;
