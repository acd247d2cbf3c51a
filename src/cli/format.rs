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
///
/// Rounded once, to what is shown, before it is cut into minutes and seconds: rounding the
/// seconds apart from the minutes printed 119.7 s as "1 min 60 s", and 59.9996 s as
/// "60.000 s".
pub fn duration(secs: f64) -> String {
    if (secs * 1000.0).round() < 60_000.0 {
        return format!("{secs:.3} s");
    }
    let whole = secs.round();
    if whole < 3600.0 {
        let whole = whole as u64;
        format!("{} min {} s", whole / 60, whole % 60)
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

/// A duration that may be far below a second, in a unit that shows it: "850 ns",
/// "12.3 µs", "4.6 ms", and from a second on as [`duration`] says. (Unit times of
/// `estimate 18` were "median 0.000 s, p99 0.000 s".)
pub fn fine_duration(secs: f64) -> String {
    for (scale, unit, decimals) in [(1e9, "ns", 0), (1e6, "µs", 1), (1e3, "ms", 1)] {
        let shown = (secs * scale * 10f64.powi(decimals)).round() / 10f64.powi(decimals);
        if shown < 1000.0 {
            return format!("{shown:.*} {unit}", decimals as usize);
        }
    }
    duration(secs)
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
        // Rounded once: no "60 s" (estimate 20 printed "1 min 60 s").
        assert_eq!(duration(119.7), "2 min 0 s");
        assert_eq!(duration(59.9996), "1 min 0 s");
        assert_eq!(duration(59.9994), "59.999 s");
        assert_eq!(duration(3599.6), "1.0 h");
        assert_eq!(duration(3599.4), "59 min 59 s");
        for tenths in 0..36_000 {
            let d = duration(f64::from(tenths) / 10.0 + 0.05);
            assert!(!d.contains(" 60 s") && !d.starts_with("60."), "{d}");
        }
        assert_eq!(duration(86400.0 * 365.25 * 1869.4), "1869.4 years");
        assert_eq!(duration(86400.0 * 365.25 * 3.05e40), "3.0e40 years");
    }

    #[test]
    fn fine_durations_show_times_below_a_second() {
        assert_eq!(fine_duration(0.0), "0 ns");
        assert_eq!(fine_duration(8.5e-7), "850 ns");
        assert_eq!(fine_duration(1.234e-5), "12.3 µs");
        assert_eq!(fine_duration(4.56e-3), "4.6 ms");
        assert_eq!(fine_duration(0.99996), "1.000 s");
        assert_eq!(fine_duration(0.9994), "999.4 ms");
        assert_eq!(fine_duration(200.0), "3 min 20 s");
    }
}
