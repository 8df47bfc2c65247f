//! Opening the files landspeed reads (profiles, departure traces, result
//! files): each must be a regular file no larger than its cap, so that
//! `/dev/zero`, a FIFO or a runaway file ends with a clear error instead of
//! filling memory or blocking. The type is checked before the file is
//! opened (opening a FIFO blocks until a writer comes), and the read stops
//! at the cap even if the file grows meanwhile.

#![forbid(unsafe_code)]

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// The largest profile read: 16 MiB.
pub const MAX_PROFILE_BYTES: u64 = 16 << 20;
/// The largest departure trace read: 4 GiB (a trace of the most departures
/// a TX task may record, about 25 bytes a line).
pub const MAX_TRACE_BYTES: u64 = 4 << 30;
/// The largest result file (`run --json`) read by `report`: 1 GiB.
pub const MAX_RESULT_BYTES: u64 = 1 << 30;

/// `path` opened for reading after checking that it is a regular file of
/// at most `max` bytes; the reader stops at `max` bytes. Errors read as
/// the OS's (`No such file or directory`) or say what the file is instead
/// (`not a regular file (a FIFO): give a file`).
pub fn open_regular(path: &Path, max: u64) -> io::Result<io::Take<File>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("not a regular file ({}): give a file", kind(&meta)),
        ));
    }
    if meta.len() > max {
        return Err(too_large(meta.len(), max));
    }
    Ok(File::open(path)?.take(max + 1))
}

/// The whole text of `path`, checked as [`open_regular`] does.
pub fn read_text(path: &Path, max: u64) -> io::Result<String> {
    let mut text = String::new();
    let n = open_regular(path, max)?.read_to_string(&mut text)? as u64;
    if n > max {
        return Err(too_large(n, max));
    }
    Ok(text)
}

/// The error for a file of `len` bytes above the cap `max`.
fn too_large(len: u64, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!(
            "{} bytes, more than the {} MiB landspeed reads from such a file",
            crate::units::group(len as f64),
            max >> 20
        ),
    )
}

/// What a file that is not regular is, in words.
fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a plain file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_and_fifos_are_refused_without_blocking() {
        let e = read_text(Path::new("/dev/zero"), 100).unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a regular file (a character device): give a file"
        );
        let dir = tempfile::tempdir().unwrap();
        let e = read_text(dir.path(), 100).unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a regular file (a directory): give a file"
        );
    }

    #[test]
    fn files_above_the_cap_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big");
        std::fs::write(&p, vec![b'a'; (2 << 20) + 1]).unwrap();
        let e = read_text(&p, 2 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "2,097,153 bytes, more than the 2 MiB landspeed reads from such a file"
        );
        assert_eq!(read_text(&p, 3 << 20).unwrap().len(), (2 << 20) + 1);
    }
}
