//! What a command writes: its output files and standard output.
//!
//! - Every output path is checked before anything runs
//!   ([`check_output`]): its folder exists and takes a new file, it is not
//!   a folder, and it is not one of the command's own inputs. A run that
//!   could not keep its result does not start.
//! - A result file is written whole or not at all ([`write_atomic`]): into
//!   a temporary file in the same folder, synced, then renamed over the
//!   old one. A full disk leaves the previous result as it was.
//! - Standard output goes through [`print`], which goes quiet once its
//!   reader has gone (`| head`): the command carries on, writes its files
//!   and exits with its own status.
#![forbid(unsafe_code)]

use std::fs::Permissions;
use std::io::{ErrorKind, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use crate::{Error, Result};

/// What a new result file may be: a regular file only (`--capture`, whose
/// writer is DPDK's pcap driver), or also a device or pipe that is written
/// in place (`--json /dev/stdout`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The path must be (or become) a regular file.
    RegularFile,
    /// An existing device or pipe is written in place.
    AnyFile,
}

/// Check, before anything runs, that `path` (given as `option`, e.g.
/// `--json`) can take the command's output: it is not a folder, its folder
/// exists and a new file can be made in it, an existing file there is of
/// `kind`, and it is none of `inputs` (each named by what it is, e.g.
/// `the profile being run`).
pub fn check_output(option: &str, path: &Path, kind: Kind, inputs: &[(&str, &Path)]) -> Result<()> {
    let err = |m: String| Error::option(format!("{option} {}", path.display()), m);
    if path.as_os_str().to_string_lossy().ends_with('/') || path.is_dir() {
        return Err(err("is a folder; name a file".into()));
    }
    let dir = folder_of(path);
    if !dir.is_dir() {
        return Err(err(format!("folder {} does not exist", dir.display())));
    }
    for (what, input) in inputs {
        if same_file(path, input) {
            return Err(err(format!("is {what}; name another file")));
        }
    }
    if let Ok(meta) = std::fs::metadata(path) {
        match kind {
            _ if meta.is_file() => {}
            Kind::RegularFile => {
                return Err(err(
                    "is not a regular file (a device or a pipe); name a file to write".into(),
                ))
            }
            // Written in place: its folder need not take a new file.
            Kind::AnyFile => return Ok(()),
        }
    }
    let probe = tempfile::Builder::new()
        .prefix(".landspeed-check-")
        .tempfile_in(&dir);
    if let Err(e) = probe {
        return Err(err(format!(
            "cannot create a file in {}: {e}",
            dir.display()
        )));
    }
    Ok(())
}

/// The folder a file `path` is in (`.` for a bare name).
fn folder_of(path: &Path) -> PathBuf {
    match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// Whether `a` and `b` name the same file: the same inode when both exist,
/// else the same canonical folder and name.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(ma), Ok(mb)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return ma.dev() == mb.dev() && ma.ino() == mb.ino();
    }
    let canon = |p: &Path| {
        let dir = std::fs::canonicalize(folder_of(p)).ok()?;
        Some(dir.join(p.file_name()?))
    };
    matches!((canon(a), canon(b)), (Some(x), Some(y)) if x == y)
}

/// Write `bytes` to `path` (named by `option`) whole or not at all: a
/// temporary file in the same folder, synced, renamed over `path` (the
/// file a symbolic link points to, when `path` is one; an existing file
/// keeps its permissions). An existing device or pipe is written in place.
pub fn write_atomic(option: &'static str, path: &Path, bytes: &[u8]) -> Result<()> {
    let io = |e: std::io::Error| Error::io_option(option, path, e);
    let old = std::fs::metadata(path).ok();
    if old.as_ref().is_some_and(|m| !m.is_file()) {
        return std::fs::write(path, bytes).map_err(io);
    }
    let target = match &old {
        Some(_) => std::fs::canonicalize(path).map_err(io)?,
        None => path.to_path_buf(),
    };
    let mode = old
        .as_ref()
        .map_or(0o666, |m| m.permissions().mode() & 0o7777);
    let mut tmp = tempfile::Builder::new()
        .prefix(".landspeed-")
        .permissions(Permissions::from_mode(mode))
        .tempfile_in(folder_of(&target))
        .map_err(io)?;
    tmp.write_all(bytes).map_err(io)?;
    tmp.as_file().sync_all().map_err(io)?;
    tmp.persist(&target).map_err(|e| io(e.error))?;
    Ok(())
}

/// A pcap file's global header.
const PCAP_FILE_HEADER: u64 = 24;
/// A pcap record's header (time stamp, captured and original length).
const PCAP_RECORD_HEADER: u64 = 16;

/// The size of a pcap file holding `frames` frames of `bytes` captured
/// bytes in all, as DPDK's pcap driver writes it (and counts them: its
/// `opackets` and `obytes`).
pub fn pcap_len(frames: u64, bytes: u64) -> u64 {
    PCAP_FILE_HEADER + PCAP_RECORD_HEADER * frames + bytes
}

/// Set once standard output's reader has gone (or stdout failed).
static QUIET: AtomicBool = AtomicBool::new(false);

/// Print `s` on standard output and flush it. Once a write fails (the
/// reader closed the pipe: `EPIPE`), nothing more is printed and the
/// command goes on.
pub fn print(s: &str) {
    if QUIET.load(Ordering::Relaxed) {
        return;
    }
    let mut o = std::io::stdout().lock();
    if let Err(e) = o.write_all(s.as_bytes()).and_then(|()| o.flush()) {
        if e.kind() != ErrorKind::Interrupted {
            QUIET.store(true, Ordering::Relaxed);
        }
    }
}

/// Whether [`print`] has gone quiet.
pub fn quiet() -> bool {
    QUIET.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_replaces_the_old_one_whole() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("r.json");
        std::fs::write(&p, "old").unwrap();
        std::fs::set_permissions(&p, Permissions::from_mode(0o640)).unwrap();
        write_atomic("--json", &p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
        // Nothing else is left in the folder.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_link_is_followed_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        let link = dir.path().join("link.json");
        std::fs::write(&real, "old").unwrap();
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic("--json", &link, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        assert!(std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink());
    }

    #[test]
    fn a_pcap_holds_its_headers_and_frames() {
        assert_eq!(pcap_len(0, 0), 24);
        // Two 9126-byte frames (9130 on the wire, less the FCS).
        assert_eq!(pcap_len(2, 2 * 9126), 24 + 2 * (16 + 9126));
    }

    #[test]
    fn outputs_are_checked() {
        let dir = tempfile::tempdir().unwrap();
        let profile = dir.path().join("p.yaml");
        std::fs::write(&profile, "x").unwrap();
        let inputs = [("the profile being run", profile.as_path())];
        let text = |p: &Path, k| {
            check_output("--json", p, k, &inputs)
                .unwrap_err()
                .to_string()
        };
        let missing = dir.path().join("nope/r.json");
        assert_eq!(
            text(&missing, Kind::AnyFile),
            format!(
                "--json {}: folder {} does not exist",
                missing.display(),
                dir.path().join("nope").display()
            )
        );
        assert_eq!(
            text(dir.path(), Kind::AnyFile),
            format!("--json {}: is a folder; name a file", dir.path().display())
        );
        let again = dir.path().join(".").join("p.yaml");
        assert_eq!(
            text(&again, Kind::AnyFile),
            format!(
                "--json {}: is the profile being run; name another file",
                again.display()
            )
        );
        let null = Path::new("/dev/null");
        assert!(check_output("--json", null, Kind::AnyFile, &inputs).is_ok());
        assert_eq!(
            text(null, Kind::RegularFile),
            "--json /dev/null: is not a regular file (a device or a pipe); name a file to write"
        );
        assert!(check_output("--json", &dir.path().join("r.json"), Kind::AnyFile, &inputs).is_ok());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
