//! The core every check of a profile shares: where an error is
//! located (file, line, field) and how relative paths are resolved. The
//! checks themselves are `impl Checker` blocks in the files of what they
//! check: validate.rs (the profile as a whole, `streams:`, `run:` and the
//! checks the sections share), eal.rs, ports.rs, tx.rs, rx.rs (a section
//! each), stream.rs (each stream's fields), certify.rs (the `certify:`
//! section).

use std::path::{Path, PathBuf};

use super::error::ConfigError;
use super::locate::Locator;

/// Locates errors and resolves paths while checking one profile.
pub(crate) struct Checker<'a> {
    /// Name of the source in messages.
    pub origin: &'a str,
    /// Lines of the key paths of the source.
    pub locator: Locator,
    /// Folder relative paths are resolved against; `None` leaves them as
    /// written (relative to the working directory).
    pub base: Option<PathBuf>,
}

impl Checker<'_> {
    /// An error about the key at `field`, located in the source.
    pub fn err(&self, field: impl Into<String>, message: impl Into<String>) -> ConfigError {
        let field = field.into();
        ConfigError::new(self.origin, self.locator.line(&field), Some(field), message)
    }

    /// `path` resolved against the profile's folder when relative.
    pub fn resolve(&self, path: &str) -> PathBuf {
        let p = Path::new(path);
        match &self.base {
            Some(base) if p.is_relative() => base.join(p),
            _ => p.to_path_buf(),
        }
    }

    /// Parse a scalar with `FromStr`, the error naming `field`.
    pub fn parse<T>(&self, field: &str, text: &str) -> Result<T, ConfigError>
    where
        T: std::str::FromStr,
        T::Err: std::fmt::Display,
    {
        text.trim()
            .parse::<T>()
            .map_err(|e| self.err(field, e.to_string()))
    }
}
