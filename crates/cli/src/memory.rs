//! Memory sizes: parsing `--memory` and reading this process's peak memory. The
//! budget's arithmetic (table sizes) is `warpcheck_store::budget`'s.

/// Parses `512M`, `4G`, `1.5G`, `1048576` (bytes) and the like.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let (number, unit) = match t.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => (&t[..i], t[i..].to_ascii_uppercase()),
        None => (t, String::new()),
    };
    let scale: u64 = match unit.trim_end_matches("IB").trim_end_matches('B') {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(format!("unknown unit in `{text}`: use K, M, G or T")),
    };
    let n: f64 = number.trim().parse().map_err(|_| format!("`{text}` is not a size such as 512M or 4G"))?;
    if !(n.is_finite() && n > 0.0) {
        return Err(format!("`{text}` is not a positive size"));
    }
    Ok((n * scale as f64) as u64)
}

/// `bytes` for people: `812 B`, `3.5 KiB`, `12.0 MiB`, `1.2 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    let units = [(1u64 << 40, "TiB"), (1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")];
    match units.iter().find(|(size, _)| bytes >= *size) {
        Some((size, unit)) => format!("{:.1} {unit}", bytes as f64 / *size as f64),
        None => format!("{bytes} B"),
    }
}

/// Peak resident memory of this process (`VmHWM`), if known.
pub fn peak_resident() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_for_people() {
        assert_eq!(format_bytes(812), "812 B");
        assert_eq!(format_bytes(3584), "3.5 KiB");
        assert_eq!(format_bytes(12 << 20), "12.0 MiB");
        assert_eq!(format_bytes(1288490189), "1.2 GiB");
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("512M"), Ok(512 << 20));
        assert_eq!(parse_size("4G"), Ok(4 << 30));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("1.5g"), Ok(3 << 29));
        assert_eq!(parse_size("1024"), Ok(1024));
        assert!(parse_size("lots").is_err());
        assert!(parse_size("4X").is_err());
        assert!(parse_size("-1G").is_err());
    }
}
