//! The rounding rules of a certification's figures, one per kind of
//! figure (the table in [`super::format`]), and the text escaping the XML
//! outputs share: plain functions of numbers and text, below the model.

/// What a figure reads when it is not a number.
pub const NOT_A_NUMBER: &str = "n/a";

/// The rounding rules of one certification (the decimals of "% of line"
/// follow its search resolution).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    pct_decimals: usize,
}

impl Format {
    /// The rules for a certification whose throughput search has this
    /// resolution, % of line.
    pub fn new(resolution_pct: f64) -> Self {
        Self {
            pct_decimals: pct_decimals(resolution_pct),
        }
    }

    /// A rate in % of line.
    pub fn pct(&self, x: f64) -> String {
        fixed(x, self.pct_decimals)
    }
}

/// Decimals "% of line" needs to show a search's `resolution` (in % of
/// line): one more than the resolution's own, at least 2, at most 6.
pub fn pct_decimals(resolution: f64) -> usize {
    if !(resolution.is_finite() && resolution > 0.0) {
        return 2;
    }
    let own = (-resolution.log10()).ceil();
    (own + 1.0).clamp(2.0, 6.0) as usize
}

/// `x` with `decimals` decimals; `-0.00` reads `0.00`.
pub fn fixed(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return NOT_A_NUMBER.to_string();
    }
    let s = format!("{x:.decimals$}");
    match s.strip_prefix('-') {
        Some(rest) if rest.bytes().all(|b| b == b'0' || b == b'.') => rest.to_string(),
        _ => s,
    }
}

/// `x` with `digits` significant digits, never in exponent notation (at
/// most 12 decimals).
pub fn significant(x: f64, digits: u32) -> String {
    if !x.is_finite() {
        return NOT_A_NUMBER.to_string();
    }
    if x == 0.0 {
        return "0".to_string();
    }
    let magnitude = x.abs().log10().floor() as i64;
    let decimals = (i64::from(digits) - 1 - magnitude).clamp(0, 12) as usize;
    fixed(x, decimals)
}

/// A bit rate as a plain number: whole bit/s.
pub fn bps(bps: f64) -> String {
    fixed(bps, 0)
}

/// A bit rate for people, in the unit that fits it: 3 significant
/// digits in Mbit/s below 1 Gbit/s (`50.0 Mbit/s`, `0.512 Mbit/s`), in
/// Gbit/s from there (`5.37 Gbit/s`, `99.9 Gbit/s`).
pub fn rate(bps: f64) -> String {
    if !bps.is_finite() {
        return NOT_A_NUMBER.to_string();
    }
    // Decided on the rounded figure: 999.96 Mbit/s reads 1.00 Gbit/s.
    let mbps = significant(bps / 1e6, 3);
    match mbps.parse::<f64>() {
        Ok(m) if m.abs() < 1_000.0 => format!("{mbps} Mbit/s"),
        Ok(m) => format!("{} Gbit/s", significant(m / 1e3, 3)),
        Err(_) => mbps,
    }
}

/// The digits of a plain number with thousands separators (`,`) in its
/// whole part: `7992699` → `7,992,699`, `234368.5` → `234,368.5`,
/// `-1234` → `-1,234`. Text that is not a plain number is returned as
/// it is.
pub fn grouped(plain: &str) -> String {
    let (sign, rest) = match plain.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", plain),
    };
    let (whole, frac) = match rest.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (rest, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if !digits(whole) || frac.is_some_and(|f| !digits(f)) {
        return plain.to_string();
    }
    let mut out = String::with_capacity(plain.len() + whole.len() / 3);
    out.push_str(sign);
    for (i, ch) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// A whole number (frames per second, nanoseconds) rounded from `x`.
pub fn whole(x: f64) -> String {
    fixed(x, 0)
}

/// A frame loss rate in %.
pub fn loss_pct(x: f64) -> String {
    significant(x, 3)
}

/// A time in seconds.
pub fn seconds(x: f64) -> String {
    significant(x, 4)
}

/// A mean of frame counts.
pub fn mean_frames(x: f64) -> String {
    fixed(x, 1)
}

/// A flag.
pub fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// A bit rate for people: `10 Gbit/s`, `2.5 Gbit/s`, `100 Mbit/s` (at
/// most three decimals: the units' one bit-rate format).
pub fn bit_rate(bps: u64) -> String {
    crate::units::format_bit_rate(bps as f64, crate::units::Digits::Trimmed(3))
}

/// A duration in seconds for people: `60 s`, `0.5 s`.
pub fn duration(s: f64) -> String {
    format!("{} s", trimmed(s))
}

/// Up to 3 decimals, trailing zeros dropped: `2.5`, `10`, `0.125`.
pub fn trimmed(x: f64) -> String {
    let s = fixed(x, 3);
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Text made safe for HTML and XML content and attribute values: the five
/// markup characters become references, line breaks and tabs become
/// character references (so an attribute keeps them), and the characters
/// XML 1.0 cannot carry at all become U+FFFD.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if is_xml_char(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

/// A character XML 1.0 allows in a document.
fn is_xml_char(c: char) -> bool {
    matches!(c, '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}
