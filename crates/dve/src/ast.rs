//! The syntax tree of a DVE model, as parsed, with spans for diagnostics.

use crate::diagnostic::Span;

/// A name as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// DVE's two variable types.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VarType {
    Byte,
    Int,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    BitNot,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    Imply,
    Or,
    And,
    BitOr,
    BitAnd,
    BitXor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Shl,
    Shr,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

/// An expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ExprKind {
    Number(i64),
    Bool(bool),
    /// A variable or constant.
    Name(Ident),
    /// `a[e]`.
    Index(Ident, Box<Expr>),
    /// `P.s`: process P is in state s.
    InState(Ident, Ident),
    /// `P->x` or `P->a[e]`: a local variable of another process.
    Remote(Ident, Ident, Option<Box<Expr>>),
    Unary(UnaryOp, Box<Expr>),
    Binary(BinaryOp, Box<Expr>, Box<Expr>),
}

/// A variable initialiser: one expression or a `{...}` list for arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Init {
    Scalar(Expr),
    List(Vec<Expr>, Span),
}

/// One declared variable or constant (`int a[3] = {1,2,3}` declares one).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VarDecl {
    pub is_const: bool,
    pub ty: VarType,
    pub name: Ident,
    /// Array size expression, for arrays.
    pub size: Option<Expr>,
    pub init: Option<Init>,
}

/// One declared channel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChannelDecl {
    pub name: Ident,
    /// Item types of a typed channel; `None` for an untyped rendezvous channel.
    pub types: Option<Vec<VarType>>,
    /// Buffer size of a typed channel (0 = rendezvous).
    pub capacity: Option<Expr>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncDir {
    Send,
    Receive,
}

/// `sync c!v`, `sync c?x`, with optional `{...}` value lists.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sync {
    pub channel: Ident,
    pub dir: SyncDir,
    /// Sent expressions, or receiving lvalues (names or indexed names).
    pub values: Vec<Expr>,
    pub span: Span,
}

/// `target = value` in an effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assign {
    pub target: Expr,
    pub value: Expr,
}

/// One transition `from -> to { guard ...; sync ...; effect ...; }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransDecl {
    /// The source state; an omitted source repeats the previous transition's.
    pub from: Ident,
    pub to: Ident,
    pub guard: Option<Expr>,
    pub sync: Option<Sync>,
    pub effects: Vec<Assign>,
    pub span: Span,
}

/// A process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessDecl {
    pub name: Ident,
    pub vars: Vec<VarDecl>,
    pub states: Vec<Ident>,
    pub init: Option<Ident>,
    pub commit: Vec<Ident>,
    pub accept: Vec<Ident>,
    pub asserts: Vec<(Ident, Expr)>,
    pub transitions: Vec<TransDecl>,
    pub span: Span,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SystemKind {
    Async,
    Sync,
}

/// The closing `system async|sync [property P];`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SystemDecl {
    pub kind: SystemKind,
    pub property: Option<Ident>,
    pub span: Span,
}

/// A whole DVE file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    pub vars: Vec<VarDecl>,
    pub channels: Vec<ChannelDecl>,
    pub processes: Vec<ProcessDecl>,
    pub system: SystemDecl,
}
