//! Rates with a layer, their parsing, and line-rate arithmetic.
//!
//! A rate is a whole number of units per second at one [`Layer`]: bits of
//! the wire (L1), bits of the Ethernet frame including its FCS (L2), bits of
//! the payload, or frames. Conversions between layers depend on the frame
//! size and are exact where they feed the schedule; the `f64` helpers are for
//! reports only.
//!
//! Frame size always means the Ethernet frame including the FCS, as RFC 2544
//! counts it. On the wire each frame also takes [`L1_OVERHEAD`]: a
//! 7-byte preamble, a 1-byte start-of-frame delimiter and a 12-byte
//! inter-frame gap.

use std::fmt;
use std::str::FromStr;

use serde::Serialize;
use thiserror::Error;

use crate::units::L1_OVERHEAD;
use crate::units::{self, Digits, PerSec, Problem, UnitError};

/// The smallest legal Ethernet frame, FCS included.
pub const MIN_FRAME_SIZE: usize = 64;

/// The layer at which a rate is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Layer {
    /// The wire: frame + 20 bytes of preamble, SFD and inter-frame gap.
    L1,
    /// The Ethernet frame, header to FCS inclusive.
    L2,
    /// The frame's payload (what follows the transport header).
    Payload,
    /// Whole frames; the rate is in frames per second.
    Frames,
}

impl Layer {
    /// Short name used in messages and accepted by [`Layer::from_str`].
    pub fn name(self) -> &'static str {
        match self {
            Layer::L1 => "L1",
            Layer::L2 => "L2",
            Layer::Payload => "payload",
            Layer::Frames => "frames",
        }
    }
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Layer {
    type Err = RateError;

    /// Accepts `L1`/`wire`, `L2`/`frame`/`mac`, `payload`/`goodput` and
    /// `frames`/`pps`, in any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "l1" | "wire" => Ok(Layer::L1),
            "l2" | "frame" | "mac" => Ok(Layer::L2),
            "payload" | "goodput" => Ok(Layer::Payload),
            "frames" | "pps" | "fps" => Ok(Layer::Frames),
            _ => Err(RateError::UnknownLayer {
                input: s.to_string(),
            }),
        }
    }
}

/// What is wrong with a rate, and with which input.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RateError {
    /// The rate text was empty.
    #[error("empty rate: give e.g. `9.5G`, `800Mbps`, `136612pps`, `95%` or `line`")]
    Empty,
    /// The rate text could not be parsed.
    #[error("cannot parse rate `{input}`: {reason}")]
    Unparsable {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The layer name was not recognised.
    #[error("unknown layer `{input}`: use L1 (wire), L2 (frame), payload or frames")]
    UnknownLayer {
        /// The text as given.
        input: String,
    },
    /// A negative rate.
    #[error("rate `{input}` is negative; rates must be above zero")]
    Negative {
        /// The text as given.
        input: String,
    },
    /// A rate of zero, or one that rounds to zero.
    #[error("rate `{input}` is zero (or rounds to zero); rates must be above zero")]
    Zero {
        /// The text or value as given.
        input: String,
    },
    /// A share of line rate outside (0, 100] %.
    #[error("rate `{input}`: a share of line rate must be above 0% and at most 100%")]
    PercentRange {
        /// The text as given.
        input: String,
    },
    /// A layer suffix where none applies.
    #[error("rate `{input}`: {reason}")]
    LayerMismatch {
        /// The text or value as given.
        input: String,
        /// Why the layer does not fit.
        reason: String,
    },
    /// A rate faster than the port can carry at its layer.
    #[error(
        "rate {rate} exceeds the line rate at {layer} for {frame_size}-byte frames: \
         {line} (link {link} at L1)"
    )]
    AboveLine {
        /// The requested rate, formatted with its unit.
        rate: String,
        /// The layer of the requested rate.
        layer: Layer,
        /// The line rate at that layer, formatted with its unit.
        line: String,
        /// The frame size used for the comparison.
        frame_size: usize,
        /// The link's L1 rate, formatted.
        link: String,
    },
    /// An L1 rate faster than the link, whatever the frame size.
    #[error("rate {rate} at L1 exceeds the link's line rate of {link}")]
    AboveLink {
        /// The requested rate, formatted with its unit.
        rate: String,
        /// The link's L1 rate, formatted.
        link: String,
    },
    /// A frame size that cannot carry a rate.
    #[error(
        "frame size {frame_size} with payload {payload_len}: frames must be at least \
         {MIN_FRAME_SIZE} bytes including FCS and the payload must fit in the frame"
    )]
    FrameSize {
        /// Frame size including FCS.
        frame_size: usize,
        /// Payload length.
        payload_len: usize,
    },
    /// A link speed of zero.
    #[error("link speed is zero: the port reports no link")]
    NoLink,
}

/// A rate: a whole number of units per second at one layer.
///
/// Bits per second for [`Layer::L1`], [`Layer::L2`] and [`Layer::Payload`];
/// frames per second for [`Layer::Frames`]. Never zero.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Rate {
    per_sec: u64,
    layer: Layer,
}

impl Rate {
    /// A rate of `per_sec` units per second at `layer`; zero is an error.
    pub fn new(per_sec: u64, layer: Layer) -> Result<Self, RateError> {
        if per_sec == 0 {
            return Err(RateError::Zero {
                input: format!("0 at {layer}"),
            });
        }
        Ok(Rate { per_sec, layer })
    }

    /// A rate in bits per second at L1.
    pub fn l1_bps(bps: u64) -> Result<Self, RateError> {
        Rate::new(bps, Layer::L1)
    }

    /// A rate in frames per second.
    pub fn fps(frames_per_sec: u64) -> Result<Self, RateError> {
        Rate::new(frames_per_sec, Layer::Frames)
    }

    /// Units per second: bits, or frames for [`Layer::Frames`].
    pub fn per_sec(&self) -> u64 {
        self.per_sec
    }

    /// The layer the rate is counted at.
    pub fn layer(&self) -> Layer {
        self.layer
    }

    /// Frames per second at this rate for the given frame size (incl. FCS)
    /// and payload length. For reports; use [`Rate::frames_per_sec_floor`]
    /// where exactness matters.
    pub fn frames_per_sec(&self, frame_size_with_fcs: usize, payload_len: usize) -> f64 {
        let units = bits_per_frame(self.layer, frame_size_with_fcs, payload_len);
        if units == 0 {
            return 0.0;
        }
        self.per_sec as f64 / units as f64
    }

    /// Whole frames per second at this rate, rounded down; exact.
    pub fn frames_per_sec_floor(&self, frame_size_with_fcs: usize, payload_len: usize) -> u64 {
        let units = bits_per_frame(self.layer, frame_size_with_fcs, payload_len);
        if units == 0 {
            return 0;
        }
        self.per_sec / units
    }

    /// The same rate counted at another layer, rounded down to a whole unit
    /// per second; exact up to that rounding.
    pub fn at_layer(
        &self,
        layer: Layer,
        frame_size_with_fcs: usize,
        payload_len: usize,
    ) -> Result<Rate, RateError> {
        check_frame(frame_size_with_fcs, payload_len)?;
        let from = bits_per_frame(self.layer, frame_size_with_fcs, payload_len) as u128;
        let to = bits_per_frame(layer, frame_size_with_fcs, payload_len) as u128;
        if from == 0 {
            return Err(RateError::FrameSize {
                frame_size: frame_size_with_fcs,
                payload_len,
            });
        }
        let v = self.per_sec as u128 * to / from;
        Rate::new(u64::try_from(v).unwrap_or(u64::MAX), layer)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.layer {
            Layer::Frames => write!(f, "{} frames/s", self.per_sec),
            layer => write!(f, "{} at {layer}", format_bps(self.per_sec)),
        }
    }
}

/// Formats bits per second exactly with an SI prefix, e.g. `9.5 Gbit/s`,
/// `9.285714285 Gbit/s`, `800 Mbit/s`: [`units::format_bit_rate`] with
/// every digit.
pub fn format_bps(bps: u64) -> String {
    units::format_bit_rate(bps as f64, Digits::Exact)
}

/// Units one frame counts for at `layer`: bits for L1 (`8 × (size + 20)`),
/// L2 (`8 × size`) and payload (`8 × payload_len`); `1` for
/// [`Layer::Frames`]. This is what a schedule adds per frame.
pub fn bits_per_frame(layer: Layer, frame_size_with_fcs: usize, payload_len: usize) -> u64 {
    match layer {
        Layer::L1 => 8 * (frame_size_with_fcs as u64 + L1_OVERHEAD),
        Layer::L2 => 8 * frame_size_with_fcs as u64,
        Layer::Payload => 8 * payload_len as u64,
        Layer::Frames => 1,
    }
}

fn check_frame(frame_size: usize, payload_len: usize) -> Result<(), RateError> {
    if frame_size < MIN_FRAME_SIZE || payload_len == 0 || payload_len > frame_size {
        return Err(RateError::FrameSize {
            frame_size,
            payload_len,
        });
    }
    Ok(())
}

fn format_at(per_sec: u64, layer: Layer) -> String {
    match layer {
        Layer::Frames => format!("{per_sec} frames/s"),
        _ => format_bps(per_sec),
    }
}

/// The line rate of a link of `link_bps` (L1) counted at `layer`, rounded
/// down to whole units per second.
pub fn line_at_layer(
    link_bps: u64,
    layer: Layer,
    frame_size_with_fcs: usize,
    payload_len: usize,
) -> u64 {
    let l1 = bits_per_frame(Layer::L1, frame_size_with_fcs, payload_len) as u128;
    let to = bits_per_frame(layer, frame_size_with_fcs, payload_len) as u128;
    (link_bps as u128 * to / l1) as u64
}

/// Checks that `rate` fits in a link of `link_bps` (its L1 MAC data rate,
/// e.g. [`Phy::mac_rate_bps`]) with frames of `frame_size_with_fcs` bytes
/// carrying `payload_len` bytes of payload. The comparison is exact
/// (cross-multiplied in 128-bit integers); the error names the rate, its
/// layer, and the line rate at that layer.
pub fn check_against_line(
    rate: &Rate,
    link_bps: u64,
    frame_size_with_fcs: usize,
    payload_len: usize,
) -> Result<(), RateError> {
    if link_bps == 0 {
        return Err(RateError::NoLink);
    }
    check_frame(frame_size_with_fcs, payload_len)?;
    let l1 = bits_per_frame(Layer::L1, frame_size_with_fcs, payload_len) as u128;
    let units = bits_per_frame(rate.layer, frame_size_with_fcs, payload_len) as u128;
    // rate / units frames per second must not exceed link / l1.
    if rate.per_sec as u128 * l1 > link_bps as u128 * units {
        let line = line_at_layer(link_bps, rate.layer, frame_size_with_fcs, payload_len);
        return Err(RateError::AboveLine {
            rate: format_at(rate.per_sec, rate.layer),
            layer: rate.layer,
            line: format_at(line, rate.layer),
            frame_size: frame_size_with_fcs,
            link: format_bps(link_bps),
        });
    }
    Ok(())
}

/// A rate as the user wrote it, before it is tied to a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum RateSpec {
    /// A number with a unit: bits per second (`layer` is the layer suffix,
    /// `None` if the text named none) or frames per second (`layer` is
    /// `Some(Frames)`).
    Absolute {
        /// Units per second, never zero.
        per_sec: u64,
        /// The layer named in the text, if any.
        layer: Option<Layer>,
    },
    /// A share of the port's line rate in parts per million (950000 = 95%).
    PercentOfLine {
        /// Parts per million, 1..=1,000,000.
        ppm: u32,
    },
    /// The port's full line rate.
    Line,
}

impl RateSpec {
    /// Ties the rate to a port whose MAC data rate is `link_bps` (L1).
    /// `default_layer` applies to bit rates whose text named no layer.
    ///
    /// Shares of line rate resolve to L1 bits per second (a share of line
    /// rate is the same share at every layer). An L1 bit rate above the link
    /// is refused here; rates at other layers depend on the frame size: check
    /// them with [`check_against_line`].
    pub fn resolve(&self, link_bps: u64, default_layer: Layer) -> Result<Rate, RateError> {
        if link_bps == 0 {
            return Err(RateError::NoLink);
        }
        match *self {
            RateSpec::Line => Rate::new(link_bps, Layer::L1),
            RateSpec::PercentOfLine { ppm } => {
                let bps = link_bps as u128 * ppm as u128 / 1_000_000;
                Rate::new(bps as u64, Layer::L1).map_err(|_| RateError::Zero {
                    input: format!("{}% of {}", format_ppm(ppm), format_bps(link_bps)),
                })
            }
            RateSpec::Absolute { per_sec, layer } => {
                let layer = match (layer, default_layer) {
                    (Some(l), _) => l,
                    (None, Layer::Frames) => {
                        return Err(RateError::LayerMismatch {
                            input: format_bps(per_sec),
                            reason: "a bit rate needs a bit layer (L1, L2 or payload), \
                                     not frames"
                                .into(),
                        })
                    }
                    (None, l) => l,
                };
                let rate = Rate::new(per_sec, layer)?;
                if layer == Layer::L1 && per_sec > link_bps {
                    return Err(RateError::AboveLink {
                        rate: format_bps(per_sec),
                        link: format_bps(link_bps),
                    });
                }
                Ok(rate)
            }
        }
    }
}

fn format_ppm(ppm: u32) -> String {
    let int = ppm / 10_000;
    let frac = ppm % 10_000;
    if frac == 0 {
        format!("{int}")
    } else {
        format!("{int}.{}", format!("{frac:04}").trim_end_matches('0'))
    }
}

impl fmt::Display for RateSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RateSpec::Line => f.write_str("line"),
            RateSpec::PercentOfLine { ppm } => write!(f, "{}%", format_ppm(ppm)),
            RateSpec::Absolute {
                per_sec,
                layer: Some(Layer::Frames),
            } => write!(f, "{per_sec}pps"),
            RateSpec::Absolute { per_sec, layer } => {
                write!(f, "{}", format_bps(per_sec).replace(' ', ""))?;
                if let Some(l) = layer {
                    write!(f, "@{l}")?;
                }
                Ok(())
            }
        }
    }
}

/// A rate error for the text `input` that [`crate::units`] could not read.
fn unparsable(input: &str, e: UnitError) -> RateError {
    match e.problem {
        Problem::Negative => RateError::Negative {
            input: input.to_string(),
        },
        _ => RateError::Unparsable {
            input: input.to_string(),
            reason: e.reason(),
        },
    }
}

impl FromStr for RateSpec {
    type Err = RateError;

    /// Parses `line`, `95%`, `9.5G`, `9.5Gbps`, `9.5Gbit/s`, `9.5Gb/s`,
    /// `800M`, `100k`, `136612pps`, `1.2Mpps`, with an optional layer suffix
    /// after `@` (`5G@L2`, `4G@payload`). The numbers and units are those of
    /// [`crate::units`]: prefixes k, M, G, T are powers of 1000 in any case;
    /// a bare number is bits per second; rates round to whole units per
    /// second. Bytes per second (`MB/s`) are refused to avoid a
    /// factor-of-eight mistake.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let input = s.trim();
        if input.is_empty() {
            return Err(RateError::Empty);
        }
        let (body, layer) = match input.split_once('@') {
            Some((b, l)) => (b.trim(), Some(l.parse::<Layer>()?)),
            None => (input, None),
        };
        let mismatch = |reason: &str| RateError::LayerMismatch {
            input: input.to_string(),
            reason: reason.into(),
        };
        if body.eq_ignore_ascii_case("line") || body.eq_ignore_ascii_case("+line") {
            return match layer {
                Some(_) => Err(mismatch(
                    "line rate is the same at every layer; drop the `@` suffix",
                )),
                None => Ok(RateSpec::Line),
            };
        }
        if body.ends_with('%') {
            return match layer {
                Some(_) => Err(mismatch(
                    "a share of line rate is the same at every layer; drop the `@` suffix",
                )),
                None => parse_share(body, input),
            };
        }
        parse_absolute(body, layer, input)
    }
}

/// `95%` (in `input`) as a share of line rate.
fn parse_share(body: &str, input: &str) -> Result<RateSpec, RateError> {
    let ppm = units::parse_share_ppm(body).map_err(|e| unparsable(input, e))?;
    if ppm == 0 || ppm > 1_000_000 {
        return Err(RateError::PercentRange {
            input: input.to_string(),
        });
    }
    Ok(RateSpec::PercentOfLine { ppm: ppm as u32 })
}

/// A bit or frame rate (in `input`) with the layer its `@` suffix named.
fn parse_absolute(body: &str, layer: Option<Layer>, input: &str) -> Result<RateSpec, RateError> {
    let (per_sec, frames) = match units::parse_rate(body).map_err(|e| unparsable(input, e))? {
        PerSec::Bits(n) => (n, false),
        PerSec::Frames(n) => (n, true),
    };
    if per_sec == 0 {
        return Err(RateError::Zero {
            input: input.to_string(),
        });
    }
    let mismatch = |reason: &str| RateError::LayerMismatch {
        input: input.to_string(),
        reason: reason.into(),
    };
    let layer = match (frames, layer) {
        (true, None | Some(Layer::Frames)) => Some(Layer::Frames),
        (true, Some(_)) => {
            return Err(mismatch(
                "a frame rate counts frames; a bit layer does not apply",
            ))
        }
        (false, Some(Layer::Frames)) => {
            return Err(mismatch("a bit rate needs a bit layer (L1, L2 or payload)"))
        }
        (false, l) => l,
    };
    Ok(RateSpec::Absolute { per_sec, layer })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn abs(per_sec: u64, layer: Option<Layer>) -> RateSpec {
        RateSpec::Absolute { per_sec, layer }
    }

    #[test]
    fn parses_the_issue_examples() {
        let g95 = abs(9_500_000_000, None);
        assert_eq!("9.5G".parse::<RateSpec>().unwrap(), g95);
        assert_eq!("9.5Gbps".parse::<RateSpec>().unwrap(), g95);
        assert_eq!("9.5Gbit/s".parse::<RateSpec>().unwrap(), g95);
        assert_eq!("9.5 Gb/s".parse::<RateSpec>().unwrap(), g95);
        assert_eq!("800M".parse::<RateSpec>().unwrap(), abs(800_000_000, None));
        assert_eq!(
            "800Mbps".parse::<RateSpec>().unwrap(),
            abs(800_000_000, None)
        );
        assert_eq!("100k".parse::<RateSpec>().unwrap(), abs(100_000, None));
        assert_eq!(
            "136612pps".parse::<RateSpec>().unwrap(),
            abs(136_612, Some(Layer::Frames))
        );
        assert_eq!(
            "1.2Mpps".parse::<RateSpec>().unwrap(),
            abs(1_200_000, Some(Layer::Frames))
        );
        assert_eq!(
            "95%".parse::<RateSpec>().unwrap(),
            RateSpec::PercentOfLine { ppm: 950_000 }
        );
        assert_eq!("line".parse::<RateSpec>().unwrap(), RateSpec::Line);
        assert_eq!("LINE".parse::<RateSpec>().unwrap(), RateSpec::Line);
        assert_eq!(
            "5G@L2".parse::<RateSpec>().unwrap(),
            abs(5_000_000_000, Some(Layer::L2))
        );
        assert_eq!(
            "4G @ payload".parse::<RateSpec>().unwrap(),
            abs(4_000_000_000, Some(Layer::Payload))
        );
    }

    #[test]
    fn refuses_bad_rates_with_a_reason() {
        assert_eq!("".parse::<RateSpec>(), Err(RateError::Empty));
        assert!(matches!(
            "0".parse::<RateSpec>(),
            Err(RateError::Zero { .. })
        ));
        assert!(matches!(
            "0.0001".parse::<RateSpec>(),
            Err(RateError::Zero { .. })
        ));
        assert!(matches!(
            "-5G".parse::<RateSpec>(),
            Err(RateError::Negative { .. })
        ));
        assert!(matches!(
            "0%".parse::<RateSpec>(),
            Err(RateError::PercentRange { .. })
        ));
        assert!(matches!(
            "101%".parse::<RateSpec>(),
            Err(RateError::PercentRange { .. })
        ));
        assert!(matches!(
            "fast".parse::<RateSpec>(),
            Err(RateError::Unparsable { .. })
        ));
        assert!(matches!(
            "9.5Q".parse::<RateSpec>(),
            Err(RateError::Unparsable { .. })
        ));
        assert!(matches!(
            "1.2.3G".parse::<RateSpec>(),
            Err(RateError::Unparsable { .. })
        ));
        assert!(matches!(
            "1GB/s".parse::<RateSpec>(),
            Err(RateError::Unparsable { .. })
        ));
        assert!(matches!(
            "5G@L9".parse::<RateSpec>(),
            Err(RateError::UnknownLayer { .. })
        ));
        assert!(matches!(
            "100pps@L2".parse::<RateSpec>(),
            Err(RateError::LayerMismatch { .. })
        ));
        assert!(matches!(
            "95%@L2".parse::<RateSpec>(),
            Err(RateError::LayerMismatch { .. })
        ));
        let msg = "9.5Q".parse::<RateSpec>().unwrap_err().to_string();
        assert!(msg.contains("`9.5Q`"), "{msg}");
    }

    #[test]
    fn resolves_against_a_link() {
        let link = 10_000_000_000;
        let r = "95%"
            .parse::<RateSpec>()
            .unwrap()
            .resolve(link, Layer::L2)
            .unwrap();
        assert_eq!(r, Rate::new(9_500_000_000, Layer::L1).unwrap());
        let r = "line"
            .parse::<RateSpec>()
            .unwrap()
            .resolve(link, Layer::L1)
            .unwrap();
        assert_eq!(r.per_sec(), link);
        let r = "5G"
            .parse::<RateSpec>()
            .unwrap()
            .resolve(link, Layer::L2)
            .unwrap();
        assert_eq!(r.layer(), Layer::L2);
        let e = "11G"
            .parse::<RateSpec>()
            .unwrap()
            .resolve(link, Layer::L1)
            .unwrap_err();
        assert!(e.to_string().contains("11 Gbit/s"), "{e}");
        assert!(matches!(
            "5G".parse::<RateSpec>()
                .unwrap()
                .resolve(link, Layer::Frames),
            Err(RateError::LayerMismatch { .. })
        ));
        assert_eq!(
            "line".parse::<RateSpec>().unwrap().resolve(0, Layer::L1),
            Err(RateError::NoLink)
        );
    }

    #[test]
    fn line_rate_figures() {
        // The link kinds (and their MAC rates) live in limits::link; the
        // exact floors come from Rate at L1.
        use crate::limits::link::LinkKind;
        let lan = Rate::l1_bps(LinkKind::Lan10G.mac_bps() as u64).unwrap();
        assert_eq!(lan.frames_per_sec_floor(9130, 9000), 136_612);
        assert_eq!(lan.frames_per_sec_floor(64, 18), 14_880_952);
        assert_eq!(lan.frames_per_sec_floor(1518, 1472), 812_743);
        let wan = Rate::l1_bps(LinkKind::Wan10G.mac_bps() as u64).unwrap();
        assert_eq!(wan.per_sec(), 9_285_714_285);
        assert_eq!(wan.frames_per_sec_floor(9130, 9000), 126_854);
        assert_eq!(wan.frames_per_sec_floor(64, 18), 13_818_027);
        assert_eq!(wan.frames_per_sec_floor(1518, 1472), 754_690);
        assert!((lan.frames_per_sec(9130, 9000) - 136_612.02).abs() < 0.01);
        assert_eq!(
            line_at_layer(10_000_000_000, Layer::Frames, 9130, 9000),
            136_612
        );
    }

    #[test]
    fn layer_conversion() {
        let r = Rate::l1_bps(10_000_000_000).unwrap();
        let l2 = r.at_layer(Layer::L2, 9130, 9088).unwrap();
        // 10e9 × 9130 / 9150
        assert_eq!(l2.per_sec(), 9_978_142_076);
        let f = r.at_layer(Layer::Frames, 9130, 9088).unwrap();
        assert_eq!(f.per_sec(), 136_612);
        let back = Rate::fps(136_612)
            .unwrap()
            .at_layer(Layer::L1, 9130, 9088)
            .unwrap();
        assert_eq!(back.per_sec(), 136_612 * 9150 * 8);
        assert_eq!(bits_per_frame(Layer::L1, 64, 18), 672);
        assert_eq!(bits_per_frame(Layer::L2, 64, 18), 512);
        assert_eq!(bits_per_frame(Layer::Payload, 64, 18), 144);
        assert_eq!(bits_per_frame(Layer::Frames, 64, 18), 1);
    }

    #[test]
    fn check_against_line_is_exact_and_names_the_layer() {
        let link = 10_000_000_000;
        let at_line_l2 = Rate::new(line_at_layer(link, Layer::L2, 9130, 9088), Layer::L2).unwrap();
        assert!(check_against_line(&at_line_l2, link, 9130, 9088).is_ok());
        let over = Rate::new(9_990_000_000, Layer::L2).unwrap();
        let e = check_against_line(&over, link, 9130, 9088).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("9.99 Gbit/s"), "{msg}");
        assert!(msg.contains("at L2"), "{msg}");
        assert!(msg.contains("9.978142076 Gbit/s"), "{msg}");
        assert!(check_against_line(&Rate::fps(136_612).unwrap(), link, 9130, 9088).is_ok());
        assert!(check_against_line(&Rate::fps(136_613).unwrap(), link, 9130, 9088).is_err());
        assert!(check_against_line(&Rate::fps(14_880_952).unwrap(), link, 64, 18).is_ok());
        assert!(check_against_line(&Rate::fps(14_880_953).unwrap(), link, 64, 18).is_err());
        assert!(matches!(
            check_against_line(&Rate::fps(1).unwrap(), link, 60, 10),
            Err(RateError::FrameSize { .. })
        ));
        let wan = crate::limits::link::LinkKind::Wan10G.mac_bps() as u64;
        assert!(check_against_line(&Rate::fps(126_854).unwrap(), wan, 9130, 9088).is_ok());
        assert!(check_against_line(&Rate::fps(126_855).unwrap(), wan, 9130, 9088).is_err());
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "9.5G",
            "800M",
            "136612pps",
            "95%",
            "line",
            "5G@L2",
            "9.285714285G",
        ] {
            let spec: RateSpec = s.parse().unwrap();
            let again: RateSpec = spec.to_string().parse().unwrap();
            assert_eq!(spec, again, "{s} -> {spec}");
        }
        assert_eq!(format_bps(9_285_714_285), "9.285714285 Gbit/s");
        assert_eq!(format_bps(500), "500 bit/s");
    }
}
