//! The syntax tree of a PRISM model, as written: names are strings, every node has
//! its span. The checker ([`crate::check`]) resolves it into the typed program.

use crate::diagnostic::Span;

/// A name and where it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Name {
    /// The identifier.
    pub text: String,
    /// Where it is.
    pub span: Span,
}

/// The model type keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelKind {
    /// `dtmc` or `probabilistic`.
    Dtmc,
    /// `mdp` or `nondeterministic` (also PRISM's default without a keyword).
    Mdp,
    /// `ctmc` or `stochastic`.
    Ctmc,
}

/// A constant's declared type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstType {
    /// `int` (also a `const` without type).
    Int,
    /// `double` (also `rate` and `prob`).
    Double,
    /// `bool`.
    Bool,
}

/// Unary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `!`
    Not,
}

/// Binary operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `*`
    Mul,
    /// `/` (always real division)
    Div,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `&`
    And,
    /// `|`
    Or,
    /// `=>`
    Implies,
    /// `<=>`
    Iff,
}

impl BinOp {
    /// The operator as written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "=",
            BinOp::Ne => "!=",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::Implies => "=>",
            BinOp::Iff => "<=>",
        }
    }
}

/// Built-in functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    /// `min(a, b, ...)`
    Min,
    /// `max(a, b, ...)`
    Max,
    /// `floor(x)`: an integer.
    Floor,
    /// `ceil(x)`: an integer.
    Ceil,
    /// `round(x)`: an integer, ties up.
    Round,
    /// `pow(x, y)`: an integer when both are.
    Pow,
    /// `mod(i, n)`: integers.
    Mod,
    /// `log(x, b)`: logarithm of `x` to base `b`.
    Log,
}

impl Func {
    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            Func::Min => "min",
            Func::Max => "max",
            Func::Floor => "floor",
            Func::Ceil => "ceil",
            Func::Round => "round",
            Func::Pow => "pow",
            Func::Mod => "mod",
            Func::Log => "log",
        }
    }

    /// The function of a name.
    pub fn from_name(name: &str) -> Option<Func> {
        [Func::Min, Func::Max, Func::Floor, Func::Ceil, Func::Round, Func::Pow, Func::Mod, Func::Log]
            .into_iter()
            .find(|f| f.name() == name)
    }
}

/// An expression node.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// An integer literal.
    Int(i64),
    /// A real literal.
    Double(f64),
    /// `true` or `false`.
    Bool(bool),
    /// A variable, constant or formula.
    Ident(String),
    /// `op e`
    Unary(UnOp, Box<Expr>),
    /// `a op b`
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `c ? a : b`
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `f(args)`
    Call(Func, Vec<Expr>),
}

/// An expression and its span.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Where it is.
    pub span: Span,
    /// Height of the tree: 1 for a leaf (the parser bounds it).
    pub depth: u32,
}

impl Expr {
    /// A node over `kind`, its depth one more than its deepest child's.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        let depth = 1 + match &kind {
            ExprKind::Int(_) | ExprKind::Double(_) | ExprKind::Bool(_) | ExprKind::Ident(_) => 0,
            ExprKind::Unary(_, e) => e.depth,
            ExprKind::Binary(_, a, b) => a.depth.max(b.depth),
            ExprKind::Ite(c, a, b) => c.depth.max(a.depth).max(b.depth),
            ExprKind::Call(_, args) => args.iter().map(|a| a.depth).max().unwrap_or(0),
        };
        Expr { kind, span, depth }
    }
}

/// `const T name [= value];`
#[derive(Clone, Debug, PartialEq)]
pub struct Constant {
    /// Its name.
    pub name: Name,
    /// Its declared type.
    pub ty: ConstType,
    /// Its value; `None` for an open constant, set from outside.
    pub value: Option<Expr>,
}

/// The type of a variable.
#[derive(Clone, Debug, PartialEq)]
pub enum VarType {
    /// `[lo..hi]`
    Range(Expr, Expr),
    /// `bool`
    Bool,
}

/// A variable declaration, global or of a module.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// Its name.
    pub name: Name,
    /// Its type.
    pub ty: VarType,
    /// `init e`, if given.
    pub init: Option<Expr>,
    /// The whole declaration.
    pub span: Span,
}

/// `(x' = e)`
#[derive(Clone, Debug, PartialEq)]
pub struct Assignment {
    /// The assigned variable.
    pub target: Name,
    /// The new value, read on the source state.
    pub value: Expr,
}

/// One branch of a command: `p : assignments` (`p` is 1 when not written).
#[derive(Clone, Debug, PartialEq)]
pub struct Update {
    /// The probability or rate; `None` for an update without `p :`.
    pub weight: Option<Expr>,
    /// The assignments (empty for `true`).
    pub assignments: Vec<Assignment>,
    /// Where the update is.
    pub span: Span,
}

/// `[action] guard -> updates;`
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    /// The action label; `None` for `[]`.
    pub action: Option<Name>,
    /// The guard.
    pub guard: Expr,
    /// The branches, at least one.
    pub updates: Vec<Update>,
    /// The whole command.
    pub span: Span,
}

/// A module: declared with its body or as a renaming of another.
#[derive(Clone, Debug, PartialEq)]
pub enum ModuleBody {
    /// `module M vars commands endmodule`
    Plain {
        /// The local variables.
        variables: Vec<Variable>,
        /// The commands.
        commands: Vec<Command>,
    },
    /// `module M = Base [old = new, ...] endmodule`
    Renamed {
        /// The module copied.
        base: Name,
        /// The renaming pairs, in order.
        pairs: Vec<(Name, Name)>,
    },
}

/// A module declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// Its name.
    pub name: Name,
    /// Its body.
    pub body: ModuleBody,
    /// The whole declaration.
    pub span: Span,
}

/// One item of a reward structure: `[action] guard : value;` or `guard : value;`.
#[derive(Clone, Debug, PartialEq)]
pub struct RewardItem {
    /// `None` for a state reward; `Some(None)` for `[]`; `Some(Some(a))` for `[a]`.
    pub action: Option<Option<Name>>,
    /// The states (and transitions) it applies to.
    pub guard: Expr,
    /// The reward.
    pub value: Expr,
    /// The whole item.
    pub span: Span,
}

/// `rewards "name" items endrewards`
#[derive(Clone, Debug, PartialEq)]
pub struct Rewards {
    /// The name; `None` for an unnamed structure.
    pub name: Option<Name>,
    /// The items.
    pub items: Vec<RewardItem>,
    /// The `rewards` keyword.
    pub span: Span,
}

/// A whole PRISM model file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ModelFile {
    /// The model type and where it is written; `None` when absent.
    pub kind: Option<(ModelKind, Span)>,
    /// Constants, in order.
    pub constants: Vec<Constant>,
    /// `formula name = e;`, in order.
    pub formulas: Vec<(Name, Expr)>,
    /// Global variables.
    pub globals: Vec<Variable>,
    /// Modules, in order.
    pub modules: Vec<Module>,
    /// `label "name" = e;`
    pub labels: Vec<(Name, Expr)>,
    /// Reward structures.
    pub rewards: Vec<Rewards>,
    /// `init e endinit`, at most one (a second one is a parse error).
    pub init: Option<Expr>,
}
