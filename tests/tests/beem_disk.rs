//! The disk-based breadth-first search (`warpcheck_explore::disk`) against DiVinE 2.4's
//! counts (`shared/beem/reference.csv`) and the sequential engine's levels, with a
//! successor buffer so small that every level is written as many sorted runs, merged
//! with the visited set.

use warpcheck_conformance::*;
use warpcheck_dve::DveModel;
use warpcheck_explore::disk::{explore_on_disk, DiskExploration, DiskOptions};
use warpcheck_explore::Stats;

fn on_disk(model: &DveModel, buffer: usize, dir: &std::path::Path) -> DiskExploration {
    let options = DiskOptions { dir: dir.to_owned(), buffer, max_states: None, progress: None };
    match model.model.product() {
        Some(product) => explore_on_disk(&product, &options),
        None => explore_on_disk(&model.model, &options),
    }
    .expect("the disk search finishes")
}

#[test]
fn the_disk_search_matches_the_reference_up_to_50_000_states() {
    let beem = beem_dir();
    let rows: Vec<Reference> = references(&beem).into_iter().filter(|r| r.states <= 50_000).collect();
    let scratch = tempfile::tempdir().unwrap();
    let failures = parallel_failures(&rows, |r| {
        let mut model = load_file(&r.model_path(&beem));
        model.model.overflow = r.overflow();
        // Buffers of 16 KiB to 256 KiB: up to hundreds of runs per level.
        let buffer = 16 << (10 + r.states % 5);
        let disk = on_disk(&model, buffer, scratch.path());
        let stats =
            Stats { states: disk.states, transitions: disk.transitions, deadlocks: disk.deadlocks, ..Stats::default() };
        compare(r, &stats)?;
        let sequential = explore_all(&model);
        let error_state = u64::from(sequential.error_state);
        if disk.levels != sequential.levels || disk.visited.len() != disk.states - error_state {
            return Err(format!(
                "{}: {} levels (sequential {}), {} states in the visited file",
                r.instance,
                disk.levels,
                sequential.levels,
                disk.visited.len()
            ));
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} instances differ:\n{}", failures.len(), rows.len(), failures.join("\n"));
    assert_eq!(rows.len(), 86, "reference.csv changed: update the expected number of instances");
    assert_eq!(std::fs::read_dir(scratch.path()).unwrap().count(), 0, "the search left files behind");
}
