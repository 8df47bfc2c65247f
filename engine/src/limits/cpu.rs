//! CPU ceiling: a core that spends `c` cycles per frame at `f` Hz handles at
//! most f / c frames per second.

use serde::Serialize;

use super::LimitsError;

/// The frame rate one core sustains at a clock rate and a per-frame cost.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CpuCeiling {
    /// Clock (TSC) rate in Hz.
    pub clock_hz: f64,
    /// Cycles spent per frame.
    pub cycles_per_frame: f64,
}

fn positive(field: &'static str, v: f64) -> Result<f64, LimitsError> {
    if v.is_finite() && v > 0.0 {
        Ok(v)
    } else {
        Err(LimitsError::invalid(field, v, "must be a positive number"))
    }
}

impl CpuCeiling {
    /// A ceiling from a clock rate (Hz) and cycles per frame; both must be
    /// positive and finite.
    pub fn new(clock_hz: f64, cycles_per_frame: f64) -> Result<Self, LimitsError> {
        Ok(CpuCeiling {
            clock_hz: positive("cpu-ghz", clock_hz)?,
            cycles_per_frame: positive("cycles-per-frame", cycles_per_frame)?,
        })
    }

    /// A ceiling from a measurement: `busy_cycles` spent handling `frames`
    /// frames on a core whose TSC runs at `clock_hz`.
    pub fn from_measured(
        clock_hz: f64,
        busy_cycles: u64,
        frames: u64,
    ) -> Result<Self, LimitsError> {
        if frames == 0 {
            return Err(LimitsError::invalid(
                "frames",
                frames,
                "cycles per frame needs at least one frame",
            ));
        }
        if busy_cycles == 0 {
            return Err(LimitsError::invalid(
                "busy_cycles",
                busy_cycles,
                "a core that handled frames spent cycles doing so",
            ));
        }
        CpuCeiling::new(clock_hz, busy_cycles as f64 / frames as f64)
    }

    /// Frames per second: clock_hz / cycles_per_frame.
    pub fn fps(&self) -> f64 {
        self.clock_hz / self.cycles_per_frame
    }

    /// The same as an L2 rate at `frame_size` (FCS included), bit/s.
    pub fn bps_l2(&self, frame_size: u32) -> f64 {
        self.fps() * 8.0 * f64::from(frame_size)
    }
}

/// The cycle budget per frame a core has at `clock_hz` to keep up with
/// `fps` frames per second (clock_hz / fps).
pub fn cycle_budget(clock_hz: f64, fps: f64) -> f64 {
    clock_hz / fps
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceiling() {
        let c = CpuCeiling::new(2.4e9, 20_000.0).unwrap();
        assert_eq!(c.fps(), 120_000.0);
        assert_eq!(c.bps_l2(9130), 120_000.0 * 8.0 * 9130.0);
        let m = CpuCeiling::from_measured(3.0e9, 3_000_000_000, 100_000).unwrap();
        assert_eq!(m.cycles_per_frame, 30_000.0);
        assert_eq!(m.fps(), 100_000.0);
        // 10 GbE line rate with 9130-byte frames at 2.4 GHz: 17,568 cycles.
        assert_eq!(cycle_budget(2.4e9, 136_612.0).round(), 17_568.0);
    }

    #[test]
    fn bad_inputs_name_the_field() {
        let e = CpuCeiling::new(0.0, 100.0).unwrap_err();
        assert!(e.to_string().contains("cpu-ghz"), "{e}");
        let e = CpuCeiling::new(2e9, -1.0).unwrap_err();
        assert!(e.to_string().contains("cycles-per-frame"), "{e}");
        let e = CpuCeiling::from_measured(2e9, 10, 0).unwrap_err();
        assert!(e.to_string().contains("frames"), "{e}");
    }
}
