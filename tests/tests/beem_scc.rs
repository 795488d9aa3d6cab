//! State graphs and SCCs of BEEM: for every instance of `reference.csv` up to 200,000
//! states, the explicit state graph has exactly the reference's states (vertices),
//! transitions (edges) and deadlocks (vertices without successors), and FB with
//! trimming, Coloring and OBF (on 2 threads) give exactly Tarjan's partition.
//! Larger instances (ignored by default):
//! `WARPCHECK_MAX_STATES=2000000 cargo test --release -p warpcheck-conformance --test beem_scc -- --ignored --nocapture`

use warpcheck_conformance::*;
use warpcheck_explore::state_graph;
use warpcheck_scc::{decompose, tarjan::tarjan, Algorithm, Options, Summary};

fn check_instances_up_to(max_states: u64, verbose: bool) -> usize {
    let beem = beem_dir();
    let rows: Vec<Reference> = references(&beem).into_iter().filter(|r| r.states <= max_states).collect();
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let failures = parallel_failures(&rows, |r| {
        let mut model = load_file(&r.model_path(&beem));
        model.model.overflow = r.overflow();
        let sg = state_graph(&model.model, None).map_err(|e| format!("{}: {e}", r.instance))?;
        let g = &sg.graph;
        let got = (g.vertices() as u64, g.edges(), sg.deadlocks);
        let want = (r.states, r.transitions, r.deadlocks.unwrap_or(sg.deadlocks));
        if got != want {
            return Err(format!("{}: graph vertices/edges/deadlocks {got:?}, reference {want:?}", r.instance));
        }
        let sinks = (0..g.vertices() as u32).filter(|&v| g.forward().successors(v).is_empty()).count() as u64;
        if sinks != sg.deadlocks {
            return Err(format!("{}: {sinks} vertices without successors, {} deadlocks", r.instance, sg.deadlocks));
        }
        let reference = tarjan(g.forward());
        for a in [Algorithm::FbTrim, Algorithm::Coloring, Algorithm::Obf] {
            if pool.install(|| decompose(g, a, &Options::default())) != reference {
                return Err(format!("{}: {} differs from Tarjan", r.instance, a.name()));
            }
        }
        if verbose {
            let s = Summary::of(&reference);
            eprintln!("{}: {} SCCs ({} non-trivial, largest {})", r.instance, s.sccs, s.nontrivial, s.largest);
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} instances fail:\n{}", failures.len(), rows.len(), failures.join("\n"));
    rows.len()
}

#[test]
fn state_graphs_match_the_reference_and_all_algorithms_agree_up_to_200_000_states() {
    assert_eq!(check_instances_up_to(200_000, false), 109, "reference.csv changed: update the expected number");
}

#[test]
#[ignore = "explores instances up to WARPCHECK_MAX_STATES (default 2 million) states: minutes"]
fn larger_state_graphs_agree() {
    let max = std::env::var("WARPCHECK_MAX_STATES").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000_000);
    let checked = check_instances_up_to(max, true);
    eprintln!("{checked} instances up to {max} states: graphs exact, all algorithms agree");
}
