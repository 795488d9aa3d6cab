//! The checker: from the syntax tree to the typed [`Program`] (expressions are
//! resolved and typed in [`crate::resolve`]). It owns names and
//! scopes (constants, formulas and variables share one namespace; modules, actions and
//! labels have their own), the values of constants (given in the file or from outside,
//! in any order, cycles refused), formula expansion (before renaming, as PRISM does),
//! module renaming, typing (`int` promotes to `double`; `bool` never mixes), constant
//! folding, variable bounds and initial values, who may update which variable, and
//! the layout of the state vector.

use std::collections::HashMap;

use warpcheck_markov::ModelType;
use warpcheck_model::{Layout, SlotType};

use crate::ast::{self, ConstType, ModelKind, ModuleBody, VarType};
use crate::diagnostic::{Diagnostic, Span};
use crate::eval::{Code, TExpr, TKind, Type, Value, VarSlot};
use crate::program::{Branch, Command, Module, Program, RewardItem, RewardStructure, Var};
use crate::resolve::{lit, to_double, type_error};

/// The deepest typed expression, formulas expanded.
pub const MAX_EXPANDED_DEPTH: u32 = 1000;
/// The most expression nodes formula expansion may produce in a whole model.
pub const MAX_EXPANDED_NODES: usize = 5_000_000;
/// The largest range of an integer variable (`hi - lo`).
pub const MAX_RANGE: i64 = i32::MAX as i64 - 1;

/// Checks a parsed model with the given values of open constants (`name`, `value`).
pub fn check(file: &ast::ModelFile, source: &str, given: &[(String, String)]) -> Result<Program, Diagnostic> {
    let mut c = Checker {
        source,
        file,
        names: HashMap::new(),
        consts: HashMap::new(),
        formulas: HashMap::new(),
        var_index: HashMap::new(),
        var_types: Vec::new(),
        formula_stack: Vec::new(),
        nodes: 0,
        stack: Vec::new(),
    };
    c.run(given)
}

/// Why resolving an expression stopped.
pub(crate) enum Fail {
    /// A real error.
    Error(Diagnostic),
    /// A constant whose value is not known yet (while ordering constants).
    NotYet,
}

impl From<Diagnostic> for Fail {
    fn from(d: Diagnostic) -> Fail {
        Fail::Error(d)
    }
}

pub(crate) type R<T> = Result<T, Diagnostic>;

pub(crate) fn done<T>(r: Result<T, Fail>, what: &str, span: Span) -> R<T> {
    r.map_err(|f| match f {
        Fail::Error(d) => d,
        Fail::NotYet => Diagnostic::new(format!("{what} depends on a constant without a value"), span),
    })
}

pub(crate) enum ConstState {
    Known(Value),
    Pending,
}

/// A module's variables and commands as instantiated: a plain module, or a renamed one
/// (the base module's declarations read through the renaming).
struct Instance<'a> {
    name: &'a ast::Name,
    variables: &'a [ast::Variable],
    commands: &'a [ast::Command],
    rename: Option<HashMap<String, String>>,
    /// For a renamed module, the new names' spans by old name.
    renamed_spans: HashMap<String, Span>,
    note: Option<String>,
}

impl Instance<'_> {
    fn renamed<'n>(&'n self, name: &'n str) -> &'n str {
        self.rename.as_ref().and_then(|m| m.get(name)).map_or(name, |s| s.as_str())
    }
}

pub(crate) struct Checker<'a> {
    pub(crate) source: &'a str,
    pub(crate) file: &'a ast::ModelFile,
    /// Constants, formulas and variables: where each name is declared.
    pub(crate) names: HashMap<String, Span>,
    pub(crate) consts: HashMap<String, ConstState>,
    pub(crate) formulas: HashMap<String, &'a ast::Expr>,
    pub(crate) var_index: HashMap<String, u32>,
    pub(crate) var_types: Vec<Type>,
    pub(crate) formula_stack: Vec<String>,
    pub(crate) nodes: usize,
    pub(crate) stack: Vec<u64>,
}

impl<'a> Checker<'a> {
    fn declare(&mut self, name: &str, span: Span, what: &str) -> R<()> {
        if let Some(&first) = self.names.get(name) {
            return Err(Diagnostic::new(format!("duplicate name `{name}`"), span)
                .label(format!("{what} declared again"))
                .related(first, "first declared here"));
        }
        self.names.insert(name.to_string(), span);
        Ok(())
    }

    fn run(&mut self, given: &[(String, String)]) -> R<Program> {
        let file = self.file;
        let model_type = match file.kind.map(|k| k.0) {
            Some(ModelKind::Dtmc) => ModelType::Dtmc,
            Some(ModelKind::Ctmc) => ModelType::Ctmc,
            Some(ModelKind::Mdp) | None => ModelType::Mdp,
        };
        let constants = self.constants(given)?;
        let instances = self.instances()?;

        // Variables: global Booleans, global integers, then module by module.
        let mut vars: Vec<(VarWithInit, Span)> = Vec::new();
        let globals: Vec<&ast::Variable> = file.globals.iter().collect();
        for boolean in [true, false] {
            for v in globals.iter().filter(|v| matches!(v.ty, VarType::Bool) == boolean) {
                vars.push(self.variable(v, None, None)?);
            }
        }
        for (m, inst) in instances.iter().enumerate() {
            for boolean in [true, false] {
                for v in inst.variables.iter().filter(|v| matches!(v.ty, VarType::Bool) == boolean) {
                    let r = self.variable(v, Some(m as u32), Some(inst));
                    vars.push(r.map_err(|d| with_note(d, &inst.note))?);
                }
            }
        }
        for (i, (v, span)) in vars.iter().enumerate() {
            self.declare(&v.var.name, *span, "variable")?;
            self.var_index.insert(v.var.name.clone(), i as u32);
            self.var_types.push(if v.var.boolean { Type::Bool } else { Type::Int });
        }
        let init = match &file.init {
            Some(e) => {
                if let Some((v, span)) = vars.iter().find(|(v, _)| v.init_given) {
                    return Err(Diagnostic::new(
                        format!(
                            "variable `{}` has an initial value, but the model has an `init ... endinit` block",
                            v.var.name
                        ),
                        *span,
                    )
                    .label("remove `init ...` here")
                    .related(e.span, "the initial states are given here"));
                }
                Some(self.bool_expr(e, None)?)
            }
            None => None,
        };

        // Action indices as Storm numbers them: first appearance in the modules written
        // out, then the actions that only renamings introduce.
        let mut actions: Vec<String> = Vec::new();
        for pass in [false, true] {
            for inst in instances.iter().filter(|i| i.rename.is_some() == pass) {
                for a in inst.commands.iter().filter_map(|c| c.action.as_ref()) {
                    let name = inst.renamed(&a.text);
                    if !actions.iter().any(|x| x == name) {
                        actions.push(name.to_string());
                    }
                }
            }
        }
        let mut commands = Vec::new();
        let mut modules = Vec::new();
        for (m, inst) in instances.iter().enumerate() {
            let mut ids = Vec::new();
            for cmd in inst.commands {
                let c = self.command(cmd, m as u32, inst, &vars, &mut actions);
                commands.push(c.map_err(|d| with_note(d, &inst.note))?);
                ids.push(commands.len() as u32 - 1);
            }
            let mut alphabet: Vec<u32> = ids.iter().filter_map(|&c| commands[c as usize].action).collect();
            alphabet.sort_unstable();
            alphabet.dedup();
            modules.push(Module { name: inst.name.text.clone(), commands: ids, alphabet });
        }
        check_global_writes(&modules, &commands, &vars, &actions)?;

        let mut labels: Vec<(String, Code)> = Vec::new();
        let mut label_spans: HashMap<&str, Span> = HashMap::new();
        for (name, e) in &file.labels {
            if name.text == "init" || name.text == "deadlock" {
                return Err(Diagnostic::new(format!("the label name \"{}\" is reserved", name.text), name.span)
                    .label("built in: the initial states and the deadlock states"));
            }
            if let Some(&first) = label_spans.get(name.text.as_str()) {
                return Err(Diagnostic::new(format!("duplicate label \"{}\"", name.text), name.span)
                    .related(first, "first declared here"));
            }
            label_spans.insert(&name.text, name.span);
            labels.push((name.text.clone(), self.bool_expr(e, None)?));
        }
        let rewards = self.rewards(&actions)?;

        let vars: Vec<Var> = vars.into_iter().map(|(v, _)| v.var).collect();
        let types: Vec<SlotType> = vars.iter().map(|v| SlotType::Range { max: (v.hi - v.lo) as u32 }).collect();
        let layout = Layout::pack(&types);
        let slots = vars.iter().zip(layout.slots()).map(|(v, s)| VarSlot { slot: *s, lo: v.lo }).collect();
        Ok(Program { model_type, vars, slots, layout, actions, commands, modules, labels, rewards, init, constants })
    }

    fn constants(&mut self, given: &[(String, String)]) -> R<Vec<(String, Value)>> {
        let file = self.file;
        for c in &file.constants {
            self.declare(&c.name.text, c.name.span, "constant")?;
            self.consts.insert(c.name.text.clone(), ConstState::Pending);
        }
        for (name, text) in given {
            let Some(c) = file.constants.iter().find(|c| c.name.text == *name) else {
                return Err(Diagnostic::new(
                    format!("`--const {name}={text}`: the model has no constant `{name}`"),
                    Span::default(),
                )
                .note(format!(
                    "the model declares: {}",
                    file.constants.iter().map(|c| c.name.text.as_str()).collect::<Vec<_>>().join(", ")
                )));
            };
            if c.value.is_some() {
                return Err(Diagnostic::new(
                    format!("`--const {name}={text}`: constant `{name}` already has a value in the model"),
                    c.name.span,
                )
                .label("defined here"));
            }
            let bad = |ty: &str| {
                Diagnostic::new(format!("`--const {name}={text}`: `{text}` is not {ty}"), c.name.span)
                    .label(format!("`{name}` is declared here"))
            };
            let t = text.trim();
            let value = match c.ty {
                ConstType::Int => Value::Int(t.parse().map_err(|_| bad("an int"))?),
                ConstType::Double => {
                    let v: f64 = t.parse().map_err(|_| bad("a double"))?;
                    if !v.is_finite() {
                        return Err(bad("a finite double"));
                    }
                    Value::Double(v)
                }
                ConstType::Bool => Value::Bool(match t {
                    "true" => true,
                    "false" => false,
                    _ => return Err(bad("a bool (`true` or `false`)")),
                }),
            };
            self.consts.insert(name.clone(), ConstState::Known(value));
        }
        for c in &file.constants {
            if c.value.is_none() && !given.iter().any(|(n, _)| *n == c.name.text) {
                return Err(Diagnostic::new(format!("constant `{}` has no value", c.name.text), c.name.span)
                    .label("open constant")
                    .note(format!("give it a value from outside: --const {}=...", c.name.text)));
            }
        }
        for (name, body) in &file.formulas {
            self.declare(&name.text, name.span, "formula")?;
            self.formulas.insert(name.text.clone(), body);
        }
        // Constants may use each other (and formulas) in any order: resolve until
        // nothing moves.
        let mut pending: Vec<&ast::Constant> = file.constants.iter().filter(|c| c.value.is_some()).collect();
        while !pending.is_empty() {
            let mut still = Vec::new();
            for c in pending.iter().copied() {
                let Some(e) = &c.value else { continue };
                match self.resolve(e, None, false, 0) {
                    Ok(t) => {
                        let value = self.constant_value(&t, c)?;
                        self.consts.insert(c.name.text.clone(), ConstState::Known(value));
                    }
                    Err(Fail::NotYet) => still.push(c),
                    Err(Fail::Error(d)) => return Err(d),
                }
            }
            if still.len() == pending.len() {
                let c = still[0];
                return Err(Diagnostic::new(
                    format!("the value of constant `{}` depends on itself", c.name.text),
                    c.name.span,
                )
                .label("cyclic definition"));
            }
            pending = still;
        }
        Ok(file
            .constants
            .iter()
            .filter_map(|c| match self.consts.get(&c.name.text) {
                Some(ConstState::Known(v)) => Some((c.name.text.clone(), *v)),
                _ => None,
            })
            .collect())
    }

    fn constant_value(&mut self, t: &TExpr, c: &ast::Constant) -> R<Value> {
        let span = c.value.as_ref().map_or(c.name.span, |e| e.span);
        let TKind::Lit(v) = t.kind else {
            return Err(Diagnostic::new("not a constant expression", span));
        };
        match (c.ty, v) {
            (ConstType::Int, Value::Int(_))
            | (ConstType::Double, Value::Double(_))
            | (ConstType::Bool, Value::Bool(_)) => Ok(v),
            (ConstType::Double, Value::Int(i)) => Ok(Value::Double(i as f64)),
            (ConstType::Int, found) => Err(type_error("an int", found.ty(), span)),
            (ConstType::Double, found) => Err(type_error("a number", found.ty(), span)),
            (ConstType::Bool, found) => Err(type_error("a bool", found.ty(), span)),
        }
    }

    /// The modules with their variables and commands, renamings applied by name.
    fn instances(&mut self) -> R<Vec<Instance<'a>>> {
        let file = self.file;
        let mut seen: HashMap<&str, Span> = HashMap::new();
        let mut out = Vec::new();
        for m in &file.modules {
            if let Some(&first) = seen.get(m.name.text.as_str()) {
                return Err(Diagnostic::new(format!("duplicate module `{}`", m.name.text), m.name.span)
                    .related(first, "first declared here"));
            }
            seen.insert(&m.name.text, m.name.span);
            match &m.body {
                ModuleBody::Plain { variables, commands } => out.push(Instance {
                    name: &m.name,
                    variables,
                    commands,
                    rename: None,
                    renamed_spans: HashMap::new(),
                    note: None,
                }),
                ModuleBody::Renamed { base, pairs } => {
                    let Some(b) = file.modules.iter().find(|b| b.name.text == base.text) else {
                        return Err(Diagnostic::new(format!("no module `{}` to rename", base.text), base.span)
                            .label("unknown module"));
                    };
                    let ModuleBody::Plain { variables, commands } = &b.body else {
                        return Err(Diagnostic::new(format!("module `{}` is itself a renaming", base.text), base.span)
                            .label("rename its base module instead"));
                    };
                    let mut map = HashMap::new();
                    let mut spans = HashMap::new();
                    for (old, new) in pairs {
                        if map.insert(old.text.clone(), new.text.clone()).is_some() {
                            return Err(Diagnostic::new(format!("`{}` is renamed twice", old.text), old.span));
                        }
                        spans.insert(old.text.clone(), new.span);
                    }
                    if let Some(v) = variables.iter().find(|v| !map.contains_key(&v.name.text)) {
                        return Err(Diagnostic::new(
                            format!("variable `{}` of module `{}` is not renamed", v.name.text, base.text),
                            m.name.span,
                        )
                        .label(format!("module `{}` needs a new name for `{}`", m.name.text, v.name.text))
                        .related(v.name.span, "declared here"));
                    }
                    out.push(Instance {
                        name: &m.name,
                        variables,
                        commands,
                        rename: Some(map),
                        renamed_spans: spans,
                        note: Some(format!("in module `{}`, a renaming of module `{}`", m.name.text, base.text)),
                    });
                }
            }
        }
        Ok(out)
    }

    fn variable(&mut self, v: &ast::Variable, module: Option<u32>, inst: Option<&Instance>) -> R<(VarWithInit, Span)> {
        let rename = inst.and_then(|i| i.rename.as_ref());
        let name = inst.map_or(v.name.text.as_str(), |i| i.renamed(&v.name.text)).to_string();
        let span = inst.and_then(|i| i.renamed_spans.get(&v.name.text).copied()).unwrap_or(v.name.span);
        let int_const = |c: &mut Self, e: &ast::Expr| -> R<i64> {
            let t = done(c.resolve(e, rename, false, 0), "a bound", e.span)?;
            match t.kind {
                TKind::Lit(Value::Int(x)) => Ok(x),
                _ => Err(type_error("an int constant", t.ty, e.span)),
            }
        };
        let (lo, hi, boolean) = match &v.ty {
            VarType::Bool => (0, 1, true),
            VarType::Range(lo_e, hi_e) => {
                let lo = int_const(self, lo_e)?;
                let hi = int_const(self, hi_e)?;
                if lo > hi {
                    return Err(Diagnostic::new(
                        format!("empty range [{lo}..{hi}] of variable `{name}`"),
                        lo_e.span.to(hi_e.span),
                    )
                    .label("the lower bound is above the upper bound"));
                }
                if hi.checked_sub(lo).is_none_or(|r| r > MAX_RANGE) {
                    return Err(Diagnostic::new(
                        format!("the range [{lo}..{hi}] of variable `{name}` is too large"),
                        lo_e.span.to(hi_e.span),
                    )
                    .label(format!("at most {MAX_RANGE} above the lower bound")));
                }
                (lo, hi, false)
            }
        };
        let init = match &v.init {
            None => lo,
            Some(e) => {
                let t = done(self.resolve(e, rename, false, 0), "an initial value", e.span)?;
                match (t.kind, boolean) {
                    (TKind::Lit(Value::Bool(b)), true) => b as i64,
                    (TKind::Lit(Value::Int(x)), false) => {
                        if x < lo || x > hi {
                            return Err(Diagnostic::new(
                                format!("initial value {x} of `{name}` is outside its range [{lo}..{hi}]"),
                                e.span,
                            )
                            .label("out of range"));
                        }
                        x
                    }
                    (_, true) => return Err(type_error("a bool constant", t.ty, e.span)),
                    (_, false) => return Err(type_error("an int constant", t.ty, e.span)),
                }
            }
        };
        let var = Var { name, lo, hi, boolean, module, init };
        Ok((VarWithInit { var, init_given: v.init.is_some() }, span))
    }

    fn command(
        &mut self,
        cmd: &ast::Command,
        module: u32,
        inst: &Instance,
        vars: &[(VarWithInit, Span)],
        actions: &mut Vec<String>,
    ) -> R<Command> {
        let rename = inst.rename.as_ref();
        let action = cmd.action.as_ref().map(|a| {
            let name = inst.renamed(&a.text);
            match actions.iter().position(|x| x == name) {
                Some(i) => i as u32,
                None => {
                    actions.push(name.to_string());
                    actions.len() as u32 - 1
                }
            }
        });
        let guard = self.bool_expr(&cmd.guard, rename)?;
        let mut branches = Vec::new();
        for u in &cmd.updates {
            let weight = match &u.weight {
                Some(w) => {
                    let t = done(self.resolve(w, rename, true, 0), "a probability", w.span)?;
                    if t.ty == Type::Bool {
                        return Err(type_error("a probability or rate (a number)", t.ty, w.span));
                    }
                    Code::compile(&to_double(t))
                }
                None => Code::compile(&lit(Value::Double(1.0))),
            };
            let mut assignments: Vec<(u32, Code)> = Vec::new();
            for a in &u.assignments {
                let target = inst.renamed(&a.target.text);
                let Some(&v) = self.var_index.get(target) else {
                    return Err(
                        Diagnostic::new(format!("`{target}` is not a variable"), a.target.span).label("assigned here")
                    );
                };
                let var = &vars[v as usize].0.var;
                if var.module.is_some_and(|owner| owner != module) {
                    return Err(Diagnostic::new(
                        format!("module `{}` cannot update variable `{target}` of another module", inst.name.text),
                        a.target.span,
                    )
                    .label("not a variable of this module")
                    .related(vars[v as usize].1, "declared here"));
                }
                if assignments.iter().any(|(w, _)| *w == v) {
                    return Err(Diagnostic::new(format!("`{target}` is assigned twice in one update"), a.target.span));
                }
                let t = done(self.resolve(&a.value, rename, true, 0), "an assignment", a.value.span)?;
                let t = match (var.boolean, t.ty) {
                    (true, Type::Bool) | (false, Type::Int) => t,
                    (true, found) => return Err(type_error(&format!("a bool for `{target}`"), found, a.value.span)),
                    (false, found) => return Err(type_error(&format!("an int for `{target}`"), found, a.value.span)),
                };
                assignments.push((v, Code::compile(&t)));
            }
            branches.push(Branch { weight, assignments });
        }
        let text = self.source.get(cmd.span.start as usize..cmd.span.end as usize).unwrap_or("");
        let mut text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if text.chars().count() > 160 {
            text = text.chars().take(157).collect::<String>() + "...";
        }
        let line = self.source.get(..cmd.span.start as usize).map_or(0, |b| b.matches('\n').count()) + 1;
        Ok(Command { module, action, guard, branches, span: cmd.span, text, line })
    }

    fn rewards(&mut self, actions: &[String]) -> R<Vec<RewardStructure>> {
        let mut out: Vec<RewardStructure> = Vec::new();
        let mut spans: HashMap<String, Span> = HashMap::new();
        for r in &self.file.rewards {
            let name = r.name.as_ref().map_or(String::new(), |n| n.text.clone());
            if let Some(&first) = spans.get(&name) {
                return Err(Diagnostic::new(format!("duplicate reward structure \"{name}\""), r.span)
                    .related(first, "first declared here"));
            }
            spans.insert(name.clone(), r.span);
            let mut s = RewardStructure { name, ..RewardStructure::default() };
            for item in &r.items {
                let guard = self.bool_expr(&item.guard, None)?;
                let t = done(self.resolve(&item.value, None, true, 0), "a reward", item.value.span)?;
                if t.ty == Type::Bool {
                    return Err(type_error("a reward (a number)", t.ty, item.value.span));
                }
                let value = Code::compile(&to_double(t));
                match &item.action {
                    None => s.state.push(RewardItem { guard, value }),
                    Some(None) => s.action.push((None, RewardItem { guard, value })),
                    Some(Some(a)) => {
                        let Some(i) = actions.iter().position(|x| *x == a.text) else {
                            return Err(Diagnostic::new(format!("no command has the action `{}`", a.text), a.span)
                                .label("unknown action"));
                        };
                        s.action.push((Some(i as u32), RewardItem { guard, value }));
                    }
                }
            }
            out.push(s);
        }
        Ok(out)
    }
}

fn with_note(d: Diagnostic, note: &Option<String>) -> Diagnostic {
    match note {
        Some(n) => d.note(n.clone()),
        None => d,
    }
}

/// A variable and whether its declaration gave `init`.
struct VarWithInit {
    var: Var,
    init_given: bool,
}

/// A global variable written by two modules that synchronise on one action is an
/// error: the combined update would write it twice.
fn check_global_writes(
    modules: &[Module],
    commands: &[Command],
    vars: &[(VarWithInit, Span)],
    actions: &[String],
) -> R<()> {
    let writes = |m: &Module, a: u32| -> Vec<(u32, Span)> {
        let mut out = Vec::new();
        for &c in &m.commands {
            let c = &commands[c as usize];
            if c.action == Some(a) {
                for b in &c.branches {
                    for (v, _) in &b.assignments {
                        if vars[*v as usize].0.var.module.is_none() {
                            out.push((*v, c.span));
                        }
                    }
                }
            }
        }
        out
    };
    for (a, action) in actions.iter().enumerate() {
        let a = a as u32;
        let users: Vec<&Module> = modules.iter().filter(|m| m.alphabet.contains(&a)).collect();
        for (i, m1) in users.iter().enumerate() {
            let w1 = writes(m1, a);
            for m2 in &users[i + 1..] {
                for (v, span) in writes(m2, a) {
                    if let Some((_, first)) = w1.iter().find(|(w, _)| *w == v) {
                        return Err(Diagnostic::new(
                            format!(
                                "global variable `{}` is updated by modules `{}` and `{}`, which synchronise on `{action}`",
                                vars[v as usize].0.var.name, m1.name, m2.name
                            ),
                            span,
                        )
                        .label("second update")
                        .related(*first, "first update"));
                    }
                }
            }
        }
    }
    Ok(())
}
