//! The Büchi product wrapper (`warpcheck_model::Product`) on BEEM's property files
//! gives the product that DVE's built-in property semantics gave: for the 109
//! property files of the instances below 30,000 states, the states, transitions,
//! deadlocks, accepting states and steps into the error state recorded in
//! `tests/data/product-counts.csv`, which warpcheck 0.1.0 produced when the property
//! process was part of the DVE interpreter (an implementation independent of the
//! wrapper), sequentially and on 3 threads.

use std::path::Path;

use warpcheck_conformance::ltl::property_path;
use warpcheck_conformance::{beem_dir, explore_with_threads, load_file, parallel_failures};
use warpcheck_explore::{explore, BfsOptions};

/// One row of `product-counts.csv`.
struct Row {
    file: String,
    counts: [u64; 5],
}

fn rows() -> Vec<Row> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/product-counts.csv");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    text.lines()
        .skip(1)
        .map(|line| {
            let f: Vec<&str> = line.split(',').collect();
            let n = |i: usize| f[i].parse().unwrap_or_else(|_| panic!("bad number in `{line}`"));
            Row { file: f[0].to_string(), counts: [n(1), n(2), n(3), n(4), n(5)] }
        })
        .collect()
}

#[test]
fn products_of_property_files_have_the_recorded_counts() {
    let beem = beem_dir();
    let rows = rows();
    assert_eq!(rows.len(), 109, "product-counts.csv changed: update the expected number");
    let failures = parallel_failures(&rows, |row| {
        let dve = load_file(&property_path(&beem, &row.file));
        let product = dve.model.product().ok_or(format!("{}: no property process", row.file))?;
        let s = explore(&product, &BfsOptions::default());
        let got = [s.states, s.transitions, s.deadlocks, s.accepting, s.error_transitions];
        if got != row.counts {
            return Err(format!(
                "{}: (states, transitions, deadlocks, accepting, errors) {got:?}, recorded {:?}",
                row.file, row.counts
            ));
        }
        let p = explore_with_threads(&dve, 3, warpcheck_explore::Order::Bfs);
        let got = [p.states, p.transitions, p.deadlocks, p.accepting, p.error_transitions];
        if got != row.counts {
            return Err(format!("{} on 3 threads: {got:?}, recorded {:?}", row.file, row.counts));
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} files differ:\n{}", failures.len(), rows.len(), failures.join("\n"));
}
