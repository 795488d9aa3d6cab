//! DVE models as networks of LTSs (spec §6.4): for models whose processes share no
//! variable and talk only through rendezvous channels, one component per process, a
//! local state being the values of its slots (control state and local variables),
//! explored from the initial values.
//!
//! Each DVE transition group becomes its own label, so that the network's
//! transitions with multiplicity are DiVinE's: a local group `g` is a component
//! label `gG` firing alone; a rendezvous group `g` is one vector per message `m`,
//! `"gG.m" * "gG.m" -> "gG.m"`, where `m` are the values of the sender's slots that
//! the receiver's guards and assignments read (a taint analysis of the effect finds
//! them). Receivers learn the messages senders can send in a fixpoint over all
//! components; every joint step is computed by running the group's real guards and
//! effect on a sender and a receiver local state. A step that raises an evaluation
//! error leads into the component's error state (no moves), which the product
//! reaches only where DVE would reach its error state (then the counts differ: DVE
//! has one error state, the network one per combination).
//!
//! The fixpoint over-approximates what each process meets (every message any sender
//! state can send), so a process that buffers messages can unfold to far more local
//! states than the system ever reaches (cambridge.5's channel processes). Past
//! [`FIXPOINT_LIMIT`] local states the exporter projects instead: it explores the
//! model's reachable states and keeps, per process, the local states and steps they
//! show. The counts are the same: a joint step depends only on the sender's local
//! state, its message and the receiver's local state (the classification checks it),
//! so every step the components combine is a step of the model.

use std::collections::{BTreeSet, VecDeque};

use rustc_hash::{FxHashMap, FxHashSet};
use warpcheck_dve::ir::{Expr, GroupKind, LValue, Stmt};
use warpcheck_dve::{Program, SyncMode};
use warpcheck_model::Model;

use crate::aut::Lts;
use crate::component::Component;
use crate::error::{Error, Result};
use crate::network::{Counting, Group, Network};

type Slots = BTreeSet<u32>;

fn refuse<T>(why: String) -> Result<T> {
    Err(Error::Invalid(format!("cannot export as a network: {why}")))
}

/// The pre-state slots `e` depends on, given the current dependencies of slots and
/// temporaries.
fn deps(e: &Expr, cur: &FxHashMap<u32, Slots>, temps: &FxHashMap<u32, Slots>) -> Slots {
    let slot = |s: u32| cur.get(&s).cloned().unwrap_or_else(|| Slots::from([s]));
    match e {
        Expr::Const(_) => Slots::new(),
        Expr::Load(s) => slot(*s),
        Expr::LoadIndexed(a, i) => {
            let mut d = deps(i, cur, temps);
            (a.first..a.first + a.len).for_each(|s| d.extend(slot(s)));
            d
        }
        Expr::Temp(t) => temps.get(t).cloned().unwrap_or_default(),
        Expr::Unary(_, a) => deps(a, cur, temps),
        Expr::Binary(_, a, b) => {
            let mut d = deps(a, cur, temps);
            d.extend(deps(b, cur, temps));
            d
        }
    }
}

/// Local states (all processes together) past which the fixpoint gives way to the
/// projection of the reachable states.
pub const FIXPOINT_LIMIT: usize = 1 << 20;

/// Pseudo-slots from here on name message atoms: values the sender computes.
const ATOM: u32 = 1 << 30;

fn has_temp(e: &Expr) -> bool {
    match e {
        Expr::Temp(_) => true,
        Expr::Const(_) | Expr::Load(_) => false,
        Expr::LoadIndexed(_, i) | Expr::Unary(_, i) => has_temp(i),
        Expr::Binary(_, a, b) => has_temp(a) || has_temp(b),
    }
}

/// Per written slot, the pre-state slots its final value depends on. A value
/// computed before the first assignment (a sent value) may be named an atom by
/// `atom` (a pseudo-slot standing for the value itself).
fn effect_deps(effect: &[Stmt], mut atom: impl FnMut(&Expr, &Slots) -> Option<u32>) -> Result<FxHashMap<u32, Slots>> {
    let mut cur: FxHashMap<u32, Slots> = FxHashMap::default();
    let mut temps: FxHashMap<u32, Slots> = FxHashMap::default();
    let mut written = FxHashMap::default();
    let mut assigned = false;
    let mut value = |e: &Expr, d: Slots, assigned: bool| -> Slots {
        let named = if assigned || has_temp(e) { None } else { atom(e, &d) };
        named.map_or(d, |a| Slots::from([a]))
    };
    for stmt in effect {
        match stmt {
            Stmt::SetTemp(t, e) => {
                let d = value(e, deps(e, &cur, &temps), assigned);
                temps.insert(*t, d);
            }
            Stmt::Assign(LValue::Slot(s), e) => {
                let d = value(e, deps(e, &cur, &temps), assigned);
                assigned = true;
                cur.insert(*s, d);
                written.insert(*s, ());
            }
            Stmt::Assign(LValue::Indexed(a, i), e) => {
                let mut d = value(e, deps(e, &cur, &temps), assigned);
                assigned = true;
                d.extend(deps(i, &cur, &temps));
                for s in a.first..a.first + a.len {
                    let mut old = cur.get(&s).cloned().unwrap_or_else(|| Slots::from([s]));
                    old.extend(d.iter().copied());
                    cur.insert(s, old);
                    written.insert(s, ());
                }
            }
            Stmt::ShiftDown { .. } => return refuse("a buffered channel".into()),
        }
    }
    Ok(written.into_keys().map(|s| (s, cur.remove(&s).unwrap_or_default())).collect())
}

/// A process's part of the model: its slots and explored local states.
struct Part {
    slots: Vec<u32>,
    states: Vec<Vec<i32>>,
    index: FxHashMap<Vec<i32>, u32>,
    edges: BTreeSet<(u32, String, u32)>,
}

impl Part {
    /// Back to the initial local state alone.
    fn clear(&mut self) {
        self.states.truncate(1);
        self.index.retain(|_, &mut i| i == 0);
        self.edges.clear();
    }

    fn add(&mut self, values: Vec<i32>) -> u32 {
        if let Some(&i) = self.index.get(&values) {
            return i;
        }
        let i = self.states.len() as u32;
        self.index.insert(values.clone(), i);
        self.states.push(values);
        i
    }
}

/// What the exporter knows of one rendezvous group.
struct Rendezvous {
    group: usize,
    sender: usize,
    receiver: usize,
    /// Sender slots the receiver reads (the message).
    message: Vec<u32>,
    /// The guards that read the sender alone.
    sender_guards: Vec<usize>,
}

/// How far the fixpoint has taken one rendezvous group.
#[derive(Default)]
struct Progress {
    /// Sender states scanned.
    senders: usize,
    /// Messages found, with a sender state that sends each.
    messages: Vec<(Vec<i32>, u32)>,
    known: FxHashMap<Vec<i32>, usize>,
    /// Receiver states run with the first `messages_done` messages.
    receivers: usize,
    messages_done: usize,
    /// A receiver state that accepts each label.
    accepts: FxHashMap<String, u32>,
    /// Sender states whose message no receiver accepts yet.
    pending: Vec<u32>,
}

/// The network of `program`, or why it has none.
pub fn network(program: &Program) -> Result<Network> {
    network_within(program, FIXPOINT_LIMIT)
}

/// [`network`], projecting the reachable states once the fixpoint has more than
/// `limit` local states (0: always).
pub fn network_within(program: &Program, limit: usize) -> Result<Network> {
    if program.mode != SyncMode::Async {
        return refuse("a synchronous system (`system sync`)".into());
    }
    if program.property.is_some() {
        return refuse("a property process (export the model without it)".into());
    }
    if let Some(p) = program.processes.iter().find(|p| p.committed.iter().any(|&c| c)) {
        return refuse(format!("process {} has committed states (a priority no vector expresses)", p.name));
    }
    if let Some(c) = program.channels.iter().find(|c| c.capacity > 0) {
        return refuse(format!("channel {} is buffered", c.name));
    }
    if let Some(v) = program.variables.iter().find(|v| v.process.is_none()) {
        return refuse(format!("global variable {} (processes must share no variable)", v.name));
    }
    let n = program.processes.len();
    let mut owner: FxHashMap<u32, usize> = FxHashMap::default();
    let mut parts: Vec<Part> = Vec::with_capacity(n);
    for (p, process) in program.processes.iter().enumerate() {
        let mut slots = vec![process.control];
        for v in program.variables.iter().filter(|v| v.process == Some(p as u32)) {
            slots.extend(v.first..v.first + v.len);
        }
        slots.iter().for_each(|&s| {
            owner.insert(s, p);
        });
        let initial = slots.iter().map(|&s| program.initial_values[s as usize]).collect();
        let mut part = Part { slots, states: vec![], index: FxHashMap::default(), edges: BTreeSet::new() };
        part.add(initial);
        parts.push(part);
    }
    let owned = |d: &Slots, p: usize| d.iter().all(|s| owner.get(s) == Some(&p));
    // Classify the groups.
    let mut atoms: Vec<Expr> = Vec::new();
    let mut locals = Vec::new();
    let mut rendezvous = Vec::new();
    for (g, group) in program.groups.iter().enumerate() {
        let sender = match (group.kind, group.participants.as_slice()) {
            (GroupKind::Rendezvous, [s, _]) => Some(s.process as usize),
            _ => None,
        };
        let written = effect_deps(&group.effect, |e, d| {
            let s = sender?;
            if d.is_empty() || !d.iter().all(|x| owner.get(x) == Some(&s)) {
                return None;
            }
            atoms.push(e.clone());
            Some(ATOM + atoms.len() as u32 - 1)
        })?;
        let no_temps = FxHashMap::default();
        let guards: Vec<Slots> = group.guards.iter().map(|e| deps(e, &FxHashMap::default(), &no_temps)).collect();
        match (group.kind, group.participants.as_slice()) {
            (GroupKind::Local, [p]) => {
                let p = p.process as usize;
                let all = written.iter().all(|(w, d)| owner.get(w) == Some(&p) && owned(d, p));
                if !all || !guards.iter().all(|d| owned(d, p)) {
                    return refuse(format!(
                        "group {g} of {} reads or writes another process",
                        program.processes[p].name
                    ));
                }
                locals.push((g, p));
            }
            (GroupKind::Rendezvous, [s, r]) => {
                let (s, r) = (s.process as usize, r.process as usize);
                // Atoms (sent values) belong to the sender.
                let own = |x: &u32| if *x >= ATOM { Some(s) } else { owner.get(x).copied() };
                let sender_only = |d: &Slots| d.iter().all(|x| own(x) == Some(s));
                let mut message = Slots::new();
                let mut sender_guards = Vec::new();
                for (i, d) in guards.iter().enumerate() {
                    if sender_only(d) {
                        sender_guards.push(i);
                    } else {
                        message.extend(d.iter().filter(|x| own(x) == Some(s)));
                    }
                }
                for (w, d) in &written {
                    match owner.get(w) {
                        Some(&o) if o == s && sender_only(d) => {}
                        Some(&o) if o == r => message.extend(d.iter().filter(|x| own(x) == Some(s))),
                        _ => {
                            return refuse(format!(
                                "rendezvous group {g}: the sender's new state depends on the receiver"
                            ))
                        }
                    }
                }
                let all: Slots = guards.iter().chain(written.values()).flatten().copied().collect();
                if all.iter().any(|x| !matches!(own(x), Some(o) if o == s || o == r)) {
                    return refuse(format!("rendezvous group {g} reads a third process"));
                }
                rendezvous.push(Rendezvous {
                    group: g,
                    sender: s,
                    receiver: r,
                    message: message.into_iter().collect(),
                    sender_guards,
                });
            }
            _ => return refuse(format!("group {g}: only local steps and rendezvous are supported")),
        }
    }
    // A cheap first test: the group's control-state preconditions on one part, by the
    // position of the slot in the part's local state.
    let in_source = |g: usize, p: usize, local: &[i32], parts: &[Part]| -> bool {
        program.groups[g].source.iter().all(|&(slot, v)| match parts[p].slots.iter().position(|&x| x == slot) {
            Some(i) => local.get(i) == Some(&v),
            None => true,
        })
    };
    let mut temps = vec![0i32; program.temps as usize];
    let mut values = program.initial_values.clone();
    // Whether the sender's part of rendezvous `r` holds in its local state `local`.
    let sender_enabled = |r: &Rendezvous, local: &[i32], slots: &[u32]| -> bool {
        let mut values = program.initial_values.clone();
        for (i, &s) in slots.iter().enumerate() {
            values[s as usize] = local[i];
        }
        let state = program.layout.encode(&values);
        let group = &program.groups[r.group];
        let sources = group.source.iter().filter(|(slot, _)| owner.get(slot) == Some(&r.sender));
        if !sources.into_iter().all(|&(slot, v)| program.layout.slot(slot).get(&state) == v) {
            return false;
        }
        let mut temps = vec![0i32; program.temps as usize];
        let eval = program.evaluator(&mut temps);
        r.sender_guards.iter().all(|&i| eval.holds(&group.guards[i], &state).unwrap_or(false))
    };
    // Runs group `g` with the given parts' local states; the new local states, or None
    // when disabled, or Err when the group raises an evaluation error.
    let mut run =
        |g: usize, with: &[(usize, &[i32])], parts: &[Part]| -> std::result::Result<Option<Vec<Vec<i32>>>, ()> {
            for &(p, local) in with {
                for (i, &s) in parts[p].slots.iter().enumerate() {
                    values[s as usize] = local[i];
                }
            }
            let group = &program.groups[g];
            let mut state = program.layout.encode(&values);
            if !group.source.iter().all(|&(slot, v)| program.layout.slot(slot).get(&state) == v) {
                return Ok(None);
            }
            let mut eval = program.evaluator(&mut temps);
            for guard in &group.guards {
                if !eval.holds(guard, &state).map_err(|_| ())? {
                    return Ok(None);
                }
            }
            for stmt in &group.effect {
                eval.exec(stmt, &mut state).map_err(|_| ())?;
            }
            let after = program.layout.decode(&state);
            Ok(Some(with.iter().map(|&(p, _)| parts[p].slots.iter().map(|&s| after[s as usize]).collect()).collect()))
        };
    // The fixpoint: explore every part with what is known of the others, each round
    // only what is new (states are only ever appended).
    let message_of = |r: &Rendezvous, local: &[i32], slots: &[u32]| -> Vec<i32> {
        let mut values = program.initial_values.clone();
        for (i, &s) in slots.iter().enumerate() {
            values[s as usize] = local[i];
        }
        let state = program.layout.encode(&values);
        let mut temps = vec![0i32; program.temps as usize];
        let eval = program.evaluator(&mut temps);
        r.message
            .iter()
            .map(|&id| match id.checked_sub(ATOM) {
                // A sent value that raises an error: the run raises it too.
                Some(a) => eval.eval(&atoms[a as usize], &state).unwrap_or(i32::MIN),
                None => local[slots.iter().position(|&t| t == id).unwrap_or(0)],
            })
            .collect()
    };
    let label_of = |r: &Rendezvous, m: &[i32]| -> String {
        format!("g{}.{}", r.group, m.iter().map(i32::to_string).collect::<Vec<_>>().join("_"))
    };
    let mut local_done = vec![0usize; locals.len()];
    let mut progress: Vec<Progress> = rendezvous.iter().map(|_| Progress::default()).collect();
    let too_big = |parts: &[Part]| parts.iter().map(|p| p.states.len()).sum::<usize>() > limit;
    loop {
        if too_big(&parts) {
            for part in &mut parts {
                part.clear();
            }
            project(program, &mut parts, &locals, &rendezvous, &|r, local, slots| {
                label_of(r, &message_of(r, local, slots))
            });
            break;
        }
        let before: usize = parts.iter().map(|p| p.states.len() + p.edges.len()).sum();
        for (i, &(g, p)) in locals.iter().enumerate() {
            let mut queue: VecDeque<u32> = (local_done[i] as u32..parts[p].states.len() as u32).collect();
            while let Some(x) = queue.pop_front() {
                if parts[p].states.len() > limit {
                    break;
                }
                let local = parts[p].states[x as usize].clone();
                if local.is_empty() || !in_source(g, p, &local, &parts) {
                    continue; // the error state, or not the group's control state
                }
                let y = match run(g, &[(p, &local)], &parts) {
                    Ok(None) => continue,
                    Ok(Some(next)) => {
                        let known = parts[p].states.len();
                        let y = parts[p].add(next.into_iter().next().unwrap_or_default());
                        if y as usize == known {
                            queue.push_back(y);
                        }
                        y
                    }
                    Err(()) => parts[p].add(vec![]),
                };
                parts[p].edges.insert((x, format!("g{g}"), y));
            }
            local_done[i] = parts[p].states.len();
        }
        for (r, pr) in rendezvous.iter().zip(&mut progress) {
            let (s, q) = (r.sender, r.receiver);
            // New sender states: their messages (a representative state each), and
            // their own steps, pending until some receiver accepts their message.
            for x in pr.senders..parts[s].states.len() {
                let local = &parts[s].states[x];
                if local.is_empty()
                    || !in_source(r.group, s, local, &parts)
                    || !sender_enabled(r, local, &parts[s].slots)
                {
                    continue;
                }
                let m = message_of(r, local, &parts[s].slots);
                if !pr.known.contains_key(&m) {
                    pr.known.insert(m.clone(), pr.messages.len());
                    pr.messages.push((m, x as u32));
                }
                pr.pending.push(x as u32);
            }
            pr.senders = parts[s].states.len();
            // Receiver steps: new receiver states with every message, old ones with
            // the new messages.
            let (receivers, messages) = (parts[q].states.len(), pr.messages.len());
            for y in 0..receivers {
                if parts[q].states.len() > limit {
                    break;
                }
                let from = if y < pr.receivers { pr.messages_done } else { 0 };
                if from == messages || !in_source(r.group, q, &parts[q].states[y], &parts) {
                    continue;
                }
                let receiver = parts[q].states[y].clone();
                for (m, x) in pr.messages[from..messages].iter().cloned() {
                    let label = label_of(r, &m);
                    let sender = parts[s].states[x as usize].clone();
                    let to = match run(r.group, &[(s, &sender), (q, &receiver)], &parts) {
                        Ok(None) => continue,
                        Ok(Some(next)) => parts[q].add(next[1].clone()),
                        Err(()) => parts[q].add(vec![]),
                    };
                    pr.accepts.entry(label.clone()).or_insert(y as u32);
                    parts[q].edges.insert((y as u32, label, to));
                }
            }
            pr.receivers = receivers;
            pr.messages_done = messages;
            // Sender steps whose message some receiver now accepts.
            let mut waiting = Vec::new();
            for x in std::mem::take(&mut pr.pending) {
                let sender = parts[s].states[x as usize].clone();
                let label = label_of(r, &message_of(r, &sender, &parts[s].slots));
                let Some(&y) = pr.accepts.get(&label) else {
                    waiting.push(x);
                    continue;
                };
                let receiver = parts[q].states[y as usize].clone();
                let to = match run(r.group, &[(s, &sender), (q, &receiver)], &parts) {
                    Ok(None) => continue,
                    Ok(Some(next)) => parts[s].add(next[0].clone()),
                    Err(()) => parts[s].add(vec![]),
                };
                parts[s].edges.insert((x, label, to));
            }
            pr.pending = waiting;
        }
        let after: usize = parts.iter().map(|p| p.states.len() + p.edges.len()).sum();
        if after == before {
            break;
        }
    }
    assemble(program, parts, &locals, &rendezvous)
}

/// The label of a rendezvous step from the sender's local state and slots.
type RendezvousLabel<'a> = dyn Fn(&Rendezvous, &[i32], &[u32]) -> String + 'a;

/// The parts as the reachable states show them: a breadth-first search of `program`
/// from its initial state, every step projected onto the processes that move
/// (`label(r, sender's local state, sender's slots)` names a rendezvous step). A step
/// that raises an evaluation error leads each participant into its error state.
fn project(
    program: &Program,
    parts: &mut [Part],
    locals: &[(usize, usize)],
    rendezvous: &[Rendezvous],
    label: &RendezvousLabel,
) {
    // Per group: the local group's process, or the rendezvous.
    let mut local_of: FxHashMap<usize, usize> = FxHashMap::default();
    locals.iter().for_each(|&(g, p)| {
        local_of.insert(g, p);
    });
    let rendezvous_of: FxHashMap<usize, &Rendezvous> = rendezvous.iter().map(|r| (r.group, r)).collect();
    let local = |values: &[i32], part: &Part| -> Vec<i32> { part.slots.iter().map(|&s| values[s as usize]).collect() };
    let initial = program.initial_state();
    let mut seen: FxHashSet<Vec<u32>> = FxHashSet::default();
    seen.insert(initial.clone());
    let mut queue = VecDeque::from([initial]);
    let mut next = program.successors();
    while let Some(state) = queue.pop_front() {
        let before = program.layout.decode(&state);
        let mut steps: Vec<(usize, Option<Vec<u32>>)> = Vec::new();
        next.successors(&state, |step, to| {
            if let Some(&g) = step.groups.first() {
                steps.push((g as usize, to.ok().map(<[u32]>::to_vec)));
            }
        });
        for (g, to) in steps {
            let after = to.as_ref().map(|t| program.layout.decode(t));
            let edge = |p: usize, name: &str, parts: &mut [Part]| {
                let x = parts[p].add(local(&before, &parts[p]));
                let y = match &after {
                    Some(values) => parts[p].add(local(values, &parts[p])),
                    None => parts[p].add(vec![]),
                };
                parts[p].edges.insert((x, name.to_string(), y));
            };
            if let Some(&p) = local_of.get(&g) {
                edge(p, &format!("g{g}"), parts);
            } else if let Some(r) = rendezvous_of.get(&g) {
                let name = label(r, &local(&before, &parts[r.sender]), &parts[r.sender].slots);
                edge(r.sender, &name, parts);
                edge(r.receiver, &name, parts);
            }
            if let Some(t) = to {
                if seen.insert(t.clone()) {
                    queue.push_back(t);
                }
            }
        }
    }
}

fn assemble(
    program: &Program,
    parts: Vec<Part>,
    locals: &[(usize, usize)],
    rendezvous: &[Rendezvous],
) -> Result<Network> {
    let mut components = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        let mut lts = Lts::new(0, part.states.len() as u32);
        let mut index = FxHashMap::default();
        for (x, label, y) in &part.edges {
            let l = lts.intern(label, &mut index);
            lts.transitions.push((*x, l, *y));
        }
        lts.transitions.sort_unstable();
        components.push(Component::new(program.processes[p].name.clone(), &lts));
    }
    let mut labels = vec!["i".to_string()];
    let mut groups = Vec::new();
    let mut add = |name: &str, parts: Vec<(u32, u32)>, groups: &mut Vec<Group>| {
        labels.push(name.to_string());
        groups.push(Group { parts, label: labels.len() as u32 - 1 });
    };
    for &(g, p) in locals {
        let name = format!("g{g}");
        if let Some(l) = components[p].label_id(&name).filter(|&l| components[p].uses(l)) {
            add(&name, vec![(p as u32, l)], &mut groups);
        }
    }
    for r in rendezvous {
        let prefix = format!("g{}.", r.group);
        let c = &components[r.sender];
        for (l, name) in c.labels.iter().enumerate().filter(|(l, n)| n.starts_with(&prefix) && c.uses(*l as u32)) {
            if let Some(k) = components[r.receiver].label_id(name) {
                add(name, vec![(r.sender as u32, l as u32), (r.receiver as u32, k)], &mut groups);
            }
        }
    }
    Ok(Network {
        components,
        groups,
        labels,
        counting: Counting::Multiplicity,
        warnings: vec![],
        monitor: None,
        property: None,
        actions: vec![],
    })
}
