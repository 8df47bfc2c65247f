//! The namespace lab of `scripts/lab` for the end-to-end tests: whether it
//! can be built here, a lab brought up and taken down again on drop (also
//! when the test panics), and the check that nothing of it is left.

use std::process::{Command, Stdio};

use super::host::Need;
use super::ROOT;

/// What the lab needs of the host: Linux, root and a working `ip netns`
/// (for [`super::host::skip`]).
pub const NEEDS: &[Need] = &[
    Need::Linux,
    Need::Root("namespaces and veth links need CAP_NET_ADMIN"),
    Need::Netns,
];

/// A lab made by `scripts/lab up --prefix PREFIX ...`, removed by
/// `scripts/lab down --prefix PREFIX` on drop, also when the test panics.
pub struct Lab {
    /// The lab's name prefix: namespaces `PREFIX-a`, links `PREFIX-a0`...
    pub prefix: String,
}

impl Lab {
    /// The two-namespace lab (`a` and `b` joined by a veth pair) with
    /// veths of `mtu` carrying frames up to `frame_size` bytes.
    pub fn up(prefix: &str, mtu: u32, frame_size: u32) -> Lab {
        let (mtu, frame_size) = (mtu.to_string(), frame_size.to_string());
        Lab::up_with(prefix, &["--mtu", &mtu, "--frame-size", &frame_size])
    }

    /// `scripts/lab up --prefix PREFIX ARGS`; the test fails with the
    /// script's output when it fails.
    pub fn up_with(prefix: &str, args: &[&str]) -> Lab {
        let lab = Lab::guard(prefix);
        let out = Command::new(format!("{ROOT}/scripts/lab"))
            .args(["up", "--prefix", prefix])
            .args(args)
            .output()
            .expect("run scripts/lab up");
        assert!(
            out.status.success(),
            "scripts/lab up --prefix {prefix} {args:?} failed:\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        lab
    }

    /// Takes down, on drop, whatever lab of `prefix` exists then (for a
    /// test that expects `up` to refuse, and removes what it may have made).
    pub fn guard(prefix: &str) -> Lab {
        Lab {
            prefix: prefix.to_string(),
        }
    }

    /// The namespace of `side` (`a` → `PREFIX-a`).
    pub fn ns(&self, side: char) -> String {
        format!("{}-{side}", self.prefix)
    }

    /// The lab's interface in the namespace of `side` (`a` → `PREFIX-a0`).
    pub fn iface(&self, side: char) -> String {
        format!("{}-{side}0", self.prefix)
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = Command::new(format!("{ROOT}/scripts/lab"))
            .args(["down", "--prefix", &self.prefix])
            .stdout(Stdio::null())
            .status();
    }
}

/// Asserts that no namespace or link of the lab `prefix` is left.
pub fn assert_gone(prefix: &str) {
    let ns = Command::new("ip").args(["netns", "list"]).output().unwrap();
    let ns = String::from_utf8_lossy(&ns.stdout);
    assert!(
        !ns.lines().any(|l| l.starts_with(&format!("{prefix}-"))),
        "namespaces of lab {prefix} left behind:\n{ns}"
    );
    let links = Command::new("ip").args(["-o", "link"]).output().unwrap();
    let links = String::from_utf8_lossy(&links.stdout);
    assert!(
        !links.contains(&format!(" {prefix}-")),
        "links of lab {prefix} left behind:\n{links}"
    );
}
