//! Finds the source line of a key path (`streams[1].vlan.id`) in a YAML
//! text, for errors found after deserialising.
//!
//! The text is walked once as a stream of parser events that carry their
//! positions; every mapping key and every sequence item records the line it
//! starts on under its canonical path. Block and flow styles, quoted keys and
//! comments all come out the same. A path that is not present (a missing
//! key, a default) falls back to its nearest present ancestor.

use std::collections::HashMap;

use saphyr_parser::{Event, Parser};

/// Line numbers (1-based) of every key path in one YAML document.
#[derive(Debug, Default, Clone)]
pub struct Locator {
    lines: HashMap<String, usize>,
}

/// One open container while walking the events.
enum Frame {
    /// A mapping at `path`, and what its next node is.
    Map { path: String, next: MapNext },
    /// A sequence at `path`; `next` is the index of the next item.
    Seq { path: String, next: usize },
    /// A container inside a complex (non-scalar) mapping key or its value.
    Skip,
}

/// What the next node of a mapping is.
enum MapNext {
    /// A key.
    Key,
    /// The value of this key.
    Value(String),
    /// The value of a complex key, which is not indexed.
    SkippedValue,
}

/// The kind of node that starts with an event.
enum Node<'a> {
    /// A scalar with its text, or an alias (`None`).
    Leaf(Option<&'a str>),
    /// A mapping.
    Map,
    /// A sequence.
    Seq,
}

impl Locator {
    /// Index `text`. Never fails: a text the parser rejects part-way keeps
    /// the paths seen before the error (serde reports syntax errors itself).
    pub fn new(text: &str) -> Locator {
        let mut locator = Locator::default();
        let mut stack: Vec<Frame> = Vec::new();
        let mut parser = Parser::new_from_str(text);
        let mut documents = 0;
        while let Some(Ok((event, span))) = parser.next_event() {
            let line = span.start.line();
            match event {
                Event::DocumentStart(_) => {
                    documents += 1;
                    if documents > 1 {
                        break; // only the first document is a profile
                    }
                }
                Event::Scalar(value, ..) => {
                    locator.node(&mut stack, Node::Leaf(Some(&value)), line);
                }
                Event::Alias(_) => locator.node(&mut stack, Node::Leaf(None), line),
                Event::MappingStart(..) => locator.node(&mut stack, Node::Map, line),
                Event::SequenceStart(..) => locator.node(&mut stack, Node::Seq, line),
                Event::MappingEnd | Event::SequenceEnd => {
                    stack.pop();
                }
                _ => {}
            }
        }
        locator
    }

    /// Account for a node that starts on `line`.
    fn node(&mut self, stack: &mut Vec<Frame>, node: Node<'_>, line: usize) {
        // The path of the node when it is a value to index, `None` when it
        // is skipped.
        let path = match stack.last_mut() {
            None => {
                self.lines.entry(String::new()).or_insert(line);
                Some(String::new()) // the root
            }
            Some(Frame::Skip) => None,
            Some(Frame::Seq { path, next }) => {
                let item = format!("{path}[{next}]");
                *next += 1;
                self.lines.entry(item.clone()).or_insert(line);
                Some(item)
            }
            Some(Frame::Map { path, next }) => match std::mem::replace(next, MapNext::Key) {
                MapNext::Key => match node {
                    Node::Leaf(Some(key)) => {
                        let full = join(path, key);
                        self.lines.entry(full).or_insert(line);
                        *next = MapNext::Value(key.to_string());
                        return;
                    }
                    // An alias or a container used as a key: not indexed.
                    _ => {
                        *next = MapNext::SkippedValue;
                        None
                    }
                },
                MapNext::Value(key) => Some(join(path, &key)),
                MapNext::SkippedValue => None,
            },
        };
        let frame = match (node, path) {
            (Node::Leaf(_), _) => return,
            (_, None) => Frame::Skip,
            (Node::Map, Some(path)) => Frame::Map {
                path,
                next: MapNext::Key,
            },
            (Node::Seq, Some(path)) => Frame::Seq { path, next: 0 },
        };
        stack.push(frame);
    }

    /// The line of `path` (as in `streams[1].vlan.id`), or of its nearest
    /// ancestor present in the text; `None` when not even the root is known.
    pub fn line(&self, path: &str) -> Option<usize> {
        let mut p = path;
        loop {
            if let Some(&line) = self.lines.get(p) {
                return Some(line);
            }
            if p.is_empty() {
                return None;
            }
            p = parent(p);
        }
    }

    /// The line of `path` itself, without falling back to an ancestor.
    #[cfg(test)]
    pub fn exact(&self, path: &str) -> Option<usize> {
        self.lines.get(path).copied()
    }
}

/// `a.b[2].c` → `a.b[2]` → `a.b` → `a` → ``.
fn parent(path: &str) -> &str {
    match path.rfind(['.', '[']) {
        Some(i) => &path[..i],
        None => "",
    }
}

/// `parent.key`, or `key` at the root.
fn join(parent: &str, key: &str) -> String {
    if parent.is_empty() {
        key.to_string()
    } else {
        format!("{parent}.{key}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BLOCK: &str = "\
# a comment
eal:
  cores: [0, 1,
          2]
  vdevs:
    - net_null0
    - \"net_pcap0,tx_pcap=x.pcap\"
streams:
  - name: a
    vlan: { id: 100, pcp: 3 }
  - name: b   # trailing comment
    'quoted key': 1
    ipv4:
      src: 198.18.0.1
      dst: [198.19.0.1, 198.19.0.2]
  -
    name: c
tx:
- lcore: 1
  streams: [a, b]
";

    #[test]
    fn block_and_flow_paths() {
        let l = Locator::new(BLOCK);
        assert_eq!(l.exact("eal"), Some(2));
        assert_eq!(l.exact("eal.cores"), Some(3));
        assert_eq!(l.exact("eal.cores[1]"), Some(3));
        assert_eq!(l.exact("eal.cores[2]"), Some(4));
        assert_eq!(l.exact("eal.vdevs[0]"), Some(6));
        assert_eq!(l.exact("eal.vdevs[1]"), Some(7));
        assert_eq!(l.exact("streams[0]"), Some(9));
        assert_eq!(l.exact("streams[0].name"), Some(9));
        assert_eq!(l.exact("streams[0].vlan.id"), Some(10));
        assert_eq!(l.exact("streams[0].vlan.pcp"), Some(10));
        assert_eq!(l.exact("streams[1]"), Some(11));
        assert_eq!(l.exact("streams[1].quoted key"), Some(12));
        assert_eq!(l.exact("streams[1].ipv4.src"), Some(14));
        assert_eq!(l.exact("streams[1].ipv4.dst[1]"), Some(15));
        assert_eq!(l.exact("streams[2].name"), Some(17));
        assert_eq!(l.exact("tx[0].lcore"), Some(19));
        assert_eq!(l.exact("tx[0].streams[1]"), Some(20));
    }

    #[test]
    fn missing_paths_fall_back_to_the_nearest_ancestor() {
        let l = Locator::new(BLOCK);
        assert_eq!(l.exact("streams[0].vlan.dei"), None);
        assert_eq!(l.line("streams[0].vlan.dei"), Some(10));
        assert_eq!(l.line("streams[1].udp.src"), Some(11));
        assert_eq!(l.line("rx[0].lcore"), Some(2)); // the root mapping
        assert_eq!(l.line("streams[7]"), Some(8));
    }

    #[test]
    fn flow_mapping_spanning_lines_and_complex_keys() {
        let text = "a: {x: 1,\n  y: [1, {z: 2}]}\n? [k1, k2]\n: {ignored: 1}\nb: &anc {c: 1}\nd: *anc\ne: 5\n";
        let l = Locator::new(text);
        assert_eq!(l.exact("a.x"), Some(1));
        assert_eq!(l.exact("a.y"), Some(2));
        assert_eq!(l.exact("a.y[1].z"), Some(2));
        assert_eq!(l.exact("ignored"), None);
        assert_eq!(l.exact("b.c"), Some(5));
        assert_eq!(l.exact("d"), Some(6));
        assert_eq!(l.exact("e"), Some(7));
    }

    #[test]
    fn broken_text_keeps_what_came_before() {
        let l = Locator::new("a: 1\nb: [1, 2\nc: 3\n");
        assert_eq!(l.exact("a"), Some(1));
        assert_eq!(Locator::new("").line("x"), None);
        // Only the first document counts.
        let l = Locator::new("a: 1\n---\nb: 2\n");
        assert_eq!(l.exact("b"), None);
    }
}
