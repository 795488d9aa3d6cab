//! Native successor code (`warpcheck_native`: the generated C compiled for the host)
//! against DiVinE 2.4's and LTSmin's counts: every reference instance up to one million
//! states (`WARPCHECK_NATIVE_STATES` for more; a product where the model has a property
//! process) explored on the parallel engine with it, on 2 threads, and the same
//! instances' counts with every state's successors taken from the wrapped model when
//! the buffer holds only one (the fallback path); and the LTL verdicts of BEEM's
//! property files on instances up to 5,000 states by nested DFS and OWCTY over the
//! native product, with valid lassos.

use warpcheck_conformance::ltl::{ltl_references, property_path, validate_lasso};
use warpcheck_conformance::*;
use warpcheck_explore::{explore_parallel, Options, Order, Report};
use warpcheck_model::CudaModel;
use warpcheck_native::Native;

fn explore_native<M: CudaModel>(model: M, buffer: Option<u32>) -> Result<Report, String> {
    let mut native = Native::new(model).map_err(|e| e.to_string())?;
    if let Some(successors) = buffer {
        native.limit_buffer(successors);
    }
    let options = Options { threads: 2, traces: false, stop_at_first: false, order: Order::Bfs, ..Default::default() };
    let report = explore_parallel(&native, &options).map_err(|e| e.to_string())?;
    assert!(report.complete);
    Ok(report)
}

fn instances_match(max_states: u64, buffer: Option<u32>) -> usize {
    let beem = beem_dir();
    let rows: Vec<Reference> = references(&beem).into_iter().filter(|r| r.states <= max_states).collect();
    let failures = parallel_failures_with(1, &rows, |r| {
        let mut model = load_file(&r.model_path(&beem)).model;
        model.overflow = r.overflow();
        let report = match model.product() {
            Some(product) => explore_native(product, buffer),
            None => explore_native(model, buffer),
        }
        .map_err(|e| format!("{}: {e}", r.instance))?;
        let stats = warpcheck_explore::Stats {
            states: report.states,
            transitions: report.transitions,
            deadlocks: report.deadlocks,
            ..Default::default()
        };
        compare(r, &stats)
    });
    assert!(failures.is_empty(), "{} of {} instances differ:\n{}", failures.len(), rows.len(), failures.join("\n"));
    rows.len()
}

#[test]
fn native_code_matches_the_reference_up_to_one_million_states() {
    let max = env_u64("WARPCHECK_NATIVE_STATES").unwrap_or(1_000_000);
    let checked = instances_match(max, None);
    assert!(max != 1_000_000 || checked == 146, "reference.csv changed: {checked} instances");
}

#[test]
fn native_code_with_a_one_successor_buffer_matches_the_reference_up_to_50_000_states() {
    assert_eq!(instances_match(50_000, Some(1)), 86);
}

#[test]
fn native_products_give_the_reference_ltl_verdicts_up_to_5_000_states() {
    use warpcheck_liveness::{check, Algorithm, Options};
    let beem = beem_dir();
    let sizes: std::collections::HashMap<String, u64> =
        references(&beem).into_iter().map(|r| (r.instance, r.states)).collect();
    let rows: Vec<_> =
        ltl_references(&beem).into_iter().filter(|r| sizes.get(r.instance()).is_some_and(|&s| s <= 5_000)).collect();
    let failures = parallel_failures(&rows, |r| {
        let product = load_product(&property_path(&beem, &r.property_file));
        let native = Native::new(&product).map_err(|e| format!("{}: {e}", r.property_file))?;
        for algorithm in [Algorithm::Ndfs, Algorithm::Owcty] {
            let options = Options { algorithm, ..Options::default() };
            let outcome = check(&native, &options).map_err(|e| format!("{}: {e}", r.property_file))?;
            let holds = outcome.lasso.is_none();
            if holds != r.holds {
                return Err(format!("{} {}: holds {holds}, reference {}", r.property_file, algorithm.name(), r.holds));
            }
            if let Some(lasso) = &outcome.lasso {
                validate_lasso(&product, &lasso.rebuilt(&product)).map_err(|e| format!("{}: {e}", r.property_file))?;
            }
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} files differ:\n{}", failures.len(), rows.len(), failures.join("\n"));
    assert_eq!(rows.len(), 48, "ltl-reference.csv or reference.csv changed");
}
