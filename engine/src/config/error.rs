//! The one error type of the profile loader.

use std::fmt;

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

    /// Turn a serde_yaml_ng error (syntax, type, unknown or missing key)
    /// into a located error: its own line, its key path split off the
    /// message, its position suffix removed.
    pub(crate) fn from_yaml(origin: &str, err: &serde_yaml_ng::Error) -> ConfigError {
        let location = err.location();
        let mut text = err.to_string();
        if let Some(loc) = &location {
            let suffix = format!(" at line {} column {}", loc.line(), loc.column());
            if let Some(i) = text.find(&suffix) {
                text.replace_range(i..i + suffix.len(), "");
            }
        }
        let text = tidy_positions(&text);
        let (field, message) = split_path(&text);
        ConfigError::new(
            origin,
            location.map(|l| l.line()),
            field.map(str::to_string),
            message,
        )
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:", self.origin)?;
        if let Some(line) = self.line {
            write!(f, "{line}:")?;
        }
        if let Some(field) = &self.field {
            write!(f, " {field}:")?;
        }
        write!(f, " {}", self.message)
    }
}

impl std::error::Error for ConfigError {}

/// serde_yaml_ng puts `key.path: ` before messages about a key. Split it
/// off when the prefix looks like a path (no spaces, path characters only).
fn split_path(text: &str) -> (Option<&str>, &str) {
    if let Some((head, rest)) = text.split_once(": ") {
        let is_path = !head.is_empty()
            && head
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '[' | ']'))
            && head.contains(|c: char| c.is_ascii_alphabetic());
        // A bare word is a path only if a key path has it: serde's own
        // messages ("invalid type: ...") contain a space before the colon.
        if is_path {
            return (Some(head), rest);
        }
    }
    (None, text)
}

/// libyaml's messages end with `, while parsing X at line N column M`:
/// keep the words, say "line N" plainly.
fn tidy_positions(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(" at line ") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + " at line ".len()..];
        let digits = tail.chars().take_while(char::is_ascii_digit).count();
        let after = &tail[digits..];
        if digits > 0 && after.starts_with(" column ") {
            let col = after[" column ".len()..]
                .chars()
                .take_while(char::is_ascii_digit)
                .count();
            out.push_str(" started on line ");
            out.push_str(&tail[..digits]);
            rest = &after[" column ".len() + col..];
        } else {
            out.push_str(" at line ");
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }

    #[test]
    fn path_prefix_split() {
        assert_eq!(
            split_path("eal.cores[1]: invalid type: string \"x\", expected u32"),
            (
                Some("eal.cores[1]"),
                "invalid type: string \"x\", expected u32"
            )
        );
        assert_eq!(
            split_path("invalid type: string \"x\", expected u32"),
            (None, "invalid type: string \"x\", expected u32")
        );
    }

    #[test]
    fn libyaml_positions_are_tidied() {
        assert_eq!(
            tidy_positions(
                "did not find expected key, while parsing a block mapping at line 2 column 3"
            ),
            "did not find expected key, while parsing a block mapping started on line 2"
        );
    }
}
