//! Reading `ptp4l`'s servo over its management socket (a Unix datagram
//! socket, `/var/run/ptp4l` by default), as `pmc -u -b 0` does: four GETs
//! per sample, the answers decoded by `clock::ptp`. Read on the main lcore
//! only, at start, every [`EVERY`] and at the end of a run.

use std::os::unix::net::UnixDatagram;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use crate::clock::ptp::{self, Collector, Sample, ServoRecord};

/// Samples are taken at most this often (besides the first and the last).
pub(crate) const EVERY: Duration = Duration::from_secs(2);
/// How long one sample waits for its answers: the daemon answers from
/// its poll loop within a millisecond when it runs, but on a loaded host
/// it may wait longer than 100 ms for its CPU.
const WAIT: Duration = Duration::from_millis(500);

/// A client socket bound next to the daemon's (it answers to the address
/// a request came from), removed on drop.
pub(crate) struct Ptp4l {
    socket: UnixDatagram,
    local: PathBuf,
    server: PathBuf,
    seq: u16,
    port_number: u16,
}

/// Client sockets made by this process, for unique names.
static CLIENTS: AtomicU32 = AtomicU32::new(0);

impl Ptp4l {
    /// A client of the daemon at `server`: binds a socket of its own in
    /// the same folder (else in the temporary folder).
    pub(crate) fn open(server: &Path) -> Result<Ptp4l, String> {
        let n = CLIENTS.fetch_add(1, Ordering::Relaxed);
        let name = format!(".landspeed-pmc.{}.{n}", std::process::id());
        let dir = server.parent().filter(|d| !d.as_os_str().is_empty());
        let mut tried = Vec::new();
        for d in dir.into_iter().chain([std::env::temp_dir().as_path()]) {
            let local = d.join(&name);
            let _ = std::fs::remove_file(&local);
            match UnixDatagram::bind(&local) {
                Ok(socket) => {
                    return Ok(Ptp4l {
                        socket,
                        local,
                        server: server.to_path_buf(),
                        seq: 0,
                        port_number: (std::process::id() & 0xFFFF) as u16,
                    })
                }
                Err(e) => tried.push(format!("{}: {e}", local.display())),
            }
        }
        Err(format!(
            "cannot bind a socket to talk to it ({})",
            tried.join("; ")
        ))
    }

    /// One sample: the four GETs sent, the answers collected for up to
    /// [`WAIT`].
    pub(crate) fn sample(&mut self) -> Result<Sample, String> {
        let first = self.seq;
        self.seq = self.seq.wrapping_add(ptp::SAMPLE_IDS.len() as u16);
        for (k, id) in (0u16..).zip(ptp::SAMPLE_IDS) {
            let m = ptp::get_request(first.wrapping_add(k), self.port_number, id);
            self.socket
                .send_to(&m, &self.server)
                .map_err(|e| format!("cannot send to it: {e}"))?;
        }
        let mut c = Collector::new(first);
        let deadline = Instant::now() + WAIT;
        let mut buf = [0u8; 1500];
        let mut bad = None;
        while !c.done() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            self.socket
                .set_read_timeout(Some(left))
                .map_err(|e| e.to_string())?;
            match self.socket.recv(&mut buf) {
                Ok(n) => match ptp::decode(&buf[..n]) {
                    Ok(r) => c.take(&r),
                    Err(e) => bad = Some(e.to_string()),
                },
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                    ) =>
                {
                    break
                }
                Err(e) => return Err(format!("cannot receive: {e}")),
            }
        }
        if !c.done() {
            if let Some(why) = bad {
                return Err(format!("an answer is not a management response: {why}"));
            }
        }
        c.finish()
            .map_err(|e| format!("{e} in {} ms", WAIT.as_millis()))
    }
}

impl Drop for Ptp4l {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.local);
    }
}

/// A servo a synchronised clock reads over a run: the client, the record
/// of its samples, when it was last read.
pub(crate) struct Servo {
    client: Ptp4l,
    record: ServoRecord,
    last: Instant,
}

impl Servo {
    /// Opens `socket` and takes the first sample; the reason when the
    /// daemon cannot be reached or does not answer.
    pub(crate) fn start(socket: &Path) -> Result<Servo, String> {
        let mut client = Ptp4l::open(socket)?;
        let first = client.sample()?;
        let mut record = ServoRecord::new("ptp4l", &socket.display().to_string());
        record.add(Ok(&first));
        Ok(Servo {
            client,
            record,
            last: Instant::now(),
        })
    }

    /// Takes a sample if [`EVERY`] has passed since the last one, or
    /// `always`.
    pub(crate) fn tick(&mut self, always: bool) {
        if !always && self.last.elapsed() < EVERY {
            return;
        }
        self.last = Instant::now();
        match self.client.sample() {
            Ok(s) => self.record.add(Ok(&s)),
            Err(e) => self.record.add(Err(e.as_str())),
        }
    }

    /// What the run saw of the servo.
    pub(crate) fn record(&self) -> ServoRecord {
        self.record.clone()
    }
}
