//! Finds the source line of a key path (`streams[1].vlan.id`), for errors
//! found after deserialising.
//!
//! The profile's tree is walked once: every mapping key and every sequence
//! item records the line it starts on under its canonical path. Block and
//! flow styles, quoted keys and comments all come out the same. A path
//! that is not present (a missing key, a default) falls back to its nearest
//! present ancestor.

use std::collections::HashMap;

use super::yaml::{join, Kind, Node};

/// Line numbers (1-based) of every key path in one YAML document.
#[derive(Debug, Default, Clone)]
pub struct Locator {
    lines: HashMap<String, usize>,
    /// Fields whose value the command line replaced, with the option that
    /// did (`tx[0].rate` → `--rate`): errors about them blame the option.
    pub(crate) overrides: HashMap<String, &'static str>,
}

impl Locator {
    /// Index the document `root`.
    pub(crate) fn new(root: &Node) -> Locator {
        let mut locator = Locator::default();
        locator.lines.insert(String::new(), root.line);
        locator.index(root, "");
        locator
    }

    /// Record the keys and items inside `node`, which is at `path`.
    fn index(&mut self, node: &Node, path: &str) {
        match &node.kind {
            Kind::Scalar { .. } => {}
            Kind::Seq(items) => {
                for (i, item) in items.iter().enumerate() {
                    let at = format!("{path}[{i}]");
                    self.lines.entry(at.clone()).or_insert(item.line);
                    self.index(item, &at);
                }
            }
            Kind::Map(entries) => {
                for (key, value) in entries {
                    // A list or a mapping used as a key: not indexed.
                    let Kind::Scalar { text, .. } = &key.kind else {
                        continue;
                    };
                    let at = join(path, text);
                    self.lines.entry(at.clone()).or_insert(key.line);
                    self.index(value, &at);
                }
            }
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::yaml;

    /// The locator of `text`, which must parse.
    fn locator(text: &str) -> Locator {
        Locator::new(&yaml::parse(text).unwrap().unwrap())
    }

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
        let l = locator(BLOCK);
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
        let l = locator(BLOCK);
        assert_eq!(l.exact("streams[0].vlan.dei"), None);
        assert_eq!(l.line("streams[0].vlan.dei"), Some(10));
        assert_eq!(l.line("streams[1].udp.src"), Some(11));
        assert_eq!(l.line("rx[0].lcore"), Some(2)); // the root mapping
        assert_eq!(l.line("streams[7]"), Some(8));
    }

    #[test]
    fn flow_mapping_spanning_lines_and_complex_keys() {
        let text = "a: {x: 1,\n  y: [1, {z: 2}]}\n? [k1, k2]\n: {ignored: 1}\nb: &anc {c: 1}\nd: *anc\ne: 5\n";
        let l = locator(text);
        assert_eq!(l.exact("a.x"), Some(1));
        assert_eq!(l.exact("a.y"), Some(2));
        assert_eq!(l.exact("a.y[1].z"), Some(2));
        assert_eq!(l.exact("ignored"), None);
        assert_eq!(l.exact("b.c"), Some(5));
        assert_eq!(l.exact("d"), Some(6));
        assert_eq!(l.exact("e"), Some(7));
    }

    #[test]
    fn aliases_are_indexed_where_they_are_used() {
        let l = locator("b: &anc {c: 1}\nd: *anc\n");
        assert_eq!(l.exact("d"), Some(2));
        // The aliased keys keep the line they were written on.
        assert_eq!(l.exact("d.c"), Some(1));
        assert_eq!(l.line("d.x"), Some(2));
    }

    #[test]
    fn an_empty_document_has_only_its_root() {
        let l = locator("~\n");
        assert_eq!(l.line("x"), Some(1));
        assert_eq!(Locator::default().line("x"), None);
    }
}
