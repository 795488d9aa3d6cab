//! Exact numbers for PDDL's numeric fluents: [`Ratio`], a fraction of `i128`s in
//! lowest terms with checked arithmetic (every operation returns `None` on overflow or
//! division by zero, never a wrapped or rounded value). The parser reads numbers into
//! it, the grounder folds static expressions with it, and the validator simulates every
//! numeric effect with it, so that a decimal such as `2.5` or a quotient such as
//! `(/ 95 10)` stays exact wherever it appears.

use std::cmp::Ordering;
use std::fmt;

/// A rational number `num / den` with `den > 0` and `gcd(num, den) = 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    num: i128,
    den: i128,
}

/// The greatest common divisor of `|a|` and `|b|`; `None` for `i128::MIN`.
fn gcd(a: i128, b: i128) -> Option<i128> {
    let (mut a, mut b) = (a.checked_abs()?, b.checked_abs()?);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    Some(a)
}

impl Ratio {
    /// Zero.
    pub const ZERO: Ratio = Ratio { num: 0, den: 1 };

    /// The integer `n`.
    pub fn int(n: i64) -> Ratio {
        Ratio { num: n.into(), den: 1 }
    }

    /// `num / den` in lowest terms; `None` when `den` is 0 (or on overflow).
    pub fn new(num: i128, den: i128) -> Option<Ratio> {
        if den == 0 {
            return None;
        }
        let g = gcd(num, den)?;
        let (num, den) = (num / g, den / g);
        if den < 0 {
            Some(Ratio { num: num.checked_neg()?, den: den.checked_neg()? })
        } else {
            Some(Ratio { num, den })
        }
    }

    /// A decimal number as PDDL writes it: `12`, `-3`, `0.25`, `+7`; `None` for
    /// anything else (exponents, several points, no digits).
    pub fn parse(text: &str) -> Option<Ratio> {
        let (negative, digits) = match text.as_bytes().first()? {
            b'-' => (true, &text[1..]),
            b'+' => (false, &text[1..]),
            _ => (false, text),
        };
        let (whole, fraction) = digits.split_once('.').unwrap_or((digits, ""));
        if whole.is_empty() && fraction.is_empty() {
            return None;
        }
        if !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        let mut num: i128 = 0;
        for b in whole.bytes().chain(fraction.bytes()) {
            num = num.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
        }
        let den = 10i128.checked_pow(u32::try_from(fraction.len()).ok()?)?;
        Ratio::new(if negative { -num } else { num }, den)
    }

    /// The denominator (positive, in lowest terms).
    pub fn denominator(self) -> i128 {
        self.den
    }

    /// As a decimal number when it has one (`2.5`, `-0.125`, `3`), else `num/den`.
    pub fn to_decimal(self) -> String {
        let (mut den, mut digits) = (self.den, 0u32);
        for p in [2, 5] {
            while den % p == 0 {
                den /= p;
            }
        }
        if den != 1 {
            return self.to_string();
        }
        while 10i128.pow(digits) % self.den != 0 {
            digits += 1;
        }
        let scaled = self.num * (10i128.pow(digits) / self.den);
        if digits == 0 {
            return scaled.to_string();
        }
        let unit = 10i128.pow(digits);
        let sign = if scaled < 0 { "-" } else { "" };
        let fraction = format!("{:0width$}", scaled.abs() % unit, width = digits as usize);
        format!("{sign}{}.{}", scaled.abs() / unit, fraction.trim_end_matches('0'))
    }

    /// The value when it is an integer that fits an `i64`.
    pub fn to_integer(self) -> Option<i64> {
        if self.den == 1 {
            i64::try_from(self.num).ok()
        } else {
            None
        }
    }

    pub fn checked_add(self, o: Ratio) -> Option<Ratio> {
        let num = self.num.checked_mul(o.den)?.checked_add(o.num.checked_mul(self.den)?)?;
        Ratio::new(num, self.den.checked_mul(o.den)?)
    }

    pub fn checked_sub(self, o: Ratio) -> Option<Ratio> {
        self.checked_add(o.checked_neg()?)
    }

    pub fn checked_mul(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(self.num.checked_mul(o.num)?, self.den.checked_mul(o.den)?)
    }

    /// `None` when `o` is 0.
    pub fn checked_div(self, o: Ratio) -> Option<Ratio> {
        Ratio::new(self.num.checked_mul(o.den)?, self.den.checked_mul(o.num)?)
    }

    pub fn checked_neg(self) -> Option<Ratio> {
        Some(Ratio { num: self.num.checked_neg()?, den: self.den })
    }

    /// The order of two values; `None` when the cross products overflow.
    pub fn checked_cmp(self, o: Ratio) -> Option<Ordering> {
        Some(self.num.checked_mul(o.den)?.cmp(&o.num.checked_mul(self.den)?))
    }
}

impl fmt::Display for Ratio {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.den == 1 {
            write!(f, "{}", self.num)
        } else {
            write!(f, "{}/{}", self.num, self.den)
        }
    }
}

/// A comparison of two numeric expressions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Cmp {
    Less,
    LessEq,
    Equal,
    GreaterEq,
    Greater,
}

impl Cmp {
    /// `<`, `<=`, `=`, `>=`, `>`.
    pub fn parse(text: &str) -> Option<Cmp> {
        Some(match text {
            "<" => Cmp::Less,
            "<=" => Cmp::LessEq,
            "=" => Cmp::Equal,
            ">=" => Cmp::GreaterEq,
            ">" => Cmp::Greater,
            _ => return None,
        })
    }

    /// Whether `order` (of left against right) satisfies the comparison.
    pub fn holds(self, order: Ordering) -> bool {
        match self {
            Cmp::Less => order == Ordering::Less,
            Cmp::LessEq => order != Ordering::Greater,
            Cmp::Equal => order == Ordering::Equal,
            Cmp::GreaterEq => order != Ordering::Less,
            Cmp::Greater => order == Ordering::Greater,
        }
    }

    /// The comparison that holds exactly where this one does not (of defined values).
    pub fn negated(self) -> Option<Cmp> {
        Some(match self {
            Cmp::Less => Cmp::GreaterEq,
            Cmp::LessEq => Cmp::Greater,
            Cmp::GreaterEq => Cmp::Less,
            Cmp::Greater => Cmp::LessEq,
            // `!=` is a disjunction of `<` and `>`: the caller builds it.
            Cmp::Equal => return None,
        })
    }

    /// As PDDL writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            Cmp::Less => "<",
            Cmp::LessEq => "<=",
            Cmp::Equal => "=",
            Cmp::GreaterEq => ">=",
            Cmp::Greater => ">",
        }
    }
}

/// A numeric effect's operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assign {
    /// `(assign f e)`: `f := e`.
    Assign,
    /// `(increase f e)`: `f := f + e`.
    Increase,
    /// `(decrease f e)`: `f := f - e`.
    Decrease,
    /// `(scale-up f e)`: `f := f * e`.
    ScaleUp,
}

impl Assign {
    /// Whether effects of this kind on one fluent add up (in any order).
    pub fn additive(self) -> bool {
        matches!(self, Assign::Increase | Assign::Decrease)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_parse_exactly_and_arithmetic_is_checked() {
        assert_eq!(Ratio::parse("2.5"), Ratio::new(5, 2));
        assert_eq!(Ratio::parse("-3"), Some(Ratio::int(-3)));
        assert_eq!(Ratio::parse("+.5"), Ratio::new(1, 2));
        for bad in ["", "-", ".", "1e3", "1.2.3", "x", "--1", "0x10"] {
            assert_eq!(Ratio::parse(bad), None, "{bad:?}");
        }
        assert_eq!(Ratio::parse("99999999999999999999999999999999999999999"), None);
        let third = Ratio::new(1, 3).unwrap();
        assert_eq!(third.checked_mul(Ratio::int(3)).and_then(Ratio::to_integer), Some(1));
        assert_eq!(Ratio::int(95).checked_div(Ratio::int(10)).unwrap().to_string(), "19/2");
        assert_eq!(Ratio::int(1).checked_div(Ratio::ZERO), None);
        let big = Ratio::new(i128::MAX, 1).unwrap();
        assert_eq!(big.checked_add(Ratio::int(1)), None);
        assert_eq!(big.checked_mul(Ratio::int(2)), None);
        assert_eq!(Ratio::new(i128::MIN, -1), None);
        assert_eq!(third.checked_cmp(Ratio::new(1, 2).unwrap()), Some(Ordering::Less));
        let decimal = |n, d| Ratio::new(n, d).unwrap().to_decimal();
        assert_eq!(
            [decimal(5, 2), decimal(-1, 8), decimal(6, 2), decimal(-7, 3), decimal(1, 20)],
            ["2.5", "-0.125", "3", "-7/3", "0.05"]
        );
    }
}
