//! The hugepage path: `eal.hugepages: true` on a net_ring loop, with 2 MB
//! pages the test reserves and a hugetlbfs mount of its own, both released
//! on every path (a guard undoes them when the test ends or panics). On a
//! host that is not root, or whose kernel gives no pages, the test says so
//! and skips.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::common::{json_u64, run_profile_sharing_cpus};

/// The pool of 2 MB pages.
const POOL: &str = "/sys/kernel/mm/hugepages/hugepages-2048kB";
/// Pages the run needs: `memory_mb: 128` is 64 pages; the rest is slack.
const PAGES: u64 = 96;

/// Reads a counter of the 2 MB pool.
fn pool(name: &str) -> Option<u64> {
    std::fs::read_to_string(Path::new(POOL).join(name))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Sets the pool's size; false when the kernel refused the write.
fn set_pages(n: u64) -> bool {
    std::fs::write(Path::new(POOL).join("nr_hugepages"), n.to_string()).is_ok()
}

/// What the test reserved and mounted; dropping it unmounts and gives
/// the pages back, whether the test passed or panicked.
struct Reserved {
    before: u64,
    free_before: u64,
    mount: Option<PathBuf>,
    dir: tempfile::TempDir,
}

impl Drop for Reserved {
    fn drop(&mut self) {
        if let Some(m) = self.mount.take() {
            let ok = Command::new("umount")
                .arg(&m)
                .status()
                .is_ok_and(|s| s.success());
            assert!(
                ok || std::thread::panicking(),
                "umount {} failed",
                m.display()
            );
        }
        let ok = set_pages(self.before);
        assert!(
            ok || std::thread::panicking(),
            "could not give the pages back"
        );
    }
}

/// Reserves [`PAGES`] more 2 MB pages and mounts hugetlbfs on a directory
/// of its own; `None` (with the reason printed) when the host cannot.
fn reserve() -> Option<Reserved> {
    if !common::host::is_root() {
        eprintln!("skipped: reserving hugepages needs root");
        return None;
    }
    let before = pool("nr_hugepages")?;
    let dir = tempfile::Builder::new().prefix("lsehuge").tempdir().ok()?;
    let mut r = Reserved {
        before,
        free_before: pool("free_hugepages")?,
        mount: None,
        dir,
    };
    if !set_pages(before + PAGES) || pool("free_hugepages")? < PAGES {
        eprintln!(
            "skipped: the kernel gave {} of {PAGES} 2 MB pages (memory too fragmented?)",
            pool("nr_hugepages")?.saturating_sub(before)
        );
        return None;
    }
    let at = r.dir.path().join("mnt");
    std::fs::create_dir(&at).ok()?;
    let mounted = Command::new("mount")
        .args(["-t", "hugetlbfs", "-o", "pagesize=2M", "lsehuge"])
        .arg(&at)
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount hugetlbfs on {}", at.display());
        return None;
    }
    r.mount = Some(at);
    Some(r)
}

/// A short ring loop on hugepages: every frame sent comes back, counted
/// exactly; while the run held them the pages were used, and once the
/// mount is gone every page is free again.
#[test]
fn a_run_on_hugepages_counts_exactly_and_gives_them_back() {
    // The pool's counts are this test's alone: no other run meanwhile.
    let _alone = common::alone();
    let Some(r) = reserve() else { return };
    let dir = tempfile::tempdir().unwrap();
    let huge_dir = r.mount.as_ref().unwrap().display().to_string();
    let yaml = format!(
        "eal:\n  cores: [0, 1, 2]\n  cpus: [0, 1, 1]\n  hugepages: true\n  memory_mb: 128\n  \
         vdevs: [net_ring0]\n  extra_args: [\"--huge-dir={huge_dir}\"]\n\
         ports: [ {{ name: p0, device: net_ring0, link: 10g }} ]\n\
         streams: [ {{ name: s, frame_size: 1518 }} ]\n\
         tx: [ {{ lcore: 1, port: p0, rate: 20000pps, mode: spin }} ]\n\
         rx: [ {{ lcore: 2, port: p0, verify: full }} ]\n\
         run: {{ duration: 1s }}\n"
    );
    let (total, free_before) = (pool("nr_hugepages").unwrap(), r.free_before);
    // The fewest free pages seen while the run goes: below the total, the
    // run took its memory from the pages reserved here.
    let done = Arc::new(AtomicBool::new(false));
    let watch = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut least = u64::MAX;
            while !done.load(Ordering::Relaxed) {
                least = least.min(pool("free_hugepages").unwrap_or(u64::MAX));
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            least
        })
    };
    let (_, v) = run_profile_sharing_cpus(dir.path(), "huge", &yaml, &[]);
    done.store(true, Ordering::Relaxed);
    let least_free = watch.join().unwrap();
    assert!(
        least_free <= total - 64,
        "the run never held its 64 pages: {least_free} of {total} stayed free"
    );
    let sent = json_u64(&v, "/tx/frames");
    assert!(sent > 0);
    assert_eq!(json_u64(&v, "/tx/bytes"), 1518 * sent);
    assert_eq!(json_u64(&v, "/tx/pmd_frames"), sent);
    assert_eq!(json_u64(&v, "/rx/frames"), sent, "every frame came back");
    assert_eq!(json_u64(&v, "/rx/lost"), 0);
    assert_eq!(json_u64(&v, "/ports/0/stats/ipackets"), sent);
    assert_eq!(json_u64(&v, "/mbufs_leaked"), 0);
    drop(r);
    assert_eq!(
        pool("nr_hugepages"),
        Some(total - PAGES),
        "pages given back"
    );
    assert_eq!(
        pool("free_hugepages"),
        Some(free_before),
        "none left in use"
    );
}
