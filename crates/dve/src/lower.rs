//! The checker and lowering of a parsed DVE [`Module`] to a [`Program`]: declarations
//! to slots, processes to control slots, transitions to transition groups (local
//! steps, rendezvous pairs, buffered sends and receives), the property process to the
//! model's Büchi automaton, `assert` to assertions.
//!
//! Every static error is a [`Diagnostic`] pointing into the source.

use std::collections::HashMap;

use crate::ir::{ArrayRef, Assertion, BinOp, Expr as IrExpr, Group, GroupKind, LValue, Participant, Stmt};
use warpcheck_model::{Automaton, AutomatonEdge, Layout, SlotType};

use crate::{Channel, Process, Program, Property, SyncMode, Transition, Variable};

use crate::ast::*;
use crate::diagnostic::{Diagnostic, Span};
use crate::names::{Names, ProcessNames, Symbol, VarInfo};

/// Largest number of slots a model may have (a guard against absurd array sizes).
const MAX_SLOTS: u64 = 1 << 20;

/// A channel as the checker sees it.
struct ChannelInfo {
    name: Ident,
    /// Item types; `None` for untyped channels.
    types: Option<Vec<VarType>>,
    capacity: u32,
    /// First item cell and the count slot of a buffered channel.
    cells: u32,
    count: u32,
}

/// A transition with its guard and effects lowered, before grouping.
struct Lowered {
    process: u32,
    index: u32,
    from: i32,
    to: i32,
    guard: Option<IrExpr>,
    effects: Vec<Stmt>,
    committed: bool,
    sync: Option<(u32, SyncDir, Vec<Expr>, Span)>,
}

struct Lowerer<'a> {
    module: &'a Module,
    source: &'a str,
    names: Names,
    types: Vec<SlotType>,
    initial: Vec<i32>,
    variables: Vec<Variable>,
    channels: Vec<ChannelInfo>,
    temps: u32,
    /// Per variable: how many of its elements have an initial value written in the
    /// model (an initial value may read those, as in DiVinE 2.4).
    initialised: Vec<u32>,
}

fn slot_type(ty: VarType) -> SlotType {
    match ty {
        VarType::Byte => SlotType::Byte,
        VarType::Int => SlotType::Int,
    }
}

fn type_name(ty: VarType) -> &'static str {
    match ty {
        VarType::Byte => "byte",
        VarType::Int => "int",
    }
}

fn duplicate(what: &str, name: &Ident, previous: Span) -> Diagnostic {
    Diagnostic::new(format!("duplicate {what} `{}`", name.name), name.span)
        .label("declared again here")
        .related(previous, "first declared here")
}

/// Checks a parsed module and lowers it to a model, returning the names as well (to
/// compile expressions given later, such as invariants, in the model's scope).
pub fn lower(module: &Module, source: &str) -> Result<(Program, Names), Diagnostic> {
    let mut l = Lowerer {
        module,
        source,
        names: Names::default(),
        types: vec![],
        initial: vec![],
        variables: vec![],
        channels: vec![],
        temps: 0,
        initialised: vec![],
    };
    l.declare_channels()?;
    for decl in &module.vars {
        l.declare_var(None, decl)?;
    }
    l.declare_processes()?;
    l.allocate_channel_buffers()?;
    let property = l.property_process()?;
    let mode = match module.system.kind {
        SystemKind::Async => SyncMode::Async,
        SystemKind::Sync => SyncMode::Sync,
    };
    let mut processes = Vec::new();
    let mut lowered = Vec::new();
    let mut assertions = Vec::new();
    for (pi, decl) in module.processes.iter().enumerate() {
        let pi = pi as u32;
        processes.push(l.process_info(pi, decl)?);
        for (state, e) in &decl.asserts {
            let s = l.state(pi, state)?;
            let expr = l.names.lower_expr(Some(pi), e)?;
            let text = source[e.span.start as usize..e.span.end as usize].to_string();
            assertions.push(Assertion { process: pi, state: s, expr, text });
        }
        for (ti, t) in decl.transitions.iter().enumerate() {
            lowered.push(l.transition(pi, ti as u32, t, &processes[pi as usize])?);
        }
    }
    let (groups, property) = l.group(lowered, property, mode)?;
    let layout = Layout::pack(&l.types);
    let channels = l
        .channels
        .iter()
        .map(|c| Channel {
            name: c.name.name.clone(),
            capacity: c.capacity,
            count: (c.capacity > 0).then_some(c.count),
        })
        .collect();
    let mut model = Program {
        layout,
        variables: l.variables,
        processes,
        channels,
        initial_values: l.initial,
        groups,
        mode,
        property: None,
        assertions,
        temps: l.temps,
        overflow: crate::Overflow::Error,
        predicates: vec![],
    };
    if let Some((process, edges)) = property {
        model.property = Some(property_automaton(&mut model, process, edges));
    }
    Ok((model, l.names))
}

/// The property process and its transitions.
type PropertyProcess = (u32, Vec<PropertyEdge>);

/// A transition of the property process, its guard lowered and as written.
struct PropertyEdge {
    from: u32,
    to: u32,
    guard: Option<(IrExpr, String)>,
}

/// The property process as an automaton over the model's labels: each guard becomes
/// a predicate of the model.
fn property_automaton(model: &mut Program, process: u32, edges: Vec<PropertyEdge>) -> Property {
    let p = &model.processes[process as usize];
    let (name, states, accepting) = (p.name.clone(), p.states.clone(), p.accepting.clone());
    let initial = model.layout.slot(p.control).get(&model.initial_state()) as u32;
    let edges = edges
        .into_iter()
        .map(|e| {
            let guard = match e.guard {
                None => vec![vec![]],
                Some((expr, text)) => {
                    let text =
                        format!("{text} (guard of {name}: {} -> {})", states[e.from as usize], states[e.to as usize]);
                    vec![vec![(model.add_predicate(&text, expr), true)]]
                }
            };
            AutomatonEdge { from: e.from, to: e.to, guard }
        })
        .collect();
    Property { process, automaton: Automaton { name, states, initial, accepting, edges } }
}

impl Lowerer<'_> {
    fn slot(&mut self, ty: SlotType, initial: i32) -> Result<u32, Diagnostic> {
        let id = self.types.len() as u32;
        self.types.push(ty);
        self.initial.push(initial);
        Ok(id)
    }

    fn line(&self, span: Span) -> u32 {
        self.source[..(span.start as usize).min(self.source.len())].matches('\n').count() as u32 + 1
    }

    /// Checks a global name is fresh (processes, channels and globals share a scope).
    fn fresh_global(&self, name: &Ident) -> Result<(), Diagnostic> {
        if let Some((_, span)) = self.names.globals.get(&name.name) {
            return Err(duplicate("name", name, *span));
        }
        if let Some((_, span)) = self.names.channels.get(&name.name) {
            return Err(duplicate("name", name, *span));
        }
        if let Some(&p) = self.names.process_index.get(&name.name) {
            return Err(duplicate("name", name, self.names.processes[p as usize].span));
        }
        Ok(())
    }

    fn declare_channels(&mut self) -> Result<(), Diagnostic> {
        for decl in &self.module.channels {
            self.fresh_global(&decl.name)?;
            let capacity = match &decl.capacity {
                None => 0,
                Some(e) => {
                    let c = self.names.constant(None, e, "a channel size")?;
                    if !(0..=65535).contains(&c) {
                        return Err(Diagnostic::new(format!("invalid channel size {c}"), e.span)
                            .label("must be between 0 (rendezvous) and 65535"));
                    }
                    c as u32
                }
            };
            if let Some(types) = &decl.types {
                if types.is_empty() {
                    return Err(Diagnostic::new("a typed channel needs at least one item type", decl.name.span));
                }
            }
            let id = self.channels.len() as u32;
            self.names.channels.insert(decl.name.name.clone(), (id, decl.name.span));
            self.channels.push(ChannelInfo {
                name: decl.name.clone(),
                types: decl.types.clone(),
                capacity,
                cells: 0,
                count: 0,
            });
        }
        Ok(())
    }

    /// Declares a global (`process` None) or local variable or constant.
    fn declare_var(&mut self, process: Option<u32>, decl: &VarDecl) -> Result<(), Diagnostic> {
        match process {
            None => self.fresh_global(&decl.name)?,
            Some(p) => {
                if let Some((_, span)) = self.names.processes[p as usize].locals.get(&decl.name.name) {
                    return Err(duplicate("variable", &decl.name, *span));
                }
            }
        }
        let ty = slot_type(decl.ty);
        let check_range = |value: i32, span: Span| {
            if value < ty.min() || value > ty.max() {
                Err(Diagnostic::new(format!("initial value {value} out of range for `{}`", type_name(decl.ty)), span)
                    .label(format!("`{}` holds {}..{}", type_name(decl.ty), ty.min(), ty.max())))
            } else {
                Ok(value)
            }
        };
        let symbol = if decl.is_const {
            if decl.size.is_some() {
                return Err(Diagnostic::new("constant arrays are not supported", decl.name.span)
                    .label("declare it without `const`"));
            }
            let Some(Init::Scalar(e)) = &decl.init else {
                return Err(Diagnostic::new(format!("constant `{}` has no value", decl.name.name), decl.name.span)
                    .label("write `const ... = value`"));
            };
            Symbol::Const(check_range(self.initial_value(process, e, "a constant's value")?, e.span)?)
        } else {
            let len = match &decl.size {
                None => 1,
                Some(e) => {
                    let n = self.names.constant(process, e, "an array size")?;
                    if n <= 0 || self.types.len() as u64 + n as u64 > MAX_SLOTS {
                        return Err(Diagnostic::new(format!("invalid array size {n}"), e.span)
                            .label(format!("must be between 1 and {MAX_SLOTS} in all")));
                    }
                    n as u32
                }
            };
            let mut values = vec![0; len as usize];
            match &decl.init {
                None => {}
                Some(Init::Scalar(e)) if decl.size.is_none() => {
                    values[0] = check_range(self.initial_value(process, e, "an initial value")?, e.span)?;
                }
                Some(Init::Scalar(e)) => {
                    return Err(
                        Diagnostic::new("an array is initialised with a list", e.span).label("write `{ value, ... }`")
                    )
                }
                Some(Init::List(_, span)) if decl.size.is_none() => {
                    return Err(Diagnostic::new(format!("`{}` is not an array", decl.name.name), *span)
                        .label("a list initialises an array"))
                }
                Some(Init::List(items, _)) => {
                    // Like DiVinE 2.4, values beyond the array's length are ignored
                    // (BEEM's `anderson` models have one too many).
                    for (v, e) in values.iter_mut().zip(items) {
                        *v = check_range(self.initial_value(process, e, "an initial value")?, e.span)?;
                    }
                }
            }
            let initialised = match &decl.init {
                None => 0,
                Some(Init::Scalar(_)) => 1,
                Some(Init::List(items, _)) => (items.len() as u32).min(len),
            };
            self.initialised.push(initialised);
            let first = self.types.len() as u32;
            for v in values {
                self.slot(ty, v)?;
            }
            let var = self.variables.len() as u32;
            self.variables.push(Variable {
                name: decl.name.name.clone(),
                process,
                first,
                len,
                is_array: decl.size.is_some(),
            });
            self.names.vars.push(VarInfo { ty: decl.ty, first, len, is_array: decl.size.is_some() });
            Symbol::Var(var)
        };
        let entry = (symbol, decl.name.span);
        match process {
            None => self.names.globals.insert(decl.name.name.clone(), entry),
            Some(p) => self.names.processes[p as usize].locals.insert(decl.name.name.clone(), entry),
        };
        Ok(())
    }

    /// The value of an initialiser or a constant's value `e`. Like DiVinE 2.4, a
    /// variable declared (and initialised) before may be read: it stands for its
    /// initial value, with a warning; everything else must be constant.
    fn initial_value(&mut self, process: Option<u32>, e: &Expr, what: &str) -> Result<i32, Diagnostic> {
        let not_constant = match self.names.constant(process, e, what) {
            Ok(value) => return Ok(value),
            Err(d) => d,
        };
        let mut warnings = Vec::new();
        let value = self.initial_expr(process, e, what, &mut warnings)?;
        if warnings.is_empty() {
            return Err(not_constant);
        }
        self.names.warnings.extend(warnings);
        Ok(value)
    }

    fn initial_expr(
        &self,
        process: Option<u32>,
        e: &Expr,
        what: &str,
        warnings: &mut Vec<Diagnostic>,
    ) -> Result<i32, Diagnostic> {
        let not_initialised = |id: &Ident| {
            Diagnostic::new(format!("`{}` has no initial value to read in {what}", id.name), id.span)
                .label("declared without an initial value")
                .note("an initial value may read constants and variables initialised before it")
        };
        Ok(match &e.kind {
            ExprKind::Number(n) => *n as i32,
            ExprKind::Bool(b) => *b as i32,
            ExprKind::Name(id) => match self.names.lookup(process, &id.name) {
                Some(Symbol::Const(c)) => c,
                Some(Symbol::Var(v)) => {
                    let info = &self.names.vars[v as usize];
                    if info.is_array {
                        return Err(Diagnostic::new(
                            format!("array `{}` used without an index in {what}", id.name),
                            id.span,
                        )
                        .label(format!("write `{}[index]`", id.name)));
                    }
                    if self.initialised[v as usize] == 0 {
                        return Err(not_initialised(id));
                    }
                    let value = self.initial[info.first as usize];
                    warnings.push(
                        Diagnostic::warning(
                            format!("variable `{}` read in {what}: taken as its initial value {value}", id.name),
                            id.span,
                        )
                        .label(format!("initial value {value}"))
                        .note("DiVinE 2.4 evaluates initialisers over the initial values of the variables declared before"),
                    );
                    value
                }
                None => {
                    return Err(Diagnostic::new(format!("undefined name `{}`", id.name), id.span).label("not declared"))
                }
            },
            ExprKind::Index(id, index) => {
                let i = self.initial_expr(process, index, what, warnings)?;
                let Some(Symbol::Var(v)) = self.names.lookup(process, &id.name) else {
                    return self.names.constant(process, e, what);
                };
                let info = &self.names.vars[v as usize];
                if !info.is_array {
                    return self.names.constant(process, e, what);
                }
                if i < 0 || i as u32 >= self.initialised[v as usize] {
                    return Err(Diagnostic::new(
                        format!("`{}[{i}]` has no initial value to read in {what}", id.name),
                        e.span,
                    )
                    .label(format!("`{}` has {} initialised element(s)", id.name, self.initialised[v as usize])));
                }
                let value = self.initial[(info.first + i as u32) as usize];
                warnings.push(
                    Diagnostic::warning(
                        format!("variable `{}[{i}]` read in {what}: taken as its initial value {value}", id.name),
                        e.span,
                    )
                    .label(format!("initial value {value}"))
                    .note("DiVinE 2.4 evaluates initialisers over the initial values of the variables declared before"),
                );
                value
            }
            ExprKind::Unary(op, a) => {
                let a = self.initial_expr(process, a, what, warnings)?;
                match op {
                    UnaryOp::Neg => a.wrapping_neg(),
                    UnaryOp::BitNot => !a,
                    UnaryOp::Not => (a == 0) as i32,
                }
            }
            ExprKind::Binary(op, a, b) => {
                let (a, b) =
                    (self.initial_expr(process, a, what, warnings)?, self.initial_expr(process, b, what, warnings)?);
                crate::eval::binary(crate::names::binary_op(*op), a, b)
                    .map_err(|err| Diagnostic::new(format!("{err} in {what}"), e.span))?
            }
            ExprKind::InState(..) | ExprKind::Remote(..) => return self.names.constant(process, e, what),
        })
    }

    fn declare_processes(&mut self) -> Result<(), Diagnostic> {
        // Register every process and its states first: guards may name any of them.
        for decl in &self.module.processes {
            self.fresh_global(&decl.name)?;
            let mut states = HashMap::new();
            let mut spans: HashMap<&str, Span> = HashMap::new();
            for (i, s) in decl.states.iter().enumerate() {
                if let Some(prev) = spans.insert(&s.name, s.span) {
                    return Err(duplicate("state", s, prev));
                }
                states.insert(s.name.clone(), i as u32);
            }
            let id = self.names.processes.len() as u32;
            self.names.process_index.insert(decl.name.name.clone(), id);
            self.names.processes.push(ProcessNames {
                name: decl.name.name.clone(),
                span: decl.name.span,
                states,
                ..Default::default()
            });
        }
        for (pi, decl) in self.module.processes.iter().enumerate() {
            let init = match &decl.init {
                Some(i) => self.state(pi as u32, i)?,
                None => {
                    return Err(Diagnostic::new(
                        format!("process `{}` has no `init` state", decl.name.name),
                        decl.name.span,
                    )
                    .label("declared here")
                    .note("add `init state_name;` after the state list"))
                }
            };
            let control = self.slot(SlotType::Range { max: decl.states.len() as u32 - 1 }, init)?;
            self.names.processes[pi].control = control;
            for v in &decl.vars {
                self.declare_var(Some(pi as u32), v)?;
            }
        }
        Ok(())
    }

    fn allocate_channel_buffers(&mut self) -> Result<(), Diagnostic> {
        for c in 0..self.channels.len() {
            let (capacity, types) = (self.channels[c].capacity, self.channels[c].types.clone().unwrap_or_default());
            if capacity == 0 {
                continue;
            }
            if self.types.len() as u64 + capacity as u64 * types.len() as u64 > MAX_SLOTS {
                return Err(Diagnostic::new("channel buffer too large", self.channels[c].name.span));
            }
            let count = self.slot(SlotType::Range { max: capacity }, 0)?;
            let cells = self.types.len() as u32;
            for _ in 0..capacity {
                for &ty in &types {
                    self.slot(slot_type(ty), 0)?;
                }
            }
            self.channels[c].count = count;
            self.channels[c].cells = cells;
        }
        Ok(())
    }

    fn property_process(&self) -> Result<Option<u32>, Diagnostic> {
        let Some(name) = &self.module.system.property else { return Ok(None) };
        match self.names.process_index.get(&name.name) {
            Some(&p) => Ok(Some(p)),
            None => Err(Diagnostic::new(format!("undefined property process `{}`", name.name), name.span)
                .label("no process of this name")),
        }
    }

    fn state(&self, process: u32, name: &Ident) -> Result<i32, Diagnostic> {
        let p = &self.names.processes[process as usize];
        p.states.get(&name.name).map(|&s| s as i32).ok_or_else(|| {
            Diagnostic::new(format!("process `{}` has no state `{}`", p.name, name.name), name.span)
                .label("not in its `state` list")
        })
    }

    fn state_flags(&self, process: u32, names: &[Ident], count: usize) -> Result<Vec<bool>, Diagnostic> {
        let mut flags = vec![false; count];
        for n in names {
            flags[self.state(process, n)? as usize] = true;
        }
        Ok(flags)
    }

    fn process_info(&self, pi: u32, decl: &ProcessDecl) -> Result<Process, Diagnostic> {
        let n = decl.states.len();
        let mut transitions = Vec::new();
        for t in &decl.transitions {
            transitions.push(Transition {
                from: self.state(pi, &t.from)? as u32,
                to: self.state(pi, &t.to)? as u32,
                line: self.line(t.span),
            });
        }
        Ok(Process {
            name: decl.name.name.clone(),
            control: self.names.processes[pi as usize].control,
            states: decl.states.iter().map(|s| s.name.clone()).collect(),
            accepting: self.state_flags(pi, &decl.accept, n)?,
            committed: self.state_flags(pi, &decl.commit, n)?,
            transitions,
        })
    }

    fn transition(&mut self, pi: u32, ti: u32, t: &TransDecl, info: &Process) -> Result<Lowered, Diagnostic> {
        let p = Some(pi);
        let guard = t.guard.as_ref().map(|g| self.names.lower_expr(p, g)).transpose()?;
        let mut effects = Vec::new();
        for a in &t.effects {
            let target = self.names.lower_lvalue(p, &a.target)?;
            effects.push(Stmt::Assign(target, self.names.lower_expr(p, &a.value)?));
        }
        let sync = match &t.sync {
            None => None,
            Some(s) => {
                let Some(&(c, _)) = self.names.channels.get(&s.channel.name) else {
                    return Err(Diagnostic::new(format!("undefined channel `{}`", s.channel.name), s.channel.span)
                        .label("no channel of this name"));
                };
                let channel = &self.channels[c as usize];
                if let Some(types) = &channel.types {
                    if s.values.len() != types.len() {
                        return Err(Diagnostic::new(
                            format!(
                                "wrong number of values for channel `{}`: {} given, {} expected",
                                s.channel.name,
                                s.values.len(),
                                types.len()
                            ),
                            s.span,
                        )
                        .label(format!("channel carries {} value(s)", types.len()))
                        .related(channel.name.span, "channel declared here"));
                    }
                }
                if s.dir == SyncDir::Receive {
                    for v in &s.values {
                        self.names.lower_lvalue(p, v)?;
                    }
                } else {
                    for v in &s.values {
                        self.names.lower_expr(p, v)?;
                    }
                }
                Some((c, s.dir, s.values.clone(), s.span))
            }
        };
        Ok(Lowered {
            process: pi,
            index: ti,
            from: info.transitions[ti as usize].from as i32,
            to: info.transitions[ti as usize].to as i32,
            guard,
            effects,
            committed: info.committed[info.transitions[ti as usize].from as usize],
            sync,
        })
    }

    fn control_move(&self, t: &Lowered) -> Stmt {
        Stmt::Assign(LValue::Slot(self.names.processes[t.process as usize].control), IrExpr::Const(t.to))
    }

    fn source(&self, t: &Lowered) -> (u32, i32) {
        (self.names.processes[t.process as usize].control, t.from)
    }

    /// Builds the transition groups and the property automaton.
    fn group(
        &mut self,
        lowered: Vec<Lowered>,
        property: Option<u32>,
        mode: SyncMode,
    ) -> Result<(Vec<Group>, Option<PropertyProcess>), Diagnostic> {
        let mut groups = Vec::new();
        let mut edges = Vec::new();
        let participant = |t: &Lowered| Participant { process: t.process, transition: t.index };
        let decl = |t: &Lowered| &self.module.processes[t.process as usize].transitions[t.index as usize];
        for t in &lowered {
            if Some(t.process) == property {
                let d = decl(t);
                if t.sync.is_some() || !t.effects.is_empty() {
                    return Err(Diagnostic::new("a property process cannot synchronise or have effects", d.span)
                        .label("in this transition")
                        .note("the property automaton only reads the system's state in its guards"));
                }
                let text =
                    decl(t).guard.as_ref().map(|g| self.source[g.span.start as usize..g.span.end as usize].to_string());
                edges.push(PropertyEdge { from: t.from as u32, to: t.to as u32, guard: t.guard.clone().zip(text) });
                continue;
            }
            let Some((c, dir, values, span)) = &t.sync else {
                let mut effect = t.effects.clone();
                effect.push(self.control_move(t));
                groups.push(Group {
                    kind: GroupKind::Local,
                    participants: vec![participant(t)],
                    channel: None,
                    source: vec![self.source(t)],
                    guards: t.guard.iter().cloned().collect(),
                    effect,
                    committed: t.committed,
                });
                continue;
            };
            if mode == SyncMode::Sync {
                return Err(Diagnostic::new("channels cannot be used in a `system sync` model", *span)
                    .label("synchronisation in a synchronous system")
                    .note("in `system sync` every process takes one local step at a time"));
            }
            if self.channels[*c as usize].capacity > 0 {
                groups.push(self.buffered(t, *c, *dir, values)?);
                continue;
            }
            if *dir == SyncDir::Receive {
                continue; // paired with its senders below
            }
            for r in &lowered {
                let Some((rc, SyncDir::Receive, rvalues, rspan)) = &r.sync else { continue };
                if rc != c || r.process == t.process || Some(r.process) == property {
                    continue;
                }
                if rvalues.len() != values.len() {
                    return Err(Diagnostic::new(
                        format!(
                            "wrong number of values on channel `{}`: sent {}, received {}",
                            self.channels[*c as usize].name.name,
                            values.len(),
                            rvalues.len()
                        ),
                        *rspan,
                    )
                    .label(format!("receives {}", rvalues.len()))
                    .related(*span, format!("sends {}", values.len())));
                }
                groups.push(self.rendezvous(t, r, *c, values, rvalues)?);
            }
        }
        Ok((groups, property.map(|process| (process, edges))))
    }

    fn rendezvous(
        &mut self,
        sender: &Lowered,
        receiver: &Lowered,
        channel: u32,
        values: &[Expr],
        targets: &[Expr],
    ) -> Result<Group, Diagnostic> {
        let mut effect = Vec::new();
        // All values are evaluated (in the sender's scope) before any is assigned.
        let values: Vec<IrExpr> =
            values.iter().map(|v| self.names.lower_expr(Some(sender.process), v)).collect::<Result<_, _>>()?;
        let targets: Vec<LValue> =
            targets.iter().map(|v| self.names.lower_lvalue(Some(receiver.process), v)).collect::<Result<_, _>>()?;
        if values.len() == 1 {
            effect.push(Stmt::Assign(targets[0].clone(), values[0].clone()));
        } else {
            for (i, v) in values.into_iter().enumerate() {
                effect.push(Stmt::SetTemp(i as u32, v));
            }
            for (i, t) in targets.into_iter().enumerate() {
                effect.push(Stmt::Assign(t, IrExpr::Temp(i as u32)));
            }
            self.temps = self.temps.max(effect.len() as u32 / 2);
        }
        effect.extend(receiver.effects.iter().cloned());
        effect.extend(sender.effects.iter().cloned());
        effect.push(self.control_move(receiver));
        effect.push(self.control_move(sender));
        Ok(Group {
            kind: GroupKind::Rendezvous,
            participants: vec![
                Participant { process: sender.process, transition: sender.index },
                Participant { process: receiver.process, transition: receiver.index },
            ],
            channel: Some(channel),
            source: vec![self.source(sender), self.source(receiver)],
            guards: sender.guard.iter().chain(&receiver.guard).cloned().collect(),
            effect,
            committed: sender.committed && receiver.committed,
        })
    }

    /// A send to or receive from a buffered channel: the buffer is `capacity` items of
    /// `m` cells each (cell `k*m + j` is field `j` of the `k`-th oldest item) and a count.
    fn buffered(&mut self, t: &Lowered, c: u32, dir: SyncDir, values: &[Expr]) -> Result<Group, Diagnostic> {
        let ch = &self.channels[c as usize];
        let m = ch.types.as_ref().map_or(0, |t| t.len()) as u32;
        let (capacity, count, cells) = (ch.capacity, ch.count, ch.cells);
        let p = Some(t.process);
        let buffer = ArrayRef { var: u32::MAX, first: cells, len: capacity * m };
        let count_expr = IrExpr::Load(count);
        let mut effect = Vec::new();
        let (kind, limit) = match dir {
            SyncDir::Send => {
                let values: Vec<IrExpr> =
                    values.iter().map(|v| self.names.lower_expr(p, v)).collect::<Result<_, _>>()?;
                for (j, v) in values.into_iter().enumerate() {
                    effect.push(Stmt::SetTemp(j as u32, v));
                }
                for j in 0..m {
                    // buffer[count * m + j] = value j
                    let index = IrExpr::binary(
                        BinOp::Add,
                        IrExpr::binary(BinOp::Mul, count_expr.clone(), IrExpr::Const(m as i32)),
                        IrExpr::Const(j as i32),
                    );
                    effect.push(Stmt::Assign(LValue::Indexed(buffer, index), IrExpr::Temp(j)));
                }
                effect.push(Stmt::Assign(
                    LValue::Slot(count),
                    IrExpr::binary(BinOp::Add, count_expr.clone(), IrExpr::Const(1)),
                ));
                (GroupKind::BufferedSend, IrExpr::binary(BinOp::Lt, count_expr, IrExpr::Const(capacity as i32)))
            }
            SyncDir::Receive => {
                for (j, v) in values.iter().enumerate() {
                    effect.push(Stmt::Assign(self.names.lower_lvalue(p, v)?, IrExpr::Load(cells + j as u32)));
                }
                effect.push(Stmt::ShiftDown { first: cells, len: capacity * m, by: m });
                effect.push(Stmt::Assign(
                    LValue::Slot(count),
                    IrExpr::binary(BinOp::Sub, count_expr.clone(), IrExpr::Const(1)),
                ));
                (GroupKind::BufferedReceive, IrExpr::binary(BinOp::Gt, count_expr, IrExpr::Const(0)))
            }
        };
        self.temps = self.temps.max(m);
        effect.extend(t.effects.iter().cloned());
        effect.push(self.control_move(t));
        Ok(Group {
            kind,
            participants: vec![Participant { process: t.process, transition: t.index }],
            channel: Some(c),
            source: vec![self.source(t)],
            guards: t.guard.iter().cloned().chain(std::iter::once(limit)).collect(),
            effect,
            committed: t.committed,
        })
    }
}
