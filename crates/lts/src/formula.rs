//! Regular safety formulas `[R] false` (spec §4.2, MCL's and mCRL2's safety
//! fragment), compiled to a complete monitor: a Thompson NFA over action formulas,
//! then the subset construction over the product's finitely many labels. The DFA's
//! accepting states (a path matching R has been seen) are the error states.
//!
//! `R ::= A | R . R | R "|" R | R* | R+ | (R)` and
//! `A ::= true | false | "label" | 'regex' | not A | A and A | A or A | (A)`;
//! postfix operators bind tightest, then `.`, then `|`; `not` before `and` before `or`.

use std::collections::BTreeSet;

use regex::Regex;
use rustc_hash::FxHashMap;

use crate::error::{Error, Result};
use crate::exp::lexer::error_at;
use crate::monitor::{Monitor, Pattern};
use crate::network::Network;

/// An action formula.
#[derive(Clone, Debug)]
pub enum Action {
    True,
    False,
    Is(Pattern),
    Not(Box<Action>),
    And(Box<Action>, Box<Action>),
    Or(Box<Action>, Box<Action>),
}

impl Action {
    fn holds(&self, label: &str) -> bool {
        match self {
            Action::True => true,
            Action::False => false,
            Action::Is(p) => p.matches(label),
            Action::Not(a) => !a.holds(label),
            Action::And(a, b) => a.holds(label) && b.holds(label),
            Action::Or(a, b) => a.holds(label) || b.holds(label),
        }
    }
}

/// A regular formula.
#[derive(Clone, Debug)]
pub enum Regular {
    Action(Action),
    Seq(Box<Regular>, Box<Regular>),
    Choice(Box<Regular>, Box<Regular>),
    Star(Box<Regular>),
    Plus(Box<Regular>),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Word(String),
    Str(String),
    Re(String),
    Sym(char),
    Eof,
}

fn tokens(text: &str, file: &str) -> Result<Vec<(Tok, usize)>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let at = i;
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if text[i..].starts_with("(*") {
            let end = text[i + 2..].find("*)").ok_or_else(|| error_at(text, file, at, "unterminated comment"))?;
            i += end + 4;
            continue;
        }
        let tok = match c {
            b'"' | b'\'' => {
                let end =
                    text[i + 1..].find(c as char).ok_or_else(|| error_at(text, file, at, "unterminated string"))?;
                i += end + 2;
                let s = text[at + 1..at + 1 + end].to_string();
                if c == b'"' {
                    Tok::Str(s)
                } else {
                    Tok::Re(s)
                }
            }
            b'[' | b']' | b'(' | b')' | b'.' | b'|' | b'*' | b'+' => {
                i += 1;
                Tok::Sym(c as char)
            }
            c if c.is_ascii_alphabetic() => {
                while i < b.len() && b[i].is_ascii_alphanumeric() {
                    i += 1;
                }
                Tok::Word(text[at..i].to_string())
            }
            _ => {
                let ch = text[at..].chars().next().unwrap_or('?');
                return Err(
                    error_at(text, file, at, format!("unexpected character `{ch}` in a regular formula")).into()
                );
            }
        };
        out.push((tok, at));
    }
    out.push((Tok::Eof, text.len()));
    Ok(out)
}

struct Parser<'a> {
    text: &'a str,
    file: &'a str,
    toks: Vec<(Tok, usize)>,
    next: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.next].0
    }
    fn bump(&mut self) -> Tok {
        let t = self.toks[self.next].0.clone();
        if t != Tok::Eof {
            self.next += 1;
        }
        t
    }
    fn fail<T>(&self, message: &str) -> Result<T> {
        let (t, at) = &self.toks[self.next];
        let found = match t {
            Tok::Eof => "the end".to_string(),
            t => format!("{t:?}"),
        };
        Err(error_at(self.text, self.file, *at, format!("{message}, found {found}")).into())
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            return true;
        }
        false
    }
    fn word(&self, w: &str) -> bool {
        matches!(self.peek(), Tok::Word(x) if x == w)
    }
    fn deeper(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > 200 {
            return self.fail("the formula nests too deep");
        }
        Ok(())
    }

    fn choice(&mut self) -> Result<Regular> {
        let mut r = self.seq()?;
        while self.eat(&Tok::Sym('|')) {
            r = Regular::Choice(Box::new(r), Box::new(self.seq()?));
        }
        Ok(r)
    }
    fn seq(&mut self) -> Result<Regular> {
        let mut r = self.postfix()?;
        while self.eat(&Tok::Sym('.')) {
            r = Regular::Seq(Box::new(r), Box::new(self.postfix()?));
        }
        Ok(r)
    }
    fn postfix(&mut self) -> Result<Regular> {
        let mut r = self.atom()?;
        loop {
            if self.eat(&Tok::Sym('*')) {
                r = Regular::Star(Box::new(r));
            } else if self.eat(&Tok::Sym('+')) {
                r = Regular::Plus(Box::new(r));
            } else {
                return Ok(r);
            }
        }
    }
    fn atom(&mut self) -> Result<Regular> {
        self.deeper()?;
        let r = if self.eat(&Tok::Sym('(')) {
            let inner = self.choice()?;
            if !self.eat(&Tok::Sym(')')) {
                return self.fail("expected `)`");
            }
            match inner {
                // `(not "a") and "b"`: the group was the left operand of an action.
                Regular::Action(a) if self.word("and") || self.word("or") => Regular::Action(self.or_rest(a)?),
                r => r,
            }
        } else {
            Regular::Action(self.or()?)
        };
        self.depth -= 1;
        Ok(r)
    }

    fn or(&mut self) -> Result<Action> {
        let a = self.and()?;
        self.or_rest(a)
    }
    fn or_rest(&mut self, mut a: Action) -> Result<Action> {
        while self.word("and") {
            self.bump();
            a = Action::And(Box::new(a), Box::new(self.not()?));
        }
        while self.word("or") {
            self.bump();
            a = Action::Or(Box::new(a), Box::new(self.and()?));
        }
        Ok(a)
    }
    fn and(&mut self) -> Result<Action> {
        let mut a = self.not()?;
        while self.word("and") {
            self.bump();
            a = Action::And(Box::new(a), Box::new(self.not()?));
        }
        Ok(a)
    }
    fn not(&mut self) -> Result<Action> {
        self.deeper()?;
        let a = if self.word("not") {
            self.bump();
            Action::Not(Box::new(self.not()?))
        } else {
            self.primary()?
        };
        self.depth -= 1;
        Ok(a)
    }
    fn primary(&mut self) -> Result<Action> {
        let at = self.toks[self.next].1;
        match self.bump() {
            Tok::Word(w) if w == "true" => Ok(Action::True),
            Tok::Word(w) if w == "false" => Ok(Action::False),
            Tok::Str(s) => Ok(Action::Is(Pattern::Literal(s))),
            Tok::Re(r) => Regex::new(&format!("^(?:{r})$"))
                .map(|r| Action::Is(Pattern::Regex(r)))
                .map_err(|e| error_at(self.text, self.file, at, format!("bad regular expression: {e}")).into()),
            Tok::Sym('(') => {
                let a = self.or()?;
                if !self.eat(&Tok::Sym(')')) {
                    return self.fail("expected `)`");
                }
                Ok(a)
            }
            _ => {
                self.next -= 1;
                self.fail("expected an action formula (true, false, \"label\", 'regex', not, or a group)")
            }
        }
    }
}

/// Parses `[R] false`; `file` names the text in errors.
pub fn parse(text: &str, file: &str) -> Result<Regular> {
    let toks = tokens(text, file)?;
    let mut p = Parser { text, file, toks, next: 0, depth: 0 };
    if !p.eat(&Tok::Sym('[')) {
        return p.fail("expected `[`: a safety formula `[R] false` (other MCL/mCRL2 formulas are not supported)");
    }
    let r = p.choice()?;
    if !p.eat(&Tok::Sym(']')) {
        return p.fail("expected `]`");
    }
    if !p.word("false") {
        return p.fail("expected `false` after `[R]`: only `[R] false` is supported");
    }
    p.bump();
    if p.peek() != &Tok::Eof {
        return p.fail("expected the end of the formula");
    }
    Ok(r)
}

/// A Thompson NFA: `eps[s]`, `edges[s]` as (action index, target).
#[derive(Default)]
struct Nfa {
    eps: Vec<Vec<usize>>,
    edges: Vec<Vec<(usize, usize)>>,
    actions: Vec<Action>,
}

impl Nfa {
    fn state(&mut self) -> usize {
        self.eps.push(vec![]);
        self.edges.push(vec![]);
        self.eps.len() - 1
    }

    /// The fragment of `r` as (start, end).
    fn build(&mut self, r: &Regular) -> (usize, usize) {
        let (s, e) = (self.state(), self.state());
        match r {
            Regular::Action(a) => {
                self.actions.push(a.clone());
                self.edges[s].push((self.actions.len() - 1, e));
            }
            Regular::Seq(a, b) => {
                let (a0, a1) = self.build(a);
                let (b0, b1) = self.build(b);
                self.eps[s].push(a0);
                self.eps[a1].push(b0);
                self.eps[b1].push(e);
            }
            Regular::Choice(a, b) => {
                for x in [a, b] {
                    let (x0, x1) = self.build(x);
                    self.eps[s].push(x0);
                    self.eps[x1].push(e);
                }
            }
            Regular::Star(a) | Regular::Plus(a) => {
                let (a0, a1) = self.build(a);
                self.eps[s].push(a0);
                self.eps[a1].push(a0);
                self.eps[a1].push(e);
                if matches!(r, Regular::Star(_)) {
                    self.eps[s].push(e);
                }
            }
        }
        (s, e)
    }

    fn closure(&self, set: &mut BTreeSet<usize>) {
        let mut stack: Vec<usize> = set.iter().copied().collect();
        while let Some(s) = stack.pop() {
            for &t in &self.eps[s] {
                if set.insert(t) {
                    stack.push(t);
                }
            }
        }
    }
}

/// Compiles `[R] false` into a complete monitor over `net`'s labels.
pub fn monitor(name: String, r: &Regular, net: &Network) -> Result<Monitor> {
    let mut nfa = Nfa::default();
    let (start, end) = nfa.build(r);
    let labels: Vec<&str> = (0..net.labels.len() as u32).map(|l| net.label_name(l)).collect();
    // Which actions each label satisfies.
    let holds: Vec<Vec<bool>> = labels.iter().map(|l| nfa.actions.iter().map(|a| a.holds(l)).collect()).collect();
    let mut first = BTreeSet::from([start]);
    nfa.closure(&mut first);
    let mut ids: FxHashMap<BTreeSet<usize>, u32> = FxHashMap::default();
    let mut sets = vec![first.clone()];
    ids.insert(first, 0);
    let mut table: Vec<Vec<u32>> = Vec::new();
    let mut next = 0;
    while next < sets.len() {
        let set = sets[next].clone();
        let mut row = Vec::with_capacity(labels.len());
        for h in &holds {
            let mut to: BTreeSet<usize> =
                set.iter().flat_map(|&s| nfa.edges[s].iter().filter(|(a, _)| h[*a]).map(|&(_, t)| t)).collect();
            nfa.closure(&mut to);
            let id = match ids.get(&to) {
                Some(&id) => id,
                None => {
                    if sets.len() >= 1 << 20 {
                        return Err(Error::Invalid(format!("formula {name}: its automaton exceeds 2^20 states")));
                    }
                    ids.insert(to.clone(), sets.len() as u32);
                    sets.push(to);
                    sets.len() as u32 - 1
                }
            };
            row.push(id);
        }
        table.push(row);
        next += 1;
    }
    let error: Vec<bool> = sets.iter().map(|s| s.contains(&end)).collect();
    Ok(Monitor::from_dfa(name, table, error))
}

/// Reads `[R] false` from text and compiles it against `net`.
pub fn compile(text: &str, file: &str, net: &Network) -> Result<Monitor> {
    monitor(file.to_string(), &parse(text, file)?, net)
}
