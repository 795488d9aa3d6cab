//! [`Ratio`]: an exact rational number over `i128`, always normalised (denominator
//! positive, numerator and denominator coprime), with checked arithmetic.
//!
//! Comparison never overflows: it compares integer parts first and then the reciprocals
//! of the remainders (a continued-fraction expansion), so any two ratios of `i128`
//! compare exactly. Arithmetic that would overflow returns [`Overflow`].

use std::cmp::Ordering;
use std::fmt;

/// An arithmetic overflow of exact `i128` arithmetic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("exact arithmetic overflowed 128-bit integers")]
pub struct Overflow;

/// An exact rational `num / den` with `den > 0` and `gcd(num, den) = 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: i128,
    den: i128,
}

pub(crate) fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl Ratio {
    /// `num / den`, normalised; `None` if `den` is zero or the value is not
    /// representable (`i128::MIN` over a negative denominator).
    pub fn new(num: i128, den: i128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num.unsigned_abs(), den.unsigned_abs());
        // g divides both, so the quotients fit (g = 1 leaves them unchanged).
        let (mut n, mut d) = ((num.unsigned_abs() / g) as i128, (den.unsigned_abs() / g) as i128);
        if n < 0 || d < 0 {
            return None; // i128::MIN with g = 1
        }
        if (num < 0) != (den < 0) {
            n = -n;
        }
        if d == 0 {
            d = 1;
        }
        Some(Ratio { num: n, den: d })
    }

    /// The integer `n`.
    pub fn integer(n: i128) -> Ratio {
        Ratio { num: n, den: 1 }
    }

    pub fn numer(&self) -> i128 {
        self.num
    }

    pub fn denom(&self) -> i128 {
        self.den
    }

    /// `-self`.
    pub fn checked_neg(self) -> Result<Ratio, Overflow> {
        Ok(Ratio { num: self.num.checked_neg().ok_or(Overflow)?, den: self.den })
    }

    /// `self + other`.
    pub fn checked_add(self, other: Ratio) -> Result<Ratio, Overflow> {
        let a = self.num.checked_mul(other.den).ok_or(Overflow)?;
        let b = other.num.checked_mul(self.den).ok_or(Overflow)?;
        let d = self.den.checked_mul(other.den).ok_or(Overflow)?;
        Ratio::new(a.checked_add(b).ok_or(Overflow)?, d).ok_or(Overflow)
    }

    /// `self - other`.
    pub fn checked_sub(self, other: Ratio) -> Result<Ratio, Overflow> {
        self.checked_add(other.checked_neg()?)
    }

    /// `self * other`.
    pub fn checked_mul(self, other: Ratio) -> Result<Ratio, Overflow> {
        let n = self.num.checked_mul(other.num).ok_or(Overflow)?;
        let d = self.den.checked_mul(other.den).ok_or(Overflow)?;
        Ratio::new(n, d).ok_or(Overflow)
    }

    /// The nearest `f64` (to within rounding of the division).
    pub fn to_f64(&self) -> f64 {
        let q = self.num.div_euclid(self.den);
        let r = self.num.rem_euclid(self.den);
        q as f64 + r as f64 / self.den as f64
    }

    /// The value rounded half away from zero to `places` decimals, as text (`-2.33`).
    /// Exact: computed on the integers, not through `f64`. Falls back to `f64`
    /// formatting if scaling overflows.
    pub fn decimal(&self, places: u32) -> String {
        let Some(scale) = 10i128.checked_pow(places) else { return format!("{:.*}", places as usize, self.to_f64()) };
        let Some(scaled) = self.num.unsigned_abs().checked_mul(scale as u128) else {
            return format!("{:.*}", places as usize, self.to_f64());
        };
        let den = self.den as u128;
        let mut q = scaled / den;
        if (scaled % den) * 2 >= den {
            q += 1;
        }
        let sign = if self.num < 0 && q != 0 { "-" } else { "" };
        let (int, frac) = (q / scale as u128, q % scale as u128);
        if places == 0 {
            format!("{sign}{int}")
        } else {
            format!("{sign}{int}.{frac:0width$}", width = places as usize)
        }
    }
}

/// Compares `a/b` with `c/d` for `b, d > 0` without overflow (continued fractions).
pub(crate) fn compare(mut a: i128, mut b: i128, mut c: i128, mut d: i128) -> Ordering {
    if let (Some(x), Some(y)) = (a.checked_mul(d), c.checked_mul(b)) {
        return x.cmp(&y);
    }
    let mut flip = false;
    loop {
        let (qa, ra) = (a.div_euclid(b), a.rem_euclid(b));
        let (qc, rc) = (c.div_euclid(d), c.rem_euclid(d));
        let ord = qa.cmp(&qc).then(Ordering::Equal);
        if ord != Ordering::Equal {
            return if flip { ord.reverse() } else { ord };
        }
        // Equal integer parts: compare ra/b with rc/d, both in [0, 1).
        match (ra == 0, rc == 0) {
            (true, true) => return Ordering::Equal,
            (true, false) => return if flip { Ordering::Greater } else { Ordering::Less },
            (false, true) => return if flip { Ordering::Less } else { Ordering::Greater },
            (false, false) => {}
        }
        // ra/b < rc/d  <=>  b/ra > d/rc.
        (a, b, c, d) = (b, ra, d, rc);
        flip = !flip;
    }
}

impl Ord for Ratio {
    fn cmp(&self, other: &Ratio) -> Ordering {
        compare(self.num, self.den, other.num, other.den)
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Ratio) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `-7/3`, or `5` for an integer.
impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(n: i128, d: i128) -> Ratio {
        Ratio::new(n, d).unwrap()
    }

    #[test]
    fn normalises() {
        assert_eq!(r(6, -4), r(-3, 2));
        assert_eq!(r(0, -5), Ratio::integer(0));
        assert_eq!(r(-6, 3).to_string(), "-2");
        assert_eq!(r(14, -6).to_string(), "-7/3");
        assert!(Ratio::new(1, 0).is_none());
        assert!(Ratio::new(i128::MIN, -1).is_none());
        assert_eq!(r(i128::MIN, 2).numer(), i128::MIN / 2);
    }

    #[test]
    fn compares_without_overflow() {
        let big = i128::MAX;
        assert!(r(big, big - 1) < r(big - 1, big - 2));
        assert!(r(big - 1, big) > r(big - 2, big - 1));
        assert!(r(big - 2, big - 1) < r(big - 1, big));
        assert!(r(-1, 3) < r(-1, 4));
        assert!(r(7, 3) > r(2, 1));
        assert_eq!(r(4, 6).cmp(&r(2, 3)), Ordering::Equal);
        assert!(r(i128::MIN + 1, 1) < r(i128::MIN + 2, 1));
    }

    #[test]
    fn arithmetic_is_checked() {
        assert_eq!(r(1, 2).checked_add(r(1, 3)).unwrap(), r(5, 6));
        assert_eq!(r(1, 2).checked_sub(r(1, 3)).unwrap(), r(1, 6));
        assert_eq!(r(2, 3).checked_mul(r(-3, 4)).unwrap(), r(-1, 2));
        assert_eq!(Ratio::integer(i128::MAX).checked_add(Ratio::integer(1)), Err(Overflow));
        assert_eq!(Ratio::integer(i128::MIN).checked_neg(), Err(Overflow));
    }

    #[test]
    fn decimals_round_half_away_from_zero() {
        assert_eq!(r(-7, 3).decimal(2), "-2.33");
        assert_eq!(r(2, 3).decimal(2), "0.67");
        assert_eq!(r(-1, 200).decimal(2), "-0.01");
        assert_eq!(r(-1, 300).decimal(2), "0.00");
        assert_eq!(r(5, 1).decimal(3), "5.000");
        assert_eq!(r(1, 8).decimal(0), "0");
    }
}
