//! Number and time formatting shared by the human-readable outputs.

/// Groups digits in threes with commas: 14772512 -> "14,772,512".
pub fn grouped(x: u128) -> String {
    let digits = x.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// A rate with an SI prefix: 1.5e9 -> "1.50 G".
pub fn si(x: f64) -> String {
    let (v, p) = if x >= 1e12 {
        (x / 1e12, "T")
    } else if x >= 1e9 {
        (x / 1e9, "G")
    } else if x >= 1e6 {
        (x / 1e6, "M")
    } else if x >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    format!("{v:.2} {p}")
}

/// A memory size in binary units: 67108864 -> "64.0 MiB".
pub fn bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1024.0 * 1024.0 * 1024.0 {
        format!("{:.1} GiB", b / (1024.0 * 1024.0 * 1024.0))
    } else if b >= 1024.0 * 1024.0 {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    } else if b >= 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{b} B")
    }
}

/// A duration in seconds, human scale: "0.512 s", "3 min 20 s", "2.4 days", "3.0e40 years".
pub fn duration(secs: f64) -> String {
    if secs < 60.0 {
        format!("{secs:.3} s")
    } else if secs < 3600.0 {
        format!("{} min {:.0} s", (secs / 60.0).floor(), secs % 60.0)
    } else if secs < 86400.0 * 2.0 {
        format!("{:.1} h", secs / 3600.0)
    } else if secs < 86400.0 * 365.0 * 2.0 {
        format!("{:.1} days", secs / 86400.0)
    } else {
        let years = secs / (86400.0 * 365.25);
        if years < 1e6 {
            format!("{years:.1} years")
        } else {
            // n = 64 is ~1e40 years: 41 digits say nothing more than the exponent.
            format!("{years:.1e} years")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_digits() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(14772512), "14,772,512");
        assert_eq!(grouped(234907967154122528), "234,907,967,154,122,528");
    }

    #[test]
    fn scales_durations() {
        assert_eq!(duration(0.5), "0.500 s");
        assert_eq!(duration(200.0), "3 min 20 s");
        assert_eq!(duration(86400.0 * 3.0), "3.0 days");
        assert_eq!(duration(86400.0 * 365.25 * 1869.4), "1869.4 years");
        assert_eq!(duration(86400.0 * 365.25 * 3.05e40), "3.0e40 years");
    }
}
