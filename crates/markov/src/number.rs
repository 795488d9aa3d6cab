//! The decimal forms of doubles the writers use: Storm's (C's `%.17g`, 17 significant
//! digits, which reads back as the same double) and the shortest decimal that reads back
//! as the same double, in Python's `repr` layout without a trailing `.0` (the layout of
//! the PRISM explicit files in `shared/markov`).

use std::fmt::Write;

/// A small stack buffer to format one number into without allocating.
struct Scratch {
    bytes: [u8; 64],
    len: usize,
}

impl Scratch {
    fn new() -> Scratch {
        Scratch { bytes: [0; 64], len: 0 }
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len]).unwrap_or("")
    }
}

impl Write for Scratch {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        if end > self.bytes.len() {
            return Err(std::fmt::Error);
        }
        self.bytes[self.len..end].copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

/// Splits Rust's `{:e}` form (`-1.25e-7`) into sign, digits without the point, and the
/// decimal exponent.
fn split_scientific(s: &str) -> (bool, String, i32) {
    let (negative, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let (mantissa, exponent) = s.split_once('e').unwrap_or((s, "0"));
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    (negative, digits, exponent.parse().unwrap_or(0))
}

/// Appends `digits` (the first one before the point) times ten to the `exponent` in
/// C's scientific layout (`1.5e-07`, `2e+20`: at least two exponent digits).
fn push_scientific(out: &mut String, digits: &str, exponent: i32) {
    let (first, rest) = digits.split_at(1.min(digits.len()));
    out.push_str(first);
    if !rest.is_empty() {
        out.push('.');
        out.push_str(rest);
    }
    let _ = write!(out, "e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.unsigned_abs());
}

/// Appends non-finite values and zeros as C prints them; false for other numbers.
fn push_special(out: &mut String, x: f64) -> bool {
    if x.is_nan() {
        out.push_str("nan");
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
    } else if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0" } else { "0" });
    } else {
        return false;
    }
    true
}

/// Appends `x` as C's `printf("%.17g", x)`, the form Storm writes (`0.10000000000000001`,
/// `1`, `1.1574074074074073e-05`).
pub(crate) fn push_g17(out: &mut String, x: f64) {
    if push_special(out, x) {
        return;
    }
    let mut scratch = Scratch::new();
    let _ = write!(scratch, "{x:.16e}");
    let (negative, digits, exponent) = split_scientific(scratch.as_str());
    let digits = digits.trim_end_matches('0');
    if negative {
        out.push('-');
    }
    if !(-4..17).contains(&exponent) {
        push_scientific(out, digits, exponent);
    } else if exponent >= 0 {
        let point = exponent as usize + 1;
        if digits.len() <= point {
            out.push_str(digits);
            out.extend(std::iter::repeat_n('0', point - digits.len()));
        } else {
            out.push_str(&digits[..point]);
            out.push('.');
            out.push_str(&digits[point..]);
        }
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', exponent.unsigned_abs() as usize - 1));
        out.push_str(digits);
    }
}

/// Appends the shortest decimal that reads back as `x`: plain (`0.5`, `1`, `0.0001`)
/// for exponents -4 to 15, else scientific (`7.716049382716049e-07`), as Python's
/// `repr` writes floats but without its trailing `.0` on whole numbers.
pub(crate) fn push_shortest(out: &mut String, x: f64) {
    if push_special(out, x) {
        return;
    }
    let mut scratch = Scratch::new();
    let _ = write!(scratch, "{x:e}");
    let (negative, digits, exponent) = split_scientific(scratch.as_str());
    if (-4..16).contains(&exponent) {
        let _ = write!(out, "{x}");
    } else {
        if negative {
            out.push('-');
        }
        push_scientific(out, &digits, exponent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g17(x: f64) -> String {
        let mut s = String::new();
        push_g17(&mut s, x);
        s
    }

    fn shortest(x: f64) -> String {
        let mut s = String::new();
        push_shortest(&mut s, x);
        s
    }

    #[test]
    fn g17_matches_c() {
        // Values as glibc's printf("%.17g") prints them (and as they appear in the
        // shared DRN files).
        assert_eq!(g17(0.1), "0.10000000000000001");
        assert_eq!(g17(1.0), "1");
        assert_eq!(g17(0.5), "0.5");
        assert_eq!(g17(10.0067), "10.0067");
        assert_eq!(g17("0.0087000000000000011".parse().unwrap()), "0.0087000000000000011");
        assert_eq!(g17(1.1574074074074073e-05), "1.1574074074074073e-05");
        assert_eq!(g17(3.1709791983764586e-08), "3.1709791983764586e-08");
        assert_eq!(g17(0.0001), "0.0001");
        assert_eq!(g17(100.0), "100");
        assert_eq!(g17(1e16), "10000000000000000");
        assert_eq!(g17(1e17), "1e+17");
        assert_eq!(g17(1.5e300), "1.5000000000000001e+300");
        assert_eq!(g17(2.5e-5), "2.5000000000000001e-05");
        assert_eq!(g17(-2.5), "-2.5");
        assert_eq!(g17(0.0), "0");
        assert_eq!(g17(-0.0), "-0");
        assert_eq!(g17(1.0 / 3.0), "0.33333333333333331");
        assert_eq!(g17(5e-324), "4.9406564584124654e-324");
        assert_eq!(g17(f64::INFINITY), "inf");
    }

    #[test]
    fn shortest_matches_python_repr() {
        assert_eq!(shortest(1.0), "1");
        assert_eq!(shortest(0.1), "0.1");
        assert_eq!(shortest(1.0 / 3.0), "0.3333333333333333");
        assert_eq!(shortest(1.9999999999999996), "1.9999999999999996");
        assert_eq!(shortest(7.716049382716049e-07), "7.716049382716049e-07");
        assert_eq!(shortest(0.0001), "0.0001");
        assert_eq!(shortest(0.00001), "1e-05");
        assert_eq!(shortest(1e15), "1000000000000000");
        assert_eq!(shortest(1e16), "1e+16");
        assert_eq!(shortest(-3.5), "-3.5");
        assert_eq!(shortest(0.0), "0");
    }

    #[test]
    fn both_forms_read_back_exactly() {
        let mut x = 0.1f64;
        for _ in 0..2000 {
            for v in [x, -x, 1.0 / x, x * 1e-300, x * 1e290] {
                assert_eq!(g17(v).parse::<f64>().unwrap().to_bits(), v.to_bits(), "{v:e}");
                assert_eq!(shortest(v).parse::<f64>().unwrap().to_bits(), v.to_bits(), "{v:e}");
            }
            x = x * 1.37 + 0.013;
            if x > 1e6 {
                x /= 1e9;
            }
        }
    }
}
