//! The EXP 2.0 subset of spec §2.2: its syntax tree and a recursive-descent parser.
//! Which constructs may nest how (one flat `par`) is checked when the network is
//! built ([`crate::network`]), with the positions kept here.

pub mod lexer;

use lexer::{error_at, tokens, Tok, Token};

use crate::error::Result;

/// A behaviour of the subset; `at` is a byte offset in the `.exp` text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Behaviour {
    /// A component file, `"name.aut"`.
    File { path: String, at: usize },
    /// `hide [all but] L, ... in B end hide`.
    Hide { all_but: bool, labels: Vec<String>, body: Box<Behaviour> },
    /// `cut L, ... in B end cut`.
    Cut { labels: Vec<String>, body: Box<Behaviour> },
    /// `[total] rename a -> b, ... in B end rename`.
    Rename { pairs: Vec<(String, String)>, body: Box<Behaviour> },
    /// `[label] par [using] V, ... in B || ... end par`.
    Par { vectors: Vec<Vector>, operands: Vec<Behaviour>, at: usize },
}

/// A synchronisation vector `e1 * ... * en -> result` (`None` for `_`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Vector {
    pub elements: Vec<Option<String>>,
    pub result: String,
    pub at: usize,
}

/// Parses `.exp` text; `file` names it in errors.
pub fn parse(text: &str, file: &str) -> Result<Behaviour> {
    let tokens = tokens(text, file)?;
    let mut p = Parser { text, file, tokens, next: 0, depth: 0 };
    let b = p.behaviour()?;
    p.expect(&Tok::Eof, "after the network")?;
    Ok(b)
}

/// Behaviours nest at most this deep (the parser recurses).
const MAX_DEPTH: usize = 200;

struct Parser<'a> {
    text: &'a str,
    file: &'a str,
    tokens: Vec<Token>,
    next: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> &Token {
        &self.tokens[self.next]
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.next].clone();
        if t.tok != Tok::Eof {
            self.next += 1;
        }
        t
    }

    fn fail<T>(&self, at: usize, message: impl Into<String>) -> Result<T> {
        Err(error_at(self.text, self.file, at, message).into())
    }

    fn expected<T>(&self, what: &str) -> Result<T> {
        let t = self.peek();
        self.fail(t.at, format!("expected {what}, found {}", t.tok.show()))
    }

    fn expect(&mut self, tok: &Tok, context: &str) -> Result<()> {
        if &self.peek().tok == tok {
            self.bump();
            return Ok(());
        }
        self.expected(&format!("{} {context}", tok.show()))
    }

    fn is_word(&self, word: &str) -> bool {
        matches!(&self.peek().tok, Tok::Ident(w) if w == word)
    }

    fn keyword(&mut self, word: &str, context: &str) -> Result<()> {
        if self.is_word(word) {
            self.bump();
            return Ok(());
        }
        self.expected(&format!("`{word}` {context}"))
    }

    /// `end WORD`.
    fn end(&mut self, word: &str) -> Result<()> {
        self.keyword("end", &format!("to close `{word}`"))?;
        self.keyword(word, "after `end`")
    }

    fn label(&mut self, what: &str) -> Result<String> {
        match self.peek().tok.clone() {
            Tok::Str(s) | Tok::Ident(s) => {
                self.bump();
                Ok(s)
            }
            _ => self.expected(what),
        }
    }

    fn labels(&mut self) -> Result<Vec<String>> {
        let mut labels = vec![self.label("a label")?];
        while self.peek().tok == Tok::Comma {
            self.bump();
            labels.push(self.label("a label")?);
        }
        Ok(labels)
    }

    fn behaviour(&mut self) -> Result<Behaviour> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.fail(self.peek().at, format!("behaviours nest more than {MAX_DEPTH} levels deep"));
        }
        let b = self.behaviour_inner();
        self.depth -= 1;
        b
    }

    fn behaviour_inner(&mut self) -> Result<Behaviour> {
        let t = self.peek().clone();
        match &t.tok {
            Tok::Str(path) => {
                self.bump();
                Ok(Behaviour::File { path: path.clone(), at: t.at })
            }
            Tok::LParen => {
                self.bump();
                let b = self.behaviour()?;
                self.expect(&Tok::RParen, "to close `(`")?;
                Ok(b)
            }
            Tok::Ident(w) => match w.as_str() {
                "hide" => {
                    self.bump();
                    let all_but = self.is_word("all");
                    if all_but {
                        self.bump();
                        self.keyword("but", "after `hide all`")?;
                    }
                    let labels = self.labels()?;
                    self.keyword("in", "after the hidden labels")?;
                    let body = Box::new(self.behaviour()?);
                    self.end("hide")?;
                    Ok(Behaviour::Hide { all_but, labels, body })
                }
                "cut" => {
                    self.bump();
                    let labels = self.labels()?;
                    self.keyword("in", "after the cut labels")?;
                    let body = Box::new(self.behaviour()?);
                    self.end("cut")?;
                    Ok(Behaviour::Cut { labels, body })
                }
                "total" | "rename" => {
                    self.bump();
                    if w == "total" {
                        self.keyword("rename", "after `total`")?;
                    }
                    let mut pairs = Vec::new();
                    loop {
                        let from = self.label("a label to rename")?;
                        self.expect(&Tok::Arrow, "in a renaming `a -> b`")?;
                        let to = self.label("the new label")?;
                        pairs.push((from, to));
                        if self.peek().tok != Tok::Comma {
                            break;
                        }
                        self.bump();
                    }
                    self.keyword("in", "after the renamings")?;
                    let body = Box::new(self.behaviour()?);
                    self.end("rename")?;
                    Ok(Behaviour::Rename { pairs, body })
                }
                "label" | "par" => self.par(),
                "gate" | "priority" | "partial" | "single" | "all" => {
                    self.fail(t.at, format!("`{w}` is not in the supported EXP subset (see the user guide, docs/guide/src/formats/networks.md)"))
                }
                _ => self.fail(
                    t.at,
                    format!("expected a behaviour (a quoted .aut file, `par`, `hide`, `cut`, `rename`), found `{w}`"),
                ),
            },
            _ => self.expected("a behaviour (a quoted .aut file, `par`, `hide`, `cut`, `rename`)"),
        }
    }

    fn par(&mut self) -> Result<Behaviour> {
        let at = self.peek().at;
        if self.is_word("label") {
            self.bump();
        }
        self.keyword("par", "after `label`")?;
        if self.is_word("using") {
            self.bump();
        }
        let mut vectors = Vec::new();
        if !self.is_word("in") {
            loop {
                vectors.push(self.vector()?);
                if self.peek().tok != Tok::Comma {
                    break;
                }
                self.bump();
            }
        }
        self.keyword("in", "after the synchronisation vectors")?;
        let mut operands = vec![self.behaviour()?];
        while self.peek().tok == Tok::Bars {
            self.bump();
            operands.push(self.behaviour()?);
        }
        self.end("par")?;
        Ok(Behaviour::Par { vectors, operands, at })
    }

    fn vector(&mut self) -> Result<Vector> {
        let at = self.peek().at;
        let mut elements = Vec::new();
        loop {
            if self.peek().tok == Tok::Underscore {
                self.bump();
                elements.push(None);
            } else {
                elements.push(Some(self.label("a label or `_` in a synchronisation vector")?));
            }
            if self.peek().tok != Tok::Star {
                break;
            }
            self.bump();
        }
        self.expect(&Tok::Arrow, "before the vector's result label")?;
        let result = self.label("the vector's result label")?;
        Ok(Vector { elements, result, at })
    }
}
