//! The one error type of the profile loader.

use std::fmt;

use std::borrow::Cow;

use super::yaml::DeError;

/// Why a profile could not be loaded. Displays as one line,
/// `origin:line: field.path: message`, e.g.
/// `configs/x.yaml:14: streams[1].vlan.id: 5000 is out of range 0..=4094`;
/// the line is left out only when it cannot be known (a missing file), the
/// field when the error is not about one key (a syntax error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The file path (or another name for built-in or in-memory text).
    pub origin: String,
    /// 1-based line in the source, when known.
    pub line: Option<usize>,
    /// Path of the offending key, as `streams[1].vlan.id`, when there is one.
    pub field: Option<String>,
    /// What is wrong, in words.
    pub message: String,
}

impl ConfigError {
    /// An error about `field` at `line` of `origin`.
    pub fn new(
        origin: &str,
        line: Option<usize>,
        field: Option<String>,
        message: impl Into<String>,
    ) -> ConfigError {
        ConfigError {
            origin: origin.to_string(),
            line,
            field: field.filter(|f| !f.is_empty()),
            message: message.into(),
        }
    }

    /// Turn a deserialisation error (wrong type, unknown or missing key)
    /// into a located error: its node's line and key path.
    pub(crate) fn from_de(origin: &str, err: DeError) -> ConfigError {
        ConfigError::new(origin, err.line, Some(err.path), err.message)
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A value quoted with its newline must not split the line.
        write!(f, "{}:", escape_controls(&self.origin))?;
        if let Some(line) = self.line {
            write!(f, "{line}:")?;
        }
        if let Some(field) = &self.field {
            write!(f, " {}:", escape_controls(field))?;
        }
        write!(f, " {}", escape_controls(&self.message))
    }
}

impl std::error::Error for ConfigError {}

/// `text` with its control characters (a newline, a tab, a NUL) written
/// as escapes (`\\n`), so that a value quoted in a message keeps the
/// message on one line.
pub(crate) fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("plain ü"), "plain ü");
        assert_eq!(escape_controls("a\nb\r\t\0\u{1b}"), "a\\nb\\r\\t\\0\\u{1b}");
    }

    #[test]
    fn display_formats() {
        let e = ConfigError::new(
            "configs/x.yaml",
            Some(14),
            Some("streams[1].vlan.id".into()),
            "5000 is out of range 0..=4094",
        );
        assert_eq!(
            e.to_string(),
            "configs/x.yaml:14: streams[1].vlan.id: 5000 is out of range 0..=4094"
        );
        let e = ConfigError::new("nope.yaml", None, None, "cannot read: gone");
        assert_eq!(e.to_string(), "nope.yaml: cannot read: gone");
        let e = ConfigError::new("a.yaml", Some(3), Some(String::new()), "bad");
        assert_eq!(e.to_string(), "a.yaml:3: bad");
        let e = ConfigError::new("a.yaml", Some(3), Some("x\ny".into()), "`5\nG`\t\0");
        assert_eq!(e.to_string(), "a.yaml:3: x\\ny: `5\\nG`\\t\\0");
    }
}
