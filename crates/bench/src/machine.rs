//! Where and when a table was measured: the machine by its hardware (CPU model and
//! core count from `/proc/cpuinfo`, memory from `/proc/meminfo`, GPUs from
//! `nvidia-smi`; never a host name), the date, and the commit of the checkout.

use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

/// The machine as one line, from the contents of `/proc/cpuinfo` and `/proc/meminfo`,
/// the output of `nvidia-smi --query-gpu=name,memory.total --format=csv,noheader`
/// (`None`: no nvidia-smi), and the CPUs this process may use.
pub fn describe(cpuinfo: &str, meminfo: &str, gpus: Option<&str>, available: Option<usize>) -> String {
    let mut models: Vec<&str> = Vec::new();
    let mut processors = 0usize;
    for line in cpuinfo.lines() {
        let Some((key, value)) = line.split_once(':') else { continue };
        match key.trim() {
            "processor" => processors += 1,
            "model name" | "Model" | "cpu model" => {
                let value = value.trim();
                if !value.is_empty() && !models.contains(&value) {
                    models.push(value);
                }
            }
            _ => {}
        }
    }
    let cpu = if models.is_empty() { "unknown CPU".to_string() } else { models.join(" + ") };
    let mut out = match (processors, available) {
        (0, Some(a)) => format!("{cpu}, {a} cores available"),
        (0, None) => format!("{cpu}, unknown core count"),
        (p, Some(a)) if a < p => format!("{cpu}, {p} cores ({a} available to this process)"),
        (p, _) => format!("{cpu}, {p} cores"),
    };
    let total_kib = meminfo.lines().find_map(|l| {
        let rest = l.strip_prefix("MemTotal:")?.trim();
        rest.strip_suffix("kB").unwrap_or(rest).trim().parse::<u64>().ok()
    });
    match total_kib {
        Some(kib) => out.push_str(&format!(", {:.1} GiB memory", kib as f64 / (1u64 << 20) as f64)),
        None => out.push_str(", unknown memory"),
    }
    let gpu_lines: Vec<String> = gpus
        .map(|g| {
            g.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(|l| match l.split_once(',') {
                    Some((name, memory)) => format!("{} ({})", name.trim(), memory.trim()),
                    None => l.to_string(),
                })
                .collect()
        })
        .unwrap_or_default();
    if gpu_lines.is_empty() {
        out.push_str("; no GPU");
    } else {
        // Identical cards are counted, not repeated.
        let mut counted: Vec<(String, usize)> = Vec::new();
        for g in gpu_lines {
            match counted.iter_mut().find(|(name, _)| *name == g) {
                Some((_, n)) => *n += 1,
                None => counted.push((g, 1)),
            }
        }
        let list: Vec<String> =
            counted.into_iter().map(|(g, n)| if n > 1 { format!("{n} x {g}") } else { g }).collect();
        out.push_str(&format!("; GPU: {}", list.join(", ")));
    }
    out
}

/// This machine, as [`describe`] puts it.
pub fn current() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let gpus = Command::new("nvidia-smi")
        .args(["--query-gpu=name,memory.total", "--format=csv,noheader"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).into_owned());
    let available = std::thread::available_parallelism().ok().map(|n| n.get());
    describe(&cpuinfo, &meminfo, gpus.as_deref(), available)
}

/// The number of CPUs this process may use (at least 1).
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The civil date (year, month, day) of a day count since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Howard Hinnant's algorithm (proleptic Gregorian calendar).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Today's date in UTC, `YYYY-MM-DD`.
pub fn today() -> String {
    let seconds = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs() as i64);
    let (y, m, d) = civil_from_days(seconds.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// The commit of the checkout in the current directory (`git rev-parse --short HEAD`,
/// with `-dirty` when tracked files have uncommitted changes), or `None` outside git.
pub fn git_commit() -> Option<String> {
    let out = Command::new("git").args(["rev-parse", "--short", "HEAD"]).output().ok()?;
    if !out.status.success() {
        return None;
    }
    let hash = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if hash.is_empty() {
        return None;
    }
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .is_some_and(|o| o.status.success() && !o.stdout.is_empty());
    Some(if dirty { format!("{hash}-dirty") } else { hash })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPUINFO: &str =
        "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7763 64-Core Processor\n\n\
                           processor\t: 1\nmodel name\t: AMD EPYC 7763 64-Core Processor\n\n";
    const MEMINFO: &str = "MemTotal:       16777216 kB\nMemFree:        1000 kB\n";

    #[test]
    fn machine_without_gpu() {
        assert_eq!(
            describe(CPUINFO, MEMINFO, None, Some(2)),
            "AMD EPYC 7763 64-Core Processor, 2 cores, 16.0 GiB memory; no GPU"
        );
    }

    #[test]
    fn machine_with_gpus_and_a_cpu_limit() {
        let gpus = "NVIDIA H100 80GB HBM3, 81559 MiB\nNVIDIA H100 80GB HBM3, 81559 MiB\n";
        assert_eq!(
            describe(CPUINFO, MEMINFO, Some(gpus), Some(1)),
            "AMD EPYC 7763 64-Core Processor, 2 cores (1 available to this process), 16.0 GiB memory; \
             GPU: 2 x NVIDIA H100 80GB HBM3 (81559 MiB)"
        );
    }

    #[test]
    fn machine_from_empty_files() {
        assert_eq!(describe("", "", Some(""), Some(4)), "unknown CPU, 4 cores available, unknown memory; no GPU");
    }

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(31 + 28), (1970, 3, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_454), (2026, 1, 1));
        assert_eq!(today().len(), 10);
    }
}
