//! The CUDA engine on a device, held to the CPU: every property of every reference
//! instance built from its PRISM source (with its extra labels and constants) up to
//! 3 million states gives the CPU's Jacobi values bit for bit and its sweep counts,
//! and the in-place CPU's answer within the precision with overlapping bounds.
//!
//! Needs a CUDA device: ignored otherwise. On a machine with one:
//! `cargo test --release -p warpcheck-markov-gpu --test device -- --ignored`
//! (`WARPCHECK_MARKOV` names the Markov folder if it is not `../shared/markov`; only the
//! PRISM sources and the two reference files are read).

#[path = "../../markov/tests/common/mod.rs"]
mod common;

use std::sync::Arc;

use warpcheck_markov::check::{check, parse, Cores, Options};
use warpcheck_markov::BuildOptions;
use warpcheck_markov_gpu::GpuEngine;

/// The instance's model built from its PRISM source with its extra labels.
fn build(dir: &std::path::Path, instance: &serde_json::Value) -> Option<warpcheck_markov::SparseModel> {
    let source = &instance["source"];
    let file = dir.join(source["model_file"].as_str()?);
    if !matches!(file.extension().and_then(|e| e.to_str()), Some("prism" | "pm" | "nm" | "sm")) {
        return None;
    }
    let mut text = std::fs::read_to_string(&file).ok()?;
    if let Ok(extra) = std::fs::read_to_string(file.with_file_name("extra_labels.prism")) {
        text = format!("{}\n\n{extra}", text.trim_end());
    }
    let constants = warpcheck_prism::parse_constants(source["constants"].as_str().unwrap_or("")).unwrap();
    let model = warpcheck_prism::load(&text, &constants).unwrap_or_else(|d| panic!("{}", d.render("source", &text)));
    Some(model.build(&BuildOptions::default()).unwrap())
}

#[test]
#[ignore = "needs a CUDA device"]
fn cuda_equals_the_cpu_on_every_reference_instance() {
    assert!(warpcheck_cuda::device_available(), "no CUDA device");
    let dir = common::markov_dir();
    let gpu = Options { engine: Arc::new(GpuEngine::cuda(0).unwrap()), ..Options::default() };
    let jacobi = Options { engine: Arc::new(Cores::jacobi()), ..Options::default() };
    let mut checked = 0;
    for (id, instance) in &common::references(&dir) {
        if instance["states"].as_u64().unwrap_or(u64::MAX) > 3_000_000 {
            continue;
        }
        let Some(model) = build(&dir, instance) else { continue };
        for p in instance["properties"].as_array().unwrap() {
            let formula = p["formula"].as_str().unwrap();
            let property = parse(formula).unwrap();
            let (a, b) = (check(&model, &property, &jacobi).unwrap(), check(&model, &property, &gpu).unwrap());
            assert_eq!((a.iterations, a.method), (b.iterations, b.method), "{id} {formula}");
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert!(bits(&a.lower) == bits(&b.lower) && bits(&a.upper) == bits(&b.upper), "{id} {formula}");
            let c = check(&model, &property, &Options::default()).unwrap();
            for s in 0..model.states() {
                let (x, y) = (c.value(s as u32), b.value(s as u32));
                let near = (x - y).abs() <= 2e-6 * x.abs().max(1.0) || x == y;
                let overlap = c.lower[s] <= b.upper[s] * (1.0 + 1e-12) && b.lower[s] <= c.upper[s] * (1.0 + 1e-12);
                assert!(near && overlap, "{id} {formula} state {s}: cpu {x}, gpu {y}");
            }
            eprintln!("{id:32} {formula:50} {} sweeps, {} on both", b.iterations, b.value(model.initial[0]));
            checked += 1;
        }
    }
    assert!(checked >= 60, "only {checked} properties checked");
}
