//! The `rx:` section: each RX task's lcore, port and queues (each RX
//! queue has one reader, and every queue of a port read is polled), the
//! streams it expects, its verify level, clock and loss origin.

use std::collections::HashMap;

use super::check::Checker;
use super::error::ConfigError;
use super::plan::{
    CaptureKeep, CapturePlan, Clock, CountFrom, EalPlan, PortPlan, RxStreams, RxTaskPlan,
    SyncedClock, Verify,
};
use super::raw;
use super::validate::widen_max_frame;
use super::yaml::{describe, Value};
use crate::clock::nic::Want;
use crate::clock::sync::ClockId;
use crate::units::group;
use crate::wire::spec::{StreamSpec, MAX_FRAME_SIZE};

/// The most extra cycles an RX task may spend per frame
/// (`rx[i].slowdown_cycles`): about 4 ms at 2.5 GHz, 250 frames/s.
pub(crate) const MAX_SLOWDOWN_CYCLES: u64 = 10_000_000;

/// Frames an RX task's capture keeps unless it says (`rx[].capture.frames`).
pub const CAPTURE_FRAMES: u64 = 10_000;
/// The most frames a capture keeps.
const CAPTURE_FRAMES_MAX: u64 = 10_000_000;
/// The most memory one capture takes (frames × snap).
const CAPTURE_BYTES_MAX: u64 = 1 << 30;
/// The shortest snap length: an Ethernet header.
const CAPTURE_SNAP_MIN: u64 = 14;
/// The longest snap length a pcap reader takes.
const CAPTURE_SNAP_MAX: u64 = 65_535;

impl Checker<'_> {
    /// `rx[r].clock` and `rx[r].clock_error`.
    fn rx_clock(&self, at: &str, task: &raw::Rx) -> Result<Clock, ConfigError> {
        let synced = |id, shared| Clock::Synced {
            clock: SyncedClock {
                id,
                declared_error: None,
            },
            shared,
        };
        let mut clock = self.keyword(
            &format!("{at}.clock"),
            "clock",
            task.clock.as_ref(),
            &[
                ("auto", Clock::Auto),
                ("shared", Clock::Shared),
                ("separate", Clock::Separate),
                ("synced", synced(ClockId::Realtime, false)),
                ("synced-tai", synced(ClockId::Tai, false)),
                ("synced+shared", synced(ClockId::Realtime, true)),
            ],
        )?;
        let is_synced = matches!(clock, Clock::Synced { .. });
        let declared = self.clock_error(at, task.clock_error.as_ref(), is_synced)?;
        if let Clock::Synced { clock: c, .. } = &mut clock {
            c.declared_error = declared;
        }
        Ok(clock)
    }

    /// `rx:`; each port's largest frame grows to cover what its tasks
    /// expect.
    pub(super) fn rx_tasks(
        &self,
        tasks: &[raw::Rx],
        eal: &EalPlan,
        lcore_users: &mut HashMap<u32, String>,
        ports: &mut [PortPlan],
        streams: &[StreamSpec],
        by_name: &HashMap<String, usize>,
    ) -> Result<Vec<RxTaskPlan>, ConfigError> {
        let mut rx = Vec::with_capacity(tasks.len());
        let mut queue_users: HashMap<(usize, u16), usize> = HashMap::new();
        for (r, task) in tasks.iter().enumerate() {
            let at = format!("rx[{r}]");
            self.lcore(eal, lcore_users, &at, task.lcore)?;
            let port = self.port_ref(ports, &at, &task.port)?;
            let queues = self.rx_queues(&at, task, r, port, &ports[port], &mut queue_users)?;
            let plan = self.rx_task(&at, task, port, queues, by_name)?;
            // A task that learns its streams may see any of them.
            let expected: Vec<usize> = match &plan.streams {
                RxStreams::Listed(list) => list.clone(),
                RxStreams::Auto => (0..streams.len()).collect(),
            };
            widen_max_frame(&mut ports[port], streams, &expected);
            let mut plan = plan;
            plan.capture = self.rx_capture(&at, task.capture.as_ref(), &rx)?;
            rx.push(plan);
        }
        self.every_rx_queue_polled(ports, &queue_users)?;
        Ok(rx)
    }

    /// The rest of an RX task on port index `port` polling `queues`: its
    /// verify level, clock, timestamps, loss origin, the streams it
    /// expects and its slowdown.
    fn rx_task(
        &self,
        at: &str,
        task: &raw::Rx,
        port: usize,
        queues: Vec<u16>,
        by_name: &HashMap<String, usize>,
    ) -> Result<RxTaskPlan, ConfigError> {
        let verify = self.keyword(
            &format!("{at}.verify"),
            "verify level",
            task.verify.as_ref(),
            &[
                ("full", Verify::Full),
                ("stamp", Verify::Stamp),
                ("none", Verify::None),
            ],
        )?;
        let clock = self.rx_clock(at, task)?;
        let timestamps = self.keyword(
            &format!("{at}.timestamps"),
            "timestamp source",
            task.timestamps.as_ref(),
            &[
                ("auto", Want::Auto),
                ("nic", Want::Nic),
                ("software", Want::Software),
            ],
        )?;
        let clock_servo = self.clock_servo(
            at,
            task.clock_servo.as_ref(),
            matches!(clock, Clock::Synced { .. }),
        )?;
        let count_from = self.keyword(
            &format!("{at}.count_from"),
            "loss origin",
            task.count_from.as_ref(),
            &[
                ("first_seen", CountFrom::FirstSeen),
                ("zero", CountFrom::Zero),
            ],
        )?;
        let expect = self.rx_streams(by_name, &format!("{at}.streams"), task.streams.as_ref())?;
        if task.slowdown_cycles > MAX_SLOWDOWN_CYCLES {
            return Err(self.err(
                format!("{at}.slowdown_cycles"),
                format!(
                    "{} cycles per frame is more than the knob takes: at most {} \
                     (about 4 ms per frame at 2.5 GHz)",
                    task.slowdown_cycles,
                    group(MAX_SLOWDOWN_CYCLES as f64)
                ),
            ));
        }
        Ok(RxTaskPlan {
            lcore: task.lcore,
            port,
            queues,
            verify,
            slowdown_cycles: task.slowdown_cycles,
            count_from,
            streams: expect,
            clock,
            timestamps,
            clock_servo,
            capture: None,
        })
    }

    /// `rx[r].capture`, the tasks before it in `before`: a file no other task writes, in a folder that exists, and
    /// memory (frames × snap) within [`CAPTURE_BYTES_MAX`].
    fn rx_capture(
        &self,
        at: &str,
        c: Option<&raw::Capture>,
        before: &[RxTaskPlan],
    ) -> Result<Option<CapturePlan>, ConfigError> {
        let Some(c) = c else { return Ok(None) };
        let at = format!("{at}.capture");
        let file = self.resolve(&c.file);
        let folder = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        if c.file.is_empty() || c.file.ends_with('/') {
            return Err(self.err(format!("{at}.file"), "name the pcap file to write"));
        }
        if !folder.is_dir() {
            return Err(self.err(
                format!("{at}.file"),
                format!("the folder {} does not exist", folder.display()),
            ));
        }
        if let Some(r) = before
            .iter()
            .position(|t| t.capture.as_ref().is_some_and(|o| o.file == file))
        {
            return Err(self.err(
                format!("{at}.file"),
                format!("rx[{r}] writes its capture to {} already", c.file),
            ));
        }
        let frames = c.frames.unwrap_or(CAPTURE_FRAMES);
        if !(1..=CAPTURE_FRAMES_MAX).contains(&frames) {
            return Err(self.err(
                format!("{at}.frames"),
                format!(
                    "{frames} frames: a capture keeps 1 to {} frames",
                    group(CAPTURE_FRAMES_MAX as f64)
                ),
            ));
        }
        let snap = c.snap.unwrap_or(MAX_FRAME_SIZE as u64);
        if let Some(s) = c
            .snap
            .filter(|s| !(CAPTURE_SNAP_MIN..=CAPTURE_SNAP_MAX).contains(s))
        {
            return Err(self.err(
                format!("{at}.snap"),
                format!(
                    "{s} bytes: a frame is kept from {CAPTURE_SNAP_MIN} (its Ethernet header) \
                     to {CAPTURE_SNAP_MAX} bytes"
                ),
            ));
        }
        if frames * snap > CAPTURE_BYTES_MAX {
            return Err(self.err(
                format!("{at}.frames"),
                format!(
                    "{} frames of {snap} bytes need {} MiB: a capture takes at most {} MiB \
                     (keep fewer frames, or set a shorter snap)",
                    group(frames as f64),
                    (frames * snap) >> 20,
                    CAPTURE_BYTES_MAX >> 20
                ),
            ));
        }
        let keep = self.keyword(
            &format!("{at}.keep"),
            "frames to keep",
            c.keep.as_ref(),
            &[("first", CaptureKeep::First), ("last", CaptureKeep::Last)],
        )?;
        Ok(Some(CapturePlan {
            file,
            frames: frames as usize,
            snap: snap as usize,
            keep,
        }))
    }

    /// Every RX queue of a port that an RX task reads is polled by some
    /// task: frames RSS steers to an unpolled queue would be lost unseen
    /// (and on ixgbe without `rx_drop_en` one full queue stalls the others).
    fn every_rx_queue_polled(
        &self,
        ports: &[PortPlan],
        users: &HashMap<(usize, u16), usize>,
    ) -> Result<(), ConfigError> {
        for (p, pp) in ports.iter().enumerate() {
            let read = users.keys().any(|&(port, _)| port == p);
            if let Some(q) = (0..pp.rx_queues).find(|&q| read && !users.contains_key(&(p, q))) {
                return Err(self.err(
                    format!("ports[{p}].rx_queues"),
                    format!(
                        "port `{}` has rx_queues: {} but no RX task polls queue {q}: \
                         frames the port steers there would be lost unseen; list it in \
                         an rx task's queues, or lower rx_queues",
                        pp.name, pp.rx_queues
                    ),
                ));
            }
        }
        Ok(())
    }

    /// `rx[r].queues` of port `pp` (index `port`): the ones listed, or all
    /// of the port's; each claimed in `users`, as an RX queue has one reader.
    fn rx_queues(
        &self,
        at: &str,
        task: &raw::Rx,
        r: usize,
        port: usize,
        pp: &PortPlan,
        users: &mut HashMap<(usize, u16), usize>,
    ) -> Result<Vec<u16>, ConfigError> {
        let queues: Vec<u16> = match &task.queues {
            Some(q) => q.clone(),
            None => (0..pp.rx_queues).collect(),
        };
        if queues.is_empty() {
            return Err(self.err(
                format!("{at}.queues"),
                "an empty list polls nothing: name at least one queue, \
                 or leave the key out to poll all of the port's queues",
            ));
        }
        for (k, &q) in queues.iter().enumerate() {
            let field = if task.queues.is_some() {
                format!("{at}.queues[{k}]")
            } else {
                at.to_string()
            };
            self.queue_exists(&field, pp, "rx_queues", pp.rx_queues, q)?;
            if let Some(other) = users.insert((port, q), r) {
                let whom = if other == r {
                    "this task (listed twice)".to_string()
                } else {
                    format!("rx[{other}]")
                };
                return Err(self.err(
                    field,
                    format!(
                        "port `{}` queue {q} is already polled by {whom}; \
                         each RX queue has one reader",
                        pp.name
                    ),
                ));
            }
        }
        Ok(queues)
    }

    /// `rx[i].streams`: `auto` or a list of names.
    fn rx_streams(
        &self,
        by_name: &HashMap<String, usize>,
        field: &str,
        v: Option<&Value>,
    ) -> Result<RxStreams, ConfigError> {
        match v {
            None | Some(Value::Null) => Ok(RxStreams::Auto),
            Some(Value::String(s)) if s.trim() == "auto" => Ok(RxStreams::Auto),
            // A monitoring port (RFC 2889): it checks no stream, so every
            // frame it receives (one a switch flooded) counts as foreign.
            Some(Value::String(s)) if s.trim() == "none" => Ok(RxStreams::Listed(Vec::new())),
            Some(Value::Sequence(items)) => {
                let mut names = Vec::with_capacity(items.len());
                for (k, item) in items.iter().enumerate() {
                    match item {
                        Value::String(s) => names.push(s.clone()),
                        other => {
                            return Err(self.err(
                                format!("{field}[{k}]"),
                                format!("expected a stream name, found {}", describe(other)),
                            ))
                        }
                    }
                }
                if names.is_empty() {
                    return Err(self.err(
                        field,
                        "an empty list expects nothing: write `auto`, name streams, or `none` for a \
                         monitoring port (every frame it receives counts as foreign)",
                    ));
                }
                Ok(RxStreams::Listed(self.stream_refs(by_name, field, &names)?))
            }
            Some(other) => Err(self.err(
                field,
                format!(
                    "expected `auto`, `none` or a list of stream names, found {}",
                    describe(other)
                ),
            )),
        }
    }
}
