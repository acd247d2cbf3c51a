//! What machine and which binary a benchmark ran on: CPU model, core counts, OS and kernel,
//! the target features the binary was compiled with, and the program version.
//!
//! A benchmark figure means little without this (hyperfine leaves it to the user; Geekbench
//! and `sysbench` print it). Sources: `/proc/cpuinfo` (`model name` on x86, `Processor` /
//! `Hardware` lines elsewhere), `/proc/sys/kernel/osrelease` and `/proc/loadavg` on Linux; `num_cpus` for
//! core counts; `cfg!(target_feature = ...)` for what the compiler was allowed to use, which is
//! what the binary runs with, not what the CPU could do.

use serde::Serialize;

/// The machine and binary a benchmark ran on.
#[derive(Clone, Debug, Serialize)]
pub struct Machine {
    /// CPU model name from /proc/cpuinfo, or "unknown" where there is none.
    pub cpu_model: String,
    /// Logical cores (hardware threads) the OS reports, count.
    pub logical_cores: usize,
    /// Physical cores, count.
    pub physical_cores: usize,
    /// Operating system, as Rust names it ("linux", "macos", "windows", ...).
    pub os: String,
    /// Kernel release from /proc/sys/kernel/osrelease, or "unknown" off Linux.
    pub kernel: String,
    /// CPU architecture the binary was compiled for ("x86_64", "aarch64", ...).
    pub arch: String,
    /// Target features the binary was compiled with (the ones the kernels can use), names.
    pub target_features: Vec<String>,
    /// Program name and version, e.g. "nqueens 0.1.0".
    pub program: String,
    /// Build profile: "release" or "debug" (debug timings are not comparable).
    pub profile: String,
    /// 1-minute load average when the benchmark started (Linux /proc/loadavg), runnable
    /// threads; null where unknown. Other work on the machine lowers every figure.
    pub load_average: Option<f64>,
}

impl Machine {
    /// Describes this machine and this binary.
    pub fn detect() -> Machine {
        Machine {
            cpu_model: cpu_model().unwrap_or_else(|| "unknown".into()),
            logical_cores: num_cpus::get(),
            physical_cores: num_cpus::get_physical(),
            os: std::env::consts::OS.into(),
            kernel: read_trimmed("/proc/sys/kernel/osrelease").unwrap_or_else(|| "unknown".into()),
            arch: std::env::consts::ARCH.into(),
            target_features: target_features().iter().map(|f| f.to_string()).collect(),
            // The command's name, not CARGO_PKG_NAME: the package is `nqueens-count` (the
            // crates.io name), the program a user runs and compares reports of is `nqueens`.
            program: concat!("nqueens ", env!("CARGO_PKG_VERSION")).into(),
            profile: if cfg!(debug_assertions) {
                "debug"
            } else {
                "release"
            }
            .into(),
            load_average: read_trimmed("/proc/loadavg")
                .and_then(|s| s.split_whitespace().next()?.parse().ok()),
        }
    }

    /// One line for the text report: "Intel(R) Xeon(R) Processor, 2 logical / 2 physical cores".
    pub fn cpu_line(&self) -> String {
        format!(
            "{}, {} logical / {} physical cores",
            self.cpu_model, self.logical_cores, self.physical_cores
        )
    }

    /// One line for the text report: "linux 6.1.0, x86_64, compiled with sse2 popcnt".
    pub fn system_line(&self) -> String {
        let features = if self.target_features.is_empty() {
            "none".to_string()
        } else {
            self.target_features.join(" ")
        };
        format!(
            "{} {}, {}, compiled with: {}",
            self.os, self.kernel, self.arch, features
        )
    }
}

/// The CPU model from /proc/cpuinfo (Linux only).
fn cpu_model() -> Option<String> {
    let info = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    parse_cpu_model(&info)
}

/// The first model line of a /proc/cpuinfo text: `model name` (x86), else `Model` or
/// `Hardware` (ARM boards), else `cpu` (POWER).
fn parse_cpu_model(info: &str) -> Option<String> {
    let value = |key: &str| {
        info.lines().find_map(|line| {
            let (k, v) = line.split_once(':')?;
            (k.trim() == key && !v.trim().is_empty()).then(|| v.trim().to_string())
        })
    };
    ["model name", "Model", "Hardware", "cpu"]
        .into_iter()
        .find_map(value)
}

fn read_trimmed(path: &str) -> Option<String> {
    let s = std::fs::read_to_string(path).ok()?;
    let s = s.trim();
    (!s.is_empty()).then(|| s.to_string())
}

/// The target features the compiler was told it may use for this binary. The list covers
/// what matters to bit-board kernels (popcount, bit manipulation, vector widths); a feature
/// missing here may still be present in the CPU (build with `-C target-cpu=native` to use it).
fn target_features() -> Vec<&'static str> {
    let mut f = Vec::new();
    macro_rules! check {
        ($($name:tt),*) => {
            $(if cfg!(target_feature = $name) { f.push($name); })*
        };
    }
    check!(
        "sse2",
        "sse4.1",
        "sse4.2",
        "popcnt",
        "lzcnt",
        "bmi1",
        "bmi2",
        "avx",
        "avx2",
        "fma",
        "avx512f",
        "avx512vpopcntdq"
    );
    check!("neon", "sve", "sve2");
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_x86_and_arm_model_lines() {
        let x86 = "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\nflags\t: fpu\n";
        assert_eq!(
            parse_cpu_model(x86).as_deref(),
            Some("Intel(R) Xeon(R) Processor")
        );
        let pi = "processor\t: 0\nBogoMIPS\t: 108.00\n\nHardware\t: BCM2835\nModel\t: Raspberry Pi 4 Model B Rev 1.4\n";
        assert_eq!(
            parse_cpu_model(pi).as_deref(),
            Some("Raspberry Pi 4 Model B Rev 1.4")
        );
        assert_eq!(parse_cpu_model("processor\t: 0\n"), None);
    }

    #[test]
    fn detects_something_sensible() {
        let m = Machine::detect();
        assert!(m.logical_cores >= 1 && m.physical_cores >= 1);
        assert!(!m.cpu_model.is_empty() && !m.os.is_empty());
        assert!(m.program.starts_with("nqueens "));
    }
}
