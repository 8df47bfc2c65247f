//! The profile's YAML, read once: the text becomes a tree of [`Node`]s that
//! carry their line, and serde deserialises the profile from that tree, so
//! that every error (syntax, unknown key, wrong type, missing key) names
//! its line and key path.
//!
//! Scalars resolve as YAML 1.2's core schema does (`~`/`null`, `true`,
//! `false`, integers, floats, else text; quoted scalars are text). Aliases
//! are expanded within a budget of [`MAX_NODES`] values and nesting is
//! limited to [`MAX_DEPTH`] levels, so an alias bomb or a deeply nested
//! text is refused at once with its line.

use std::cell::Cell;
use std::collections::HashMap;
use std::fmt;

use saphyr_parser::{Event, Parser, ScalarStyle, Span, Tag};
use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use serde::forward_to_deserialize_any;

/// Deepest nesting of lists and mappings accepted.
pub const MAX_DEPTH: usize = 64;

/// Most values a profile may hold once its aliases are expanded.
pub const MAX_NODES: usize = 100_000;

/// One YAML node and the line (1-based) it starts on.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Node {
    /// Line of the node's first character.
    pub line: usize,
    /// What the node holds.
    pub kind: Kind,
}

/// The content of a [`Node`].
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Kind {
    /// A scalar's text; `plain` when it was not quoted (nor a block
    /// scalar, nor tagged `!!str`), so that it may be a number or a bool.
    Scalar { text: String, plain: bool },
    /// A list.
    Seq(Vec<Node>),
    /// A mapping's entries in text order: (key, value).
    Map(Vec<(Node, Node)>),
}

/// Why the text is not YAML we accept, and on which line.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// A container being read.
struct Open {
    line: usize,
    anchor: usize,
    kind: OpenKind,
}

/// What a container being read holds so far.
enum OpenKind {
    /// A list's items.
    Seq(Vec<Node>),
    /// A mapping's entries, and the key whose value comes next.
    Map(Vec<(Node, Node)>, Option<Node>),
}

/// Reads events into a tree.
struct Builder {
    stack: Vec<Open>,
    /// Completed anchored nodes and their sizes, by anchor id.
    anchors: HashMap<usize, (Node, usize)>,
    /// Values read so far, aliases expanded.
    nodes: usize,
    root: Option<Node>,
    /// The text's last line: nothing is placed after it.
    last: usize,
}

/// Parses `text`: its only document as a tree, `None` when the text holds
/// no document at all (nothing but comments and blank lines).
pub(crate) fn parse(text: &str) -> Result<Option<Node>, SyntaxError> {
    let mut parser = Parser::new_from_str(text);
    let mut b = Builder {
        stack: Vec::new(),
        anchors: HashMap::new(),
        nodes: 0,
        root: None,
        last: last_line(text),
    };
    let mut documents = 0;
    while let Some(next) = parser.next_event() {
        let (event, span) = next.map_err(|e| SyntaxError {
            // At the end of the text the scanner is past the last line.
            line: e.marker().line().min(b.last),
            message: match e.info() {
                // The scanner's own limit on `[` and `{` nesting.
                "recursion limit exceeded" => too_deep(),
                info => info.to_string(),
            },
        })?;
        if let Event::DocumentStart(_) = event {
            documents += 1;
            if documents > 1 {
                return Err(b.error(
                    &span,
                    "the file holds more than one YAML document (a second `---`): \
                     a profile is one document",
                ));
            }
        }
        b.event(event, &span).map_err(|e| SyntaxError {
            line: e.line.min(b.last),
            ..e
        })?;
    }
    Ok(b.root)
}

impl Builder {
    /// The line `span` starts on; at the end of the text (an empty value
    /// there) the scanner is past the last line, which names it instead.
    fn line(&self, span: &Span) -> usize {
        span.start.line().min(self.last)
    }

    fn error(&self, span: &Span, message: impl Into<String>) -> SyntaxError {
        SyntaxError {
            line: self.line(span),
            message: message.into(),
        }
    }

    /// Accounts for `count` more values.
    fn count(&mut self, span: &Span, count: usize) -> Result<(), SyntaxError> {
        self.nodes = self.nodes.saturating_add(count);
        if self.nodes > MAX_NODES {
            return Err(self.error(
                span,
                format!(
                    "the profile holds more than {MAX_NODES} values once its aliases are \
                     expanded: alias less (an alias of aliases multiplies)"
                ),
            ));
        }
        Ok(())
    }

    fn event(&mut self, event: Event<'_>, span: &Span) -> Result<(), SyntaxError> {
        let line = self.line(span);
        match event {
            Event::Scalar(text, style, anchor, tag) => {
                self.count(span, 1)?;
                let plain = match tag.as_deref() {
                    None => style == ScalarStyle::Plain,
                    Some(t) => core_tag(t, span, &["str", "int", "float", "bool", "null"])?
                        .is_some_and(|s| s != "str"),
                };
                let kind = Kind::Scalar {
                    text: text.into_owned(),
                    plain,
                };
                self.done(Node { line, kind }, anchor, span)
            }
            Event::Alias(id) => {
                let Some((node, size)) = self.anchors.get(&id).cloned() else {
                    return Err(self.error(span, "an alias to a value that is not complete yet"));
                };
                self.count(span, size)?;
                self.done(node, 0, span)
            }
            Event::SequenceStart(anchor, tag) => {
                self.open(OpenKind::Seq(Vec::new()), anchor, tag.as_deref(), span)
            }
            Event::MappingStart(anchor, tag) => self.open(
                OpenKind::Map(Vec::new(), None),
                anchor,
                tag.as_deref(),
                span,
            ),
            Event::SequenceEnd | Event::MappingEnd => {
                let open = self.stack.pop().expect("the parser balances its events");
                let kind = match open.kind {
                    OpenKind::Seq(items) => Kind::Seq(items),
                    OpenKind::Map(entries, _) => Kind::Map(entries),
                };
                let node = Node {
                    line: open.line,
                    kind,
                };
                self.done(node, open.anchor, span)
            }
            _ => Ok(()),
        }
    }

    /// Starts a list or a mapping.
    fn open(
        &mut self,
        kind: OpenKind,
        anchor: usize,
        tag: Option<&Tag>,
        span: &Span,
    ) -> Result<(), SyntaxError> {
        if let Some(t) = tag {
            let want = match kind {
                OpenKind::Seq(_) => "seq",
                OpenKind::Map(..) => "map",
            };
            core_tag(t, span, &[want])?;
        }
        self.count(span, 1)?;
        if self.stack.len() >= MAX_DEPTH {
            return Err(self.error(span, too_deep()));
        }
        let line = self.line(span);
        self.stack.push(Open { line, anchor, kind });
        Ok(())
    }

    /// Places a completed node in its parent, and records it under its
    /// anchor.
    fn done(&mut self, node: Node, anchor: usize, span: &Span) -> Result<(), SyntaxError> {
        if anchor != 0 {
            let size = size(&node);
            self.count(span, size)?; // the copy kept for aliases
            self.anchors.insert(anchor, (node.clone(), size));
        }
        match self.stack.last_mut() {
            None => self.root = Some(node),
            Some(Open {
                kind: OpenKind::Seq(items),
                ..
            }) => items.push(node),
            Some(Open {
                kind: OpenKind::Map(entries, key),
                ..
            }) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push((k, node)),
            },
        }
        Ok(())
    }
}

/// The number of the text's last line (1 for an empty text): YAML breaks
/// lines at `\n`, `\r\n` and a lone `\r`; a final break ends the last line
/// rather than starting one.
fn last_line(text: &str) -> usize {
    let b = text.as_bytes();
    let breaks = (0..b.len())
        .filter(|&i| b[i] == b'\n' || (b[i] == b'\r' && b.get(i + 1) != Some(&b'\n')))
        .count();
    let open = !text.is_empty() && !text.ends_with(['\n', '\r']);
    (breaks + usize::from(open)).max(1)
}

fn too_deep() -> String {
    format!("lists and mappings nest deeper than {MAX_DEPTH} levels")
}

/// The suffix of a core-schema tag (`!!str` → `str`) if it is one of
/// `allowed`; `None` for the non-specific tag `!`; an error otherwise.
fn core_tag<'t>(
    tag: &'t Tag,
    span: &Span,
    allowed: &[&str],
) -> Result<Option<&'t str>, SyntaxError> {
    if tag.handle == "!" && tag.suffix.is_empty() {
        return Ok(None);
    }
    if tag.is_yaml_core_schema() && allowed.contains(&tag.suffix.as_str()) {
        return Ok(Some(&tag.suffix));
    }
    Err(SyntaxError {
        line: span.start.line(),
        message: format!("the tag `{tag}` is not supported here: write the value without it"),
    })
}

/// Number of values in `node`, itself included.
fn size(node: &Node) -> usize {
    match &node.kind {
        Kind::Scalar { .. } => 1,
        Kind::Seq(items) => 1 + items.iter().map(size).sum::<usize>(),
        Kind::Map(entries) => {
            1 + entries
                .iter()
                .map(|(k, v)| size(k) + size(v))
                .sum::<usize>()
        }
    }
}

// ---- scalars ----

/// What a plain scalar means under the core schema.
enum Resolved<'de> {
    Null,
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Text(&'de str),
}

fn resolve(text: &str, plain: bool) -> Resolved<'_> {
    if !plain {
        return Resolved::Text(text);
    }
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        _ => {}
    }
    if let Some(n) = integer(text) {
        return n;
    }
    // Leading zeros before digits only (`0123`) are text in YAML 1.2.
    let unsigned = match text.strip_prefix('+') {
        Some(u) if u.starts_with(['+', '-']) => return Resolved::Text(text),
        Some(u) => u,
        None => text,
    };
    if !leading_zero_digits(text) {
        if let Ok(f) = unsigned.parse::<f64>() {
            if f.is_finite() {
                return Resolved::Float(f);
            }
        }
    }
    Resolved::Text(text)
}

/// An integer: decimal, or `0x`, `0o`, `0b` with an optional sign.
fn integer(text: &str) -> Option<Resolved<'_>> {
    let (negative, digits) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    if digits.starts_with(['+', '-']) || digits.is_empty() {
        return None;
    }
    let (radix, body) = match digits.get(..2) {
        Some("0x") => (16, &digits[2..]),
        Some("0o") => (8, &digits[2..]),
        Some("0b") => (2, &digits[2..]),
        _ if leading_zero_digits(text) => return None,
        _ => (10, digits),
    };
    if body.is_empty() || body.starts_with(['+', '-']) {
        return None;
    }
    let magnitude = u64::from_str_radix(body, radix).ok()?;
    if !negative {
        return Some(Resolved::Unsigned(magnitude));
    }
    if magnitude == 0 {
        return Some(Resolved::Unsigned(0));
    }
    0i64.checked_sub_unsigned(magnitude).map(Resolved::Signed)
}

fn leading_zero_digits(text: &str) -> bool {
    let t = text.strip_prefix(['-', '+']).unwrap_or(text);
    t.len() > 1 && t.starts_with('0') && t[1..].bytes().all(|b| b.is_ascii_digit())
}

// ---- serde ----

/// A deserialisation error, with the line and key path of the node at
/// fault once it is known.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DeError {
    /// What is wrong, in serde's words.
    pub message: String,
    /// 1-based line of the node at fault.
    pub line: Option<usize>,
    /// Key path of the node at fault (`streams[1].vlan`), empty at the root.
    pub path: String,
}

impl DeError {
    /// Locates the error at `line`/`path` unless an inner node did.
    fn at(mut self, line: usize, path: &str) -> DeError {
        if self.line.is_none() {
            self.line = Some(line);
            self.path = path.to_string();
        }
        self
    }
}

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> DeError {
        DeError {
            message: msg.to_string(),
            line: None,
            path: String::new(),
        }
    }
}

/// Deserialises a `T` from `node`, the document's root.
pub(crate) fn from_node<'de, T: de::Deserialize<'de>>(node: &'de Node) -> Result<T, DeError> {
    T::deserialize(NodeDe {
        node,
        path: String::new(),
    })
}

/// A serde deserializer over one node at key path `path`.
struct NodeDe<'de> {
    node: &'de Node,
    path: String,
}

impl<'de> NodeDe<'de> {
    fn any<V: Visitor<'de>>(&self, visitor: V) -> Result<V::Value, DeError> {
        match &self.node.kind {
            Kind::Scalar { text, plain } => match resolve(text, *plain) {
                Resolved::Null => visitor.visit_unit(),
                Resolved::Bool(b) => visitor.visit_bool(b),
                Resolved::Unsigned(n) => visitor.visit_u64(n),
                Resolved::Signed(n) => visitor.visit_i64(n),
                Resolved::Float(f) => visitor.visit_f64(f),
                Resolved::Text(t) => visitor.visit_borrowed_str(t),
            },
            Kind::Seq(items) => visitor.visit_seq(SeqDe {
                items: items.iter(),
                path: &self.path,
                index: 0,
            }),
            Kind::Map(entries) => {
                let key_line = Cell::new(None);
                let r = visitor.visit_map(MapDe {
                    entries: entries.iter(),
                    path: &self.path,
                    value: None,
                    key_line: &key_line,
                });
                // An error raised between a key and its value (a duplicate
                // key) is on the key's line.
                r.map_err(|e| match key_line.get() {
                    Some(line) => e.at(line, &self.path),
                    None => e,
                })
            }
        }
    }

    fn locate<T>(&self, r: Result<T, DeError>) -> Result<T, DeError> {
        r.map_err(|e| e.at(self.node.line, &self.path))
    }
}

impl<'de> Deserializer<'de> for NodeDe<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.locate(self.any(visitor))
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.node.kind {
            Kind::Scalar { text, plain } if matches!(resolve(text, *plain), Resolved::Null) => {
                self.locate(visitor.visit_none())
            }
            _ => visitor.visit_some(self),
        }
    }

    /// Any scalar is text to a string, as written (`name: 5` is `"5"`).
    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match &self.node.kind {
            Kind::Scalar { text, .. } => self.locate(visitor.visit_borrowed_str(text)),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.deserialize_str(visitor)
    }

    /// A struct is read from a mapping only (serde would also take a list).
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        match &self.node.kind {
            Kind::Seq(_) => {
                let e = de::Error::invalid_type(de::Unexpected::Seq, &visitor);
                self.locate(Err(e))
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, DeError> {
        visitor.visit_newtype_struct(self)
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf
        unit unit_struct seq tuple tuple_struct map enum ignored_any
    }
}

/// The items of a list.
struct SeqDe<'de, 'p> {
    items: std::slice::Iter<'de, Node>,
    path: &'p str,
    index: usize,
}

impl<'de> de::SeqAccess<'de> for SeqDe<'de, '_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        let Some(node) = self.items.next() else {
            return Ok(None);
        };
        let path = format!("{}[{}]", self.path, self.index);
        self.index += 1;
        seed.deserialize(NodeDe { node, path }).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The entries of a mapping.
struct MapDe<'de, 'p> {
    entries: std::slice::Iter<'de, (Node, Node)>,
    path: &'p str,
    /// The value of the key just read, and its path.
    value: Option<(&'de Node, String)>,
    /// The line of the key just read, until its value is read.
    key_line: &'p Cell<Option<usize>>,
}

impl<'de> de::MapAccess<'de> for MapDe<'de, '_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let Some((key, value)) = self.entries.next() else {
            self.key_line.set(None);
            return Ok(None);
        };
        let name = match &key.kind {
            Kind::Scalar { text, .. } => text.as_str(),
            _ => "?",
        };
        self.value = Some((value, join(self.path, name)));
        // An error about a key (unknown, not text) is the mapping's, on
        // the key's line.
        let de = NodeDe {
            node: key,
            path: self.path.to_string(),
        };
        let k = seed.deserialize(de)?;
        self.key_line.set(Some(key.line));
        Ok(Some(k))
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let (node, path) = self.value.take().expect("a value follows its key");
        self.key_line.set(None);
        seed.deserialize(NodeDe { node, path })
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

/// `parent.key`, or `key` at the root.
pub(crate) fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

// ---- Value ----

/// A YAML value whose syntax is checked later (rates, ranges, patterns):
/// what serde gives for a field the profile keeps open.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    /// `~`, `null` or nothing.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An integer or a float.
    Number(Number),
    /// Text.
    String(String),
    /// A list.
    Sequence(Vec<Value>),
    /// A mapping.
    Mapping(Mapping),
}

impl Value {
    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }
}

/// A YAML number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Number {
    /// A whole number ≥ 0.
    Unsigned(u64),
    /// A whole number < 0.
    Signed(i64),
    /// A number with a fraction or an exponent.
    Float(f64),
}

impl Number {
    /// The number if it is a whole number ≥ 0.
    pub fn as_u64(&self) -> Option<u64> {
        match *self {
            Number::Unsigned(n) => Some(n),
            _ => None,
        }
    }

    /// The number if it is a whole number that fits an `i64`.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Number::Unsigned(n) => i64::try_from(n).ok(),
            Number::Signed(n) => Some(n),
            Number::Float(_) => None,
        }
    }
}

impl fmt::Display for Number {
    /// As YAML writes it: `5`, `-3`, `2.5`, `3.0`, `.inf`, `.nan`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Number::Unsigned(n) => write!(f, "{n}"),
            Number::Signed(n) => write!(f, "{n}"),
            Number::Float(x) if x.is_nan() => f.write_str(".nan"),
            Number::Float(x) if x.is_infinite() => {
                f.write_str(if x > 0.0 { ".inf" } else { "-.inf" })
            }
            Number::Float(x) if x.fract() == 0.0 && x.abs() < 1e16 => write!(f, "{x:.1}"),
            Number::Float(x) => write!(f, "{x}"),
        }
    }
}

/// A YAML mapping: its entries in text order, keys unique.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Mapping(Vec<(Value, Value)>);

impl Mapping {
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The entries in text order.
    pub fn iter(&self) -> impl Iterator<Item = (&Value, &Value)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    /// The keys in text order.
    pub fn keys(&self) -> impl Iterator<Item = &Value> {
        self.0.iter().map(|(k, _)| k)
    }

    /// The value of the text key `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.iter()
            .find(|(k, _)| k.as_str() == Some(key))
            .map(|(_, v)| v)
    }
}

impl<'de> de::Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any YAML value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        de::Deserialize::deserialize(d)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(Number::Unsigned(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(match u64::try_from(v) {
            Ok(u) => Number::Unsigned(u),
            Err(_) => Number::Signed(v),
        }))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        Ok(Value::Number(Number::Float(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Sequence(out))
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out: Vec<(Value, Value)> = Vec::new();
        while let Some(k) = map.next_key::<Value>()? {
            if out.iter().any(|(seen, _)| *seen == k) {
                let shown = describe(&k);
                return Err(de::Error::custom(format!(
                    "duplicate entry with key {shown}"
                )));
            }
            out.push((k, map.next_value()?));
        }
        Ok(Value::Mapping(Mapping(out)))
    }
}

/// A short description of a YAML value for messages: `5000`, `"x"`, `a list`.
pub(crate) fn describe(v: &Value) -> String {
    match v {
        Value::String(s) => format!("{s:?}"),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Null => "null".into(),
        Value::Sequence(_) => "a list".into(),
        Value::Mapping(_) => "a mapping".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of `text`, a one-line YAML document.
    fn value(text: &str) -> Value {
        from_node(&parse(text).unwrap().unwrap()).unwrap()
    }

    fn num(text: &str) -> Option<Number> {
        match value(text) {
            Value::Number(n) => Some(n),
            _ => None,
        }
    }

    #[test]
    fn plain_scalars_resolve_by_the_core_schema() {
        for null in ["~", "null", "Null", "NULL", "''"] {
            let want = if null == "''" {
                Value::String(String::new())
            } else {
                Value::Null
            };
            assert_eq!(value(null), want, "{null}");
        }
        assert_eq!(value("x:"), value("x: ~"));
        assert_eq!(value("True"), Value::Bool(true));
        assert_eq!(value("FALSE"), Value::Bool(false));
        assert_eq!(value("yes"), Value::String("yes".into()));
        assert_eq!(num("42"), Some(Number::Unsigned(42)));
        assert_eq!(num("+42"), Some(Number::Unsigned(42)));
        assert_eq!(num("-42"), Some(Number::Signed(-42)));
        assert_eq!(num("0x1F"), Some(Number::Unsigned(31)));
        assert_eq!(num("-0o17"), Some(Number::Signed(-15)));
        assert_eq!(num("0b101"), Some(Number::Unsigned(5)));
        assert_eq!(num("-9223372036854775808"), Some(Number::Signed(i64::MIN)));
        assert_eq!(num("2.5"), Some(Number::Float(2.5)));
        assert_eq!(num("1e3"), Some(Number::Float(1000.0)));
        assert_eq!(num(".inf"), Some(Number::Float(f64::INFINITY)));
        assert_eq!(num("-.inf"), Some(Number::Float(f64::NEG_INFINITY)));
        assert!(matches!(num(".nan"), Some(Number::Float(x)) if x.is_nan()));
        for text in [
            "0100",
            "+-5",
            "0x",
            "inf",
            "nan",
            "1_000",
            "5G",
            "1024-1087",
            "198.18.0.1",
        ] {
            assert_eq!(value(text), Value::String(text.into()), "{text}");
        }
        // Quoted, block and `!!str` scalars are text; `!!int` resolves.
        assert_eq!(value("'5'"), Value::String("5".into()));
        assert_eq!(value("|\n  5\n"), Value::String("5\n".into()));
        assert_eq!(value("!!str 5"), Value::String("5".into()));
        assert_eq!(value("!!int 5"), Value::Number(Number::Unsigned(5)));
    }

    #[test]
    fn numbers_print_as_yaml_writes_them() {
        let shown: Vec<String> = [
            Number::Unsigned(5),
            Number::Signed(-3),
            Number::Float(2.5),
            Number::Float(3.0),
            Number::Float(f64::NAN),
            Number::Float(f64::NEG_INFINITY),
        ]
        .iter()
        .map(Number::to_string)
        .collect();
        assert_eq!(shown, ["5", "-3", "2.5", "3.0", ".nan", "-.inf"]);
        assert_eq!(Number::Unsigned(5).as_i64(), Some(5));
        assert_eq!(Number::Unsigned(u64::MAX).as_i64(), None);
        assert_eq!(Number::Signed(-1).as_u64(), None);
        assert_eq!(Number::Float(1.0).as_i64(), None);
    }

    #[test]
    fn mappings_keep_their_order_and_refuse_duplicates() {
        let Value::Mapping(m) = value("{b: 1, a: [x, 2]}") else {
            panic!()
        };
        assert_eq!(m.len(), 2);
        let keys: Vec<_> = m.keys().map(|k| k.as_str().unwrap()).collect();
        assert_eq!(keys, ["b", "a"]);
        let a = Value::Sequence(vec![
            Value::String("x".into()),
            Value::Number(Number::Unsigned(2)),
        ]);
        assert_eq!(m.get("a"), Some(&a));
        assert_eq!(m.get("c"), None);
        let root = parse("x:\n  y: {a: 1,\n   a: 2}\n").unwrap().unwrap();
        let e = from_node::<Value>(&root).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.line, e.path.as_str()),
            ("duplicate entry with key \"a\"", Some(3), "x.y")
        );
    }

    #[test]
    fn a_duplicate_key_is_named_on_its_own_line() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct S {
            a: u32,
            b: u32,
        }
        let root = parse("a: 1\nb: 2\n\na: 3\n").unwrap().unwrap();
        let e = from_node::<S>(&root).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.line, e.path.as_str()),
            ("duplicate field `a`", Some(4), "")
        );
        // A missing key is still the mapping's, on its first line.
        let root = parse("\nb: 2\n").unwrap().unwrap();
        let e = from_node::<S>(&root).unwrap_err();
        assert_eq!((e.message.as_str(), e.line), ("missing field `a`", Some(2)));
    }

    #[test]
    fn an_error_at_the_end_names_the_last_line() {
        assert_eq!(parse("[").unwrap_err().line, 1);
        assert_eq!(parse("a: [1,\n").unwrap_err().line, 1);
        assert_eq!(parse("a:\r  - [\r\r").unwrap_err().line, 3);
        // An empty key at the very end is on the last line too.
        assert_eq!(parse("? ").unwrap().unwrap().line, 1);
        assert_eq!(
            (last_line(""), last_line("a"), last_line("a\r\nb\rc\n")),
            (1, 1, 3)
        );
    }

    #[test]
    fn nodes_carry_their_lines() {
        let root = parse("# c\na:\n  - 1\n  - {b: 2}\n").unwrap().unwrap();
        assert_eq!(root.line, 2);
        let Kind::Map(entries) = &root.kind else {
            panic!()
        };
        let (key, list) = &entries[0];
        assert_eq!((key.line, list.line), (2, 3));
        let Kind::Seq(items) = &list.kind else {
            panic!()
        };
        assert_eq!((items[0].line, items[1].line), (3, 4));
        assert_eq!(parse("# only a comment\n").unwrap(), None);
        let e = parse("a: [1,\nb: 2\n").unwrap_err();
        assert!(e.line >= 2, "{e:?}");
    }
}
