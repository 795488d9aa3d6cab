//! The parallel state-graph builder (`state_graph_parallel`) against the sequential
//! one (`state_graph_with_states`): on every BEEM instance up to 50,000 states (with
//! the reference's overflow semantics, so error states occur) and on the property
//! files of the instances up to 20,000 states (accepting vertices), on 1 and 3
//! threads, the two graphs are equal up to the numbering of vertices: the same states,
//! each with the same successor states in the same order, the same accepting states,
//! deadlocks and error state. The parallel numbering is breadth-first (vertex 0 is the
//! initial state, levels in id order), and a bounded build fails rather than cut the
//! graph.

use std::collections::HashMap;

use warpcheck_conformance::ltl::*;
use warpcheck_conformance::*;
use warpcheck_explore::{state_graph_parallel, state_graph_with_states, GraphOptions, PrefixBuilder, StateGraphError};
use warpcheck_model::{Model, Successors};
use warpcheck_store::TablePlan;

/// The breadth-first distance of every vertex from vertex 0 (`u32::MAX`: unreachable).
fn distances(g: &warpcheck_graph::Csr) -> Vec<u32> {
    let mut distance = vec![u32::MAX; g.vertices()];
    distance[0] = 0;
    let mut queue = std::collections::VecDeque::from([0u32]);
    while let Some(u) = queue.pop_front() {
        for &t in g.successors(u) {
            if distance[t as usize] == u32::MAX {
                distance[t as usize] = distance[u as usize] + 1;
                queue.push_back(t);
            }
        }
    }
    distance
}

/// Compares the two builders on `model`; whether the graph has an error state.
fn same_graph<M: Model>(model: &M, threads: usize) -> Result<bool, String> {
    let (seq, states) = state_graph_with_states(model, None).map_err(|e| e.to_string())?;
    let options = GraphOptions { threads, table: TablePlan::new(10, 28), ..GraphOptions::default() };
    let par = state_graph_parallel(model, &options).map_err(|e| e.to_string())?;
    let words = model.state_words();
    let (s, p) = (seq.graph.forward(), par.graph.graph.forward());
    if (s.vertices(), s.edges(), seq.deadlocks, seq.error_state.is_some())
        != (p.vertices(), p.edges(), par.graph.deadlocks, par.graph.error_state.is_some())
    {
        return Err(format!(
            "vertices/edges/deadlocks/error state: sequential {:?}, parallel {:?}",
            (s.vertices(), s.edges(), seq.deadlocks, seq.error_state),
            (p.vertices(), p.edges(), par.graph.deadlocks, par.graph.error_state)
        ));
    }
    let real = states.len() / words.max(1);
    if par.states() as usize != real {
        return Err(format!("{} states in the parallel store, {real} in the sequential", par.states()));
    }
    // Parallel vertex -> sequential vertex, through the states.
    let index: HashMap<&[u32], u32> = (0..real).map(|v| (&states[v * words..(v + 1) * words], v as u32)).collect();
    let mut to_seq = vec![u32::MAX; p.vertices()];
    for v in 0..real as u32 {
        let state = par.state(v);
        to_seq[v as usize] =
            *index.get(state.as_slice()).ok_or_else(|| format!("vertex {v}: a state the sequential graph lacks"))?;
    }
    if let (Some(pe), Some(se)) = (par.graph.error_state, seq.error_state) {
        to_seq[pe as usize] = se;
    }
    if to_seq[0] != 0 {
        return Err("vertex 0 is not the initial state".into());
    }
    let mut seen = vec![false; s.vertices()];
    for v in 0..p.vertices() as u32 {
        let w = to_seq[v as usize];
        if std::mem::replace(&mut seen[w as usize], true) {
            return Err(format!("two vertices have the state of sequential vertex {w}"));
        }
        let mapped: Vec<u32> = p.successors(v).iter().map(|&t| to_seq[t as usize]).collect();
        if mapped != s.successors(w) {
            return Err(format!(
                "vertex {v} (sequential {w}): successors {mapped:?}, sequential {:?}",
                s.successors(w)
            ));
        }
    }
    let seq_accepting: Vec<bool> =
        (0..s.vertices()).map(|v| v < real && model.is_accepting(&states[v * words..(v + 1) * words])).collect();
    if model.property().is_some() {
        if let Some(v) = (0..p.vertices()).find(|&v| par.accepting[v] != seq_accepting[to_seq[v] as usize]) {
            return Err(format!("vertex {v}: accepting {}, sequential {}", par.accepting[v], !par.accepting[v]));
        }
    } else if !par.accepting.is_empty() {
        return Err("acceptance recorded for a model without a property".into());
    }
    // Breadth-first numbering: the distance from vertex 0 never decreases with the id.
    let distance = distances(p);
    let levels = &distance[..real];
    if let Some(v) = levels.windows(2).position(|d| d[0] > d[1]) {
        return Err(format!("vertex {} is at distance {}, vertex {v} at {}", v + 1, levels[v + 1], levels[v]));
    }
    Ok(seq.error_state.is_some())
}

#[test]
fn parallel_state_graphs_equal_the_sequential_ones() {
    let beem = beem_dir();
    let rows: Vec<Reference> = references(&beem).into_iter().filter(|r| r.states <= 50_000).collect();
    let failures = parallel_failures(&rows, |r| {
        let mut model = load_file(&r.model_path(&beem)).model;
        model.overflow = r.overflow();
        for threads in [1, 3] {
            same_graph(&model, threads).map_err(|e| format!("{} ({threads} threads): {e}", r.instance))?;
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} instances fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
    assert_eq!(rows.len(), 86, "reference.csv changed: update the expected number");
}

/// x counts up; at x == 3 one step divides by zero, and at x == 6 an array index is
/// out of bounds; a, b and the deadlock at x == 9 give other shapes.
const ERRORS: &str = "byte x; byte a[4];
    process P { state s; init s;
      trans s -> s { guard x < 9; effect x = x + 1; },
            s -> s { guard x == 3; effect x = 10 / (x - 3); },
            s -> s { guard x == 6; effect a[x] = 1; },
            s -> s { guard x < 4 && a[x] < 2; effect a[x] = a[x] + 1; }; }
    process Q { state t, u; init t; trans t -> u { guard x > 1; }, u -> t { guard x < 8; }; }
    system async;";

#[test]
fn steps_into_the_error_state_are_kept_in_order() {
    let model = load_source("errors.dve", ERRORS).model;
    for threads in [1, 2, 3] {
        assert_eq!(same_graph(&model, threads), Ok(true), "{threads} threads");
    }
}

/// The referenced property files of the instances up to 20,000 states.
fn small_property_files(beem: &std::path::Path) -> Vec<LtlReference> {
    let sizes: HashMap<String, u64> = references(beem).into_iter().map(|r| (r.instance.clone(), r.states)).collect();
    ltl_references(beem).into_iter().filter(|f| sizes.get(f.instance()).is_some_and(|&s| s <= 20_000)).collect()
}

#[test]
fn parallel_product_graphs_equal_the_sequential_ones() {
    let beem = beem_dir();
    let files = small_property_files(&beem);
    let failures = parallel_failures(&files, |f| {
        let model = load_file(&property_path(&beem, &f.property_file)).model;
        let product = model.product().ok_or("no property process")?;
        for threads in [1, 3] {
            same_graph(&product, threads).map_err(|e| format!("{} ({threads} threads): {e}", f.property_file))?;
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} files fail:\n{}", failures.len(), files.len(), failures.join("\n"));
    assert!(files.len() >= 40, "only {} property files of instances up to 20,000 states", files.len());
}

#[test]
fn a_bounded_build_fails_instead_of_cutting_the_graph() {
    let beem = beem_dir();
    let row = references(&beem).into_iter().find(|r| r.instance == "peterson.1").expect("peterson.1 in reference.csv");
    let model = load_file(&row.model_path(&beem)).model;
    let whole = state_graph_parallel(&model, &GraphOptions { threads: 2, ..GraphOptions::default() }).unwrap();
    let n = whole.graph.graph.vertices() as u64;
    let bounded = GraphOptions { threads: 2, max_states: Some(n - 1), ..GraphOptions::default() };
    assert!(
        matches!(state_graph_parallel(&model, &bounded), Err(StateGraphError::TooManyStates { limit }) if limit == n - 1)
    );
    let exact = GraphOptions { threads: 2, max_states: Some(n), ..GraphOptions::default() };
    assert_eq!(state_graph_parallel(&model, &exact).unwrap().graph.graph.vertices() as u64, n);
    // A table that may not grow and is too small: an error, never a partial graph.
    let tiny = GraphOptions { threads: 2, table: TablePlan::fixed(6), ..GraphOptions::default() };
    assert!(matches!(state_graph_parallel(&model, &tiny), Err(StateGraphError::TableFull { .. })));
    // A table that may grow gets there.
    let growing = GraphOptions { threads: 2, table: TablePlan::new(4, 20), ..GraphOptions::default() };
    assert_eq!(state_graph_parallel(&model, &growing).unwrap().graph.graph.vertices() as u64, n);
}

/// Checks breadth-first prefixes of `model`'s graph, at each of `prefixes` (in
/// increasing order), built afresh (`GraphOptions::prefix`) and by one
/// `PrefixBuilder` extended from one to the next, against the whole sequential graph:
/// a prefix's states are exactly those within distance `K` of the initial state, `K`
/// the first distance with at least `prefix` states within it; those nearer than `K`
/// have all their successors in order, the others none; and it is `complete` exactly
/// when no such `K` exists.
fn same_prefixes<M: Model>(model: &M, prefixes: &[u64], log2_table: u32) -> Result<(), String> {
    let (seq, states) = state_graph_with_states(model, None).map_err(|e| e.to_string())?;
    let words = model.state_words();
    let s = seq.graph.forward();
    let real = states.len() / words.max(1);
    let distance = distances(s);
    let index: HashMap<&[u32], u32> = (0..real).map(|v| (&states[v * words..(v + 1) * words], v as u32)).collect();
    let within = |d: u32| (0..real).filter(|&v| distance[v] <= d).count() as u64;
    let depth = *distance[..real].iter().max().unwrap();
    let options = GraphOptions { threads: 2, table: TablePlan::new(log2_table, 28), ..GraphOptions::default() };
    let mut builder = PrefixBuilder::new(model, &options);
    let mut generator = model.successors();
    for &prefix in prefixes {
        let fresh = GraphOptions { prefix: Some(prefix), ..options };
        let built = [
            ("fresh", state_graph_parallel(model, &fresh).map_err(|e| e.to_string())?),
            ("extended", builder.build(Some(prefix)).map_err(|e| e.to_string())?),
        ];
        for (how, par) in built {
            let p = par.graph.graph.forward();
            let fail = |what: String| Err(format!("prefix {prefix} ({how}): {what}"));
            // The level not expanded: the first that brings the count to `prefix`.
            let cut = (0..=depth).find(|&k| within(k) >= prefix);
            let expected = cut.map_or(real as u64, within);
            if par.states() as u64 != expected || par.complete != cut.is_none() {
                let (n, c) = (par.states(), par.complete);
                return fail(format!("{n} states (complete {c}), expected {expected} (complete {})", cut.is_none()));
            }
            let mut to_seq = vec![u32::MAX; p.vertices()];
            for v in 0..par.states() {
                to_seq[v as usize] = index[par.state(v).as_slice()];
            }
            if let (Some(pe), Some(se)) = (par.graph.error_state, seq.error_state) {
                to_seq[pe as usize] = se;
            }
            // Deadlocks and steps into the error state among the expanded vertices.
            // (A deadlock is a state where the system has no step, as the generator says.)
            let expanded_states = (0..real as u32).filter(|&w| cut.is_none_or(|k| distance[w as usize] < k));
            let (mut deadlocks, mut errors) = (0, false);
            for w in expanded_states {
                let state = &states[w as usize * words..(w as usize + 1) * words];
                deadlocks += generator.successors(state, |_, _| {}) as u64;
                errors |= s.successors(w).iter().any(|&t| Some(t) == seq.error_state);
            }
            if (par.graph.deadlocks, par.graph.error_state.is_some()) != (deadlocks + errors as u64, errors) {
                let (d, e) = (par.graph.deadlocks, par.graph.error_state);
                return fail(format!("deadlocks {d}, error state {e:?}; expected {deadlocks} (+1), {errors}"));
            }
            if model.property().is_some() && par.accepting.len() != p.vertices() {
                return fail(format!("{} acceptance flags for {} vertices", par.accepting.len(), p.vertices()));
            }
            for v in 0..par.states() {
                let w = to_seq[v as usize];
                let mapped: Vec<u32> = p.successors(v).iter().map(|&t| to_seq[t as usize]).collect();
                let expanded = cut.is_none_or(|k| distance[w as usize] < k);
                let want = if expanded { s.successors(w).to_vec() } else { Vec::new() };
                if mapped != want {
                    return fail(format!("vertex {v} (sequential {w}): successors {mapped:?}, expected {want:?}"));
                }
                if model.property().is_some()
                    && expanded
                    && par.accepting[v as usize] != model.is_accepting(&par.state(v))
                {
                    return fail(format!("vertex {v}: wrong acceptance"));
                }
            }
        }
    }
    Ok(())
}

#[test]
fn prefixes_are_the_first_breadth_first_levels() {
    let beem = beem_dir();
    let files = small_property_files(&beem);
    let failures = parallel_failures(&files, |f| {
        let model = load_file(&property_path(&beem, &f.property_file)).model;
        same_prefixes(&model.product().ok_or("no property process")?, &[1, 2, 50, 1_000, 10_000, u32::MAX as u64], 8)
            .map_err(|e| format!("{}: {e}", f.property_file))
    });
    assert!(failures.is_empty(), "{} of {} files fail:\n{}", failures.len(), files.len(), failures.join("\n"));
    // A model with error steps: the error state stays in a prefix that reaches it.
    let model = load_source("errors.dve", ERRORS).model;
    same_prefixes(&model, &(1..=12).collect::<Vec<u64>>(), 8).unwrap();
    // A table of 16 entries that must grow while a build is extended.
    let row = references(&beem).into_iter().find(|r| r.instance == "peterson.1").expect("peterson.1 in reference.csv");
    same_prefixes(&load_file(&row.model_path(&beem)).model, &[10, 1_000, u64::MAX], 4).unwrap();
}
