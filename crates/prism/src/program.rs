//! The checked program: what the checker ([`crate::check`]) makes of a model file and
//! what the successor generator ([`crate::model`]) runs. Names are resolved, formulas
//! expanded, renamed modules instantiated, constants folded, every expression compiled
//! to typed stack code ([`Code`]); variables are packed into a [`Layout`].

use warpcheck_markov::ModelType;
use warpcheck_model::Layout;

use crate::diagnostic::Span;
use crate::eval::{Code, Value, VarSlot};

/// A state variable.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    /// Its name.
    pub name: String,
    /// Lower bound (0 for a Boolean).
    pub lo: i64,
    /// Upper bound (1 for a Boolean).
    pub hi: i64,
    /// Whether it is a Boolean.
    pub boolean: bool,
    /// The owning module; `None` for a global variable.
    pub module: Option<u32>,
    /// Its initial value (the lower bound or `false` when not given).
    pub init: i64,
}

/// One branch of a command.
#[derive(Clone, Debug, PartialEq)]
pub struct Branch {
    /// Probability (rate in a CTMC), a real.
    pub weight: Code,
    /// `(variable, new value)`, evaluated on the source state.
    pub assignments: Vec<(u32, Code)>,
}

/// A command of a module (renamed modules have their own copies).
#[derive(Clone, Debug, PartialEq)]
pub struct Command {
    /// The module it belongs to.
    pub module: u32,
    /// Its action; `None` for `[]`.
    pub action: Option<u32>,
    /// The guard.
    pub guard: Code,
    /// The branches.
    pub branches: Vec<Branch>,
    /// Where the command is written (in the base module for a renamed one).
    pub span: Span,
    /// The command's source text, for messages.
    pub text: String,
    /// Its line in the source (1-based).
    pub line: usize,
}

/// A module: a name, its commands (ids) and its alphabet.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    /// Its name.
    pub name: String,
    /// Its commands, in order.
    pub commands: Vec<u32>,
    /// The actions of its commands, ascending.
    pub alphabet: Vec<u32>,
}

/// One item of a reward structure.
#[derive(Clone, Debug, PartialEq)]
pub struct RewardItem {
    /// The states it applies to.
    pub guard: Code,
    /// The reward, a real.
    pub value: Code,
}

/// A reward structure.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct RewardStructure {
    /// Its name (`""` when unnamed).
    pub name: String,
    /// State rewards.
    pub state: Vec<RewardItem>,
    /// Action rewards: `None` for `[]` (unlabelled commands), else the action.
    pub action: Vec<(Option<u32>, RewardItem)>,
}

/// A whole checked PRISM program.
#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// DTMC, CTMC or MDP.
    pub model_type: ModelType,
    /// Variables in Storm's `.sta` order: global Booleans, global integers, then module
    /// by module the Booleans and the integers; slot `i` of the layout is variable `i`.
    pub vars: Vec<Var>,
    /// Where each variable lives.
    pub slots: Vec<VarSlot>,
    /// The packed state layout.
    pub layout: Layout,
    /// The action names, in order of first appearance (Storm's action indices - 1).
    pub actions: Vec<String>,
    /// All commands, module by module.
    pub commands: Vec<Command>,
    /// The modules, in order.
    pub modules: Vec<Module>,
    /// `label "name" = e`.
    pub labels: Vec<(String, Code)>,
    /// The reward structures, in order.
    pub rewards: Vec<RewardStructure>,
    /// The `init ... endinit` predicate, if any.
    pub init: Option<Code>,
    /// Every constant and its value, in declaration order.
    pub constants: Vec<(String, Value)>,
}
