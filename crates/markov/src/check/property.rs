//! PRISM's property syntax, the quantitative subset warpcheck checks:
//!
//! ```text
//! property := ( '"' name '"' ':' )? query
//! query    := 'P' opt? '=?' '[' path ']'
//!           | 'R' ( '{' '"' name '"' '}' )? opt? '=?' '[' reward ']'
//!           | 'T' opt? '=?' '[' 'F' state ']'          expected time (steps in a DTMC/MDP)
//!           | 'S' '=?' '[' state ']'                    steady state (CTMC, DTMC)
//! opt      := 'min' | 'max'
//! path     := 'X' state | 'F' bound? state | state 'U' bound? state
//! bound    := '<=' number | '<' number | '[' number ',' number ']'
//! reward   := 'F' state | 'C' '<=' number | 'I' '=' number | 'S'
//! state    := or ;  or := and ('|' and)* ;  and := not ('&' not)* ;
//! not      := '!' not | '"' label '"' | 'true' | 'false' | '(' state ')'
//! ```
//!
//! A number is a literal or the name of a constant (given at check time, as `--const`).
//! Errors carry the byte offset of the problem; [`ParseError::render`] shows it under
//! the text with a caret. The parser never panics.

use std::fmt;

/// Minimise or maximise over the schedulers of an MDP.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opt {
    Min,
    Max,
}

/// A number of a bound: a literal or a constant's name.
#[derive(Clone, Debug, PartialEq)]
pub enum Num {
    Lit(f64),
    Const(String),
}

/// A state formula over labels.
#[derive(Clone, Debug, PartialEq)]
pub enum StateFormula {
    True,
    False,
    Label(String),
    Not(Box<StateFormula>),
    And(Box<StateFormula>, Box<StateFormula>),
    Or(Box<StateFormula>, Box<StateFormula>),
}

/// The time (or step) bound of an `F` or `U`.
#[derive(Clone, Debug, PartialEq)]
pub enum Bound {
    None,
    /// `<= t` (`strict` for `< t`).
    Upper {
        t: Num,
        strict: bool,
    },
    /// `[t1, t2]`.
    Interval(Num, Num),
}

/// A path formula of `P`.
#[derive(Clone, Debug, PartialEq)]
pub enum PathFormula {
    Next(StateFormula),
    /// `left U right` (`F right` is `true U right`).
    Until {
        left: StateFormula,
        right: StateFormula,
        bound: Bound,
    },
}

/// What a reward operator measures.
#[derive(Clone, Debug, PartialEq)]
pub enum RewardPath {
    /// `F goal`: the reward accumulated until `goal` is reached.
    Reach(StateFormula),
    /// `C<=k`: the reward of the first `k` steps (time `k` in a CTMC).
    Cumulative(Num),
    /// `I=k`: the state reward at step (time) `k`.
    Instant(Num),
    /// `S`: the long-run reward rate.
    Steady,
}

/// What a property asks.
#[derive(Clone, Debug, PartialEq)]
pub enum Query {
    Prob {
        opt: Option<Opt>,
        path: PathFormula,
    },
    /// `reward` is the structure's name (`None`: the first structure; `T=?` has
    /// [`Query::Time`] instead).
    Reward {
        reward: Option<String>,
        opt: Option<Opt>,
        path: RewardPath,
    },
    /// `T=? [F goal]`: expected time (steps of a DTMC/MDP) until `goal`.
    Time {
        opt: Option<Opt>,
        goal: StateFormula,
    },
    /// `S=? [phi]`: the long-run probability of being in `phi`.
    Steady(StateFormula),
}

/// A parsed property.
#[derive(Clone, Debug, PartialEq)]
pub struct Property {
    /// The `"name":` prefix, if any.
    pub name: Option<String>,
    /// The text it was parsed from (trimmed).
    pub text: String,
    pub query: Query,
}

/// A syntax error at byte `offset` of `text`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub text: String,
    pub offset: usize,
    pub message: String,
}

impl ParseError {
    /// The message, the text, and a caret under the offending character.
    pub fn render(&self) -> String {
        let col = self.text[..self.offset.min(self.text.len())].chars().count();
        format!("{} (at column {})\n  {}\n  {}^", self.message, col + 1, self.text, " ".repeat(col))
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render())
    }
}

impl std::error::Error for ParseError {}

/// Parses one property (PRISM syntax, see the module documentation).
pub fn parse(text: &str) -> Result<Property, ParseError> {
    let text = text.trim();
    let mut p = Parser { text, pos: 0 };
    let name = p.name_prefix()?;
    let query = p.query()?;
    p.skip_ws();
    if p.pos < text.len() {
        return Err(p.error("unexpected text after the property"));
    }
    Ok(Property { name, text: text.to_string(), query })
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Parser<'a> {
    fn error(&self, message: impl Into<String>) -> ParseError {
        ParseError { text: self.text.to_string(), offset: self.pos, message: message.into() }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.pos..]
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// Consumes `token` (after white space) if it comes next.
    fn eat(&mut self, token: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, token: &str, what: &str) -> Result<(), ParseError> {
        if self.eat(token) {
            Ok(())
        } else {
            Err(self.error(format!("expected {what}")))
        }
    }

    /// An identifier (letters, digits, `_`), if one comes next.
    fn ident(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(rest.len());
        if len == 0 || rest.as_bytes()[0].is_ascii_digit() {
            return None;
        }
        self.pos += len;
        Some(&rest[..len])
    }

    /// A `"quoted"` string (no escapes).
    fn quoted(&mut self) -> Result<String, ParseError> {
        self.expect("\"", "a quoted name")?;
        let rest = self.rest();
        match rest.find('"') {
            Some(end) => {
                self.pos += end + 1;
                Ok(rest[..end].to_string())
            }
            None => Err(self.error("unterminated quoted name")),
        }
    }

    fn name_prefix(&mut self) -> Result<Option<String>, ParseError> {
        let start = self.pos;
        if self.rest().starts_with('"') {
            let name = self.quoted()?;
            if self.eat(":") {
                return Ok(Some(name));
            }
            self.pos = start;
        }
        Ok(None)
    }

    fn opt(&mut self) -> Option<Opt> {
        if self.eat("min") {
            Some(Opt::Min)
        } else if self.eat("max") {
            Some(Opt::Max)
        } else {
            None
        }
    }

    fn query(&mut self) -> Result<Query, ParseError> {
        self.skip_ws();
        let at = self.pos;
        let op = self.ident().unwrap_or("");
        // `Pmin`, `Pmax`, `Rmin`, ... are one identifier.
        let (head, opt) = match op {
            "Pmin" | "Rmin" | "Tmin" => (&op[..1], Some(Opt::Min)),
            "Pmax" | "Rmax" | "Tmax" => (&op[..1], Some(Opt::Max)),
            "P" | "R" | "T" | "S" => (op, None),
            _ => {
                self.pos = at;
                return Err(self.error("expected a query: P, Pmin, Pmax, R, Rmin, Rmax, T or S followed by =?"));
            }
        };
        match head {
            "P" => {
                let opt = opt.or_else(|| self.opt());
                self.query_mark()?;
                self.expect("[", "`[`")?;
                let path = self.path()?;
                self.expect("]", "`]`")?;
                Ok(Query::Prob { opt, path })
            }
            "R" => {
                let mut reward = None;
                if opt.is_none() && self.eat("{") {
                    reward = Some(self.quoted()?);
                    self.expect("}", "`}`")?;
                }
                let opt = opt.or_else(|| self.opt());
                self.query_mark()?;
                self.expect("[", "`[`")?;
                let path = self.reward_path()?;
                self.expect("]", "`]`")?;
                Ok(Query::Reward { reward, opt, path })
            }
            "T" => {
                let opt = opt.or_else(|| self.opt());
                self.query_mark()?;
                self.expect("[", "`[`")?;
                self.expect("F", "`F` (T=? asks for the expected time to reach a state formula)")?;
                let goal = self.state()?;
                self.expect("]", "`]`")?;
                Ok(Query::Time { opt, goal })
            }
            _ => {
                self.query_mark()?;
                self.expect("[", "`[`")?;
                let phi = self.state()?;
                self.expect("]", "`]`")?;
                Ok(Query::Steady(phi))
            }
        }
    }

    fn query_mark(&mut self) -> Result<(), ParseError> {
        self.skip_ws();
        if self.rest().starts_with(['<', '>']) {
            return Err(self.error("only numerical queries (`=?`) are supported, not bounds like `>=0.5`"));
        }
        self.expect("=?", "`=?`")
    }

    /// A keyword (`X`, `F`, `U`, `C`, `I`, `S`) followed by a non-identifier character.
    fn keyword(&mut self, word: &str) -> bool {
        self.skip_ws();
        let rest = self.rest();
        if rest.starts_with(word) && !rest[word.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    fn path(&mut self) -> Result<PathFormula, ParseError> {
        if self.keyword("X") {
            return Ok(PathFormula::Next(self.state()?));
        }
        if self.keyword("F") {
            let bound = self.bound()?;
            let right = self.state()?;
            return Ok(PathFormula::Until { left: StateFormula::True, right, bound });
        }
        if self.keyword("G") {
            return Err(self.error("`G` is not supported (write it as 1 - P=? [F !phi])"));
        }
        let left = self.state()?;
        if !self.keyword("U") {
            return Err(self.error("expected `U` (or a path formula X, F)"));
        }
        let bound = self.bound()?;
        let right = self.state()?;
        Ok(PathFormula::Until { left, right, bound })
    }

    fn bound(&mut self) -> Result<Bound, ParseError> {
        if self.eat("<=") {
            return Ok(Bound::Upper { t: self.number()?, strict: false });
        }
        if self.eat("<") {
            return Ok(Bound::Upper { t: self.number()?, strict: true });
        }
        if self.eat(">") {
            return Err(self.error("lower time bounds (`>=t`) are not supported; use `[t1,t2]`"));
        }
        self.skip_ws();
        if self.rest().starts_with('[') {
            self.pos += 1;
            let t1 = self.number()?;
            self.expect(",", "`,`")?;
            let t2 = self.number()?;
            self.expect("]", "`]`")?;
            return Ok(Bound::Interval(t1, t2));
        }
        Ok(Bound::None)
    }

    fn number(&mut self) -> Result<Num, ParseError> {
        self.skip_ws();
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(i, c)| {
                !(c.is_ascii_digit()
                    || c == '.'
                    || ((c == 'e' || c == 'E') && i > 0)
                    || ((c == '-' || c == '+') && i > 0 && matches!(rest.as_bytes()[i - 1], b'e' | b'E')))
            })
            .map_or(rest.len(), |(i, _)| i);
        if len > 0 {
            return match rest[..len].parse::<f64>() {
                Ok(v) if v.is_finite() && v >= 0.0 => {
                    self.pos += len;
                    Ok(Num::Lit(v))
                }
                _ => Err(self.error(format!("`{}` is not a number", &rest[..len]))),
            };
        }
        match self.ident() {
            Some(name) => Ok(Num::Const(name.to_string())),
            None => Err(self.error("expected a number or a constant")),
        }
    }

    fn reward_path(&mut self) -> Result<RewardPath, ParseError> {
        if self.keyword("F") {
            return Ok(RewardPath::Reach(self.state()?));
        }
        if self.keyword("C") {
            self.expect("<=", "`<=` (C<=k)")?;
            return Ok(RewardPath::Cumulative(self.number()?));
        }
        if self.keyword("I") {
            self.expect("=", "`=` (I=k)")?;
            return Ok(RewardPath::Instant(self.number()?));
        }
        if self.keyword("S") {
            return Ok(RewardPath::Steady);
        }
        Err(self.error("expected a reward path: F phi, C<=k, I=k or S"))
    }

    fn state(&mut self) -> Result<StateFormula, ParseError> {
        let mut left = self.and()?;
        while self.eat("|") {
            left = StateFormula::Or(Box::new(left), Box::new(self.and()?));
        }
        Ok(left)
    }

    fn and(&mut self) -> Result<StateFormula, ParseError> {
        let mut left = self.not()?;
        while self.eat("&") {
            left = StateFormula::And(Box::new(left), Box::new(self.not()?));
        }
        Ok(left)
    }

    fn not(&mut self) -> Result<StateFormula, ParseError> {
        if self.eat("!") {
            return Ok(StateFormula::Not(Box::new(self.not()?)));
        }
        if self.eat("(") {
            let inner = self.state()?;
            self.expect(")", "`)`")?;
            return Ok(inner);
        }
        self.skip_ws();
        if self.rest().starts_with('"') {
            return Ok(StateFormula::Label(self.quoted()?));
        }
        let at = self.pos;
        match self.ident() {
            Some("true") => Ok(StateFormula::True),
            Some("false") => Ok(StateFormula::False),
            Some(other) => {
                self.pos = at;
                Err(self.error(format!(
                    "`{other}`: only labels (\"name\"), true and false are supported in state formulas, \
                     not variable expressions"
                )))
            }
            None => Err(self.error("expected a state formula: a \"label\", true, false, ! or (")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(s: &str) -> StateFormula {
        StateFormula::Label(s.into())
    }

    #[test]
    fn parses_the_supported_forms() {
        let p = parse(r#""a": Pmax=? [ F "goal" ]"#).unwrap();
        assert_eq!(p.name.as_deref(), Some("a"));
        assert_eq!(
            p.query,
            Query::Prob {
                opt: Some(Opt::Max),
                path: PathFormula::Until { left: StateFormula::True, right: label("goal"), bound: Bound::None }
            }
        );
        let p = parse(r#"P=? [ !"a" & "b" U<=k "c" | "d" ]"#).unwrap();
        let Query::Prob { opt: None, path: PathFormula::Until { left, right, bound } } = p.query else { panic!() };
        assert_eq!(left, StateFormula::And(Box::new(StateFormula::Not(Box::new(label("a")))), Box::new(label("b"))));
        assert_eq!(right, StateFormula::Or(Box::new(label("c")), Box::new(label("d"))));
        assert_eq!(bound, Bound::Upper { t: Num::Const("k".into()), strict: false });
        assert_eq!(
            parse(r#"R{"steps"}max=? [C<=20]"#).unwrap().query,
            Query::Reward {
                reward: Some("steps".into()),
                opt: Some(Opt::Max),
                path: RewardPath::Cumulative(Num::Lit(20.0))
            }
        );
        assert_eq!(
            parse("R=? [ I=1.5e1 ]").unwrap().query,
            Query::Reward { reward: None, opt: None, path: RewardPath::Instant(Num::Lit(15.0)) }
        );
        assert_eq!(parse(r#"S=? ["up"]"#).unwrap().query, Query::Steady(label("up")));
        assert_eq!(parse(r#"Tmin=? [F "s"]"#).unwrap().query, Query::Time { opt: Some(Opt::Min), goal: label("s") });
        let p = parse(r#"P=? ["a" U[0.5,2] "b"]"#).unwrap();
        let Query::Prob { path: PathFormula::Until { bound, .. }, .. } = p.query else { panic!() };
        assert_eq!(bound, Bound::Interval(Num::Lit(0.5), Num::Lit(2.0)));
        assert!(matches!(parse(r#"Pmin=? [X true]"#).unwrap().query, Query::Prob { path: PathFormula::Next(_), .. }));
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = parse(r#"P=? [F "a""#).unwrap_err();
        assert_eq!(e.offset, 10);
        assert!(e.render().contains("expected `]`"), "{}", e.render());
        let e = parse(r#"P>=0.5 [F "a"]"#).unwrap_err();
        assert_eq!(e.offset, 1);
        let e = parse(r#"P=? [F s=5]"#).unwrap_err();
        assert_eq!(e.offset, 7);
        assert!(e.render().ends_with("       ^"), "{}", e.render());
        for bad in [
            "",
            "Q=?",
            "P=? [",
            "P=? [F \"a",
            "R{=? [S]",
            "P=? [F<=-1 \"a\"]",
            "P=? [F \"a\"] x",
            "(((",
            "P=?[F<=1e999 true]",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
