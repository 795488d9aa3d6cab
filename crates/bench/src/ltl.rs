//! `warpcheck-bench ltl`: LTL model checking of BEEM property files (`X.propN.dve`)
//! with `warpcheck check FILE --algorithm A --json`, each algorithm in its own
//! process: nested DFS and CNDFS on the fly, OWCTY and MAP (sequential and parallel)
//! on the product graph, and with `gpu:` names OWCTY and MAP on the GPU (with their
//! time split: generation with the adjacency, graph, cycle detection, compilation).
//! Verdicts are checked against `ltl-reference.csv` and against each other, product
//! sizes between the algorithms that store the whole product.
//!
//! For sweeps larger than one sitting: `--jsonl FILE --resume --budget SECS` (common
//! to all subcommands), run again until it exits 0.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Result};
use serde_json::{json, Value};

use crate::common::{count, num, text, Common, Context, Run};
use crate::machine;
use crate::reference::{self, instance_of_property};
use crate::stats::median;
use crate::table::{thousands, Table};

/// The models of the thesis's Tables 5.2-5.3 (Češka's DiVinE-CUDA LTL).
pub const THESIS_SET: [&str; 8] = [
    "elevator2.3.prop4",
    "peterson.4.prop4",
    "leader_filters.5.prop2",
    "anderson.6.prop3",
    "bakery.5.prop2",
    "phils.5.prop2",
    "lamport.6.prop4",
    "brp.4.prop2",
];

/// An LTL algorithm: where it runs and its `--algorithm` name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Algorithm {
    pub gpu: bool,
    pub name: String,
}

impl Algorithm {
    /// Parses `ndfs`, ..., `gpu:owcty`, `gpu:map`.
    pub fn parse(spec: &str) -> Result<Algorithm> {
        let cpu = ["ndfs", "cndfs", "owcty", "owcty-seq", "map", "map-seq"];
        let (gpu, name) = crate::common::parse_algorithm(spec, &cpu, &["owcty", "map"])?;
        Ok(Algorithm { gpu, name })
    }

    /// Whether it stops at the first accepting cycle (and so stores part of a violated product).
    pub fn on_the_fly(&self) -> bool {
        !self.gpu && (self.name == "ndfs" || self.name == "cndfs")
    }

    /// Whether it is sequential (run with --threads 1).
    pub fn sequential(&self) -> bool {
        !self.gpu && matches!(self.name.as_str(), "ndfs" | "owcty-seq" | "map-seq")
    }

    /// Whether `--incremental` applies.
    pub fn graph_on_cpu(&self) -> bool {
        !self.gpu && !self.on_the_fly()
    }

    pub fn title(&self) -> String {
        if self.gpu {
            format!("GPU {}", self.name)
        } else {
            self.name.clone()
        }
    }
}

/// Arguments of `ltl`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Property files: BEEM names (`elevator2.3.prop4`) or paths [default: the thesis's
    /// eight models, unless --min-states/--max-states select files].
    pub files: Vec<String>,
    /// Also every property file of ltl-reference.csv whose instance has at least this
    /// many states (reference.csv).
    #[arg(long, value_name = "N")]
    pub min_states: Option<u64>,
    /// Also every property file of ltl-reference.csv whose instance has at most this
    /// many states (reference.csv).
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Algorithms, comma-separated: ndfs, cndfs, owcty, owcty-seq, map, map-seq;
    /// gpu:owcty, gpu:map on the GPU.
    #[arg(long, value_delimiter = ',', default_value = "ndfs,cndfs,owcty,owcty-seq,map,map-seq", value_name = "LIST")]
    pub algorithms: Vec<String>,
    /// Threads of the parallel algorithms [default: all cores]; the sequential ones get 1.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Runs per file, algorithm and binary (median).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// The --memory of the GPU runs.
    #[arg(long, value_name = "SIZE")]
    pub gpu_memory: Option<String>,
    /// CPU OWCTY and MAP on growing breadth-first prefixes of the product, the first of N states.
    #[arg(long, value_name = "N")]
    pub incremental: Option<u64>,
    /// Extra arguments of `warpcheck check` for every run, after `--`.
    #[arg(last = true, value_name = "WARPCHECK ARGS")]
    pub extra: Vec<String>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<u8> {
    let mut ctx = Context::new(&args.common, "ltl")?;
    let algorithms: Vec<Algorithm> = args.algorithms.iter().map(|a| Algorithm::parse(a)).collect::<Result<_>>()?;
    if algorithms.is_empty() {
        bail!("--algorithms: name at least one");
    }
    let threads = args.threads.unwrap_or_else(machine::cores).max(1);
    let verdicts = if ctx.beem.is_dir() { reference::load_ltl_reference(&ctx.beem)? } else { BTreeMap::new() };
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    let select = args.min_states.is_some() || args.max_states.is_some();
    let named: Vec<String> =
        if args.files.is_empty() && !select { THESIS_SET.map(String::from).to_vec() } else { args.files.clone() };
    for f in &named {
        let path = reference::resolve(&ctx.beem, f)?;
        files.push((reference::name_of(&path), path));
    }
    if select {
        let sizes = reference::load_reference(&ctx.beem)?;
        let (lo, hi) = (args.min_states.unwrap_or(0), args.max_states.unwrap_or(u64::MAX));
        let mut chosen: Vec<(u64, String)> = verdicts
            .keys()
            .filter_map(|f| sizes.get(instance_of_property(f)).map(|r| (r.states, f.clone())))
            .filter(|(s, _)| *s >= lo && *s <= hi)
            .collect();
        chosen.sort();
        for (_, f) in chosen {
            files.push((f.clone(), reference::instance_path(&ctx.beem, &f)));
        }
    }
    if files.is_empty() {
        bail!("no property file to check");
    }
    let n = ctx.binaries.len();
    let mut table = Table::new().left("property file").left("binary").left("reference");
    for a in &algorithms {
        table = table.left(a.title());
    }
    table = table.right("product states").right("transitions");
    for (name, path) in &files {
        let reference = verdicts.get(name).copied();
        // runs[alg][binary]
        let mut runs: Vec<Vec<Vec<Run>>> = vec![vec![Vec::new(); n]; algorithms.len()];
        for (a, alg) in algorithms.iter().enumerate() {
            let mut call =
                vec!["check".to_string(), path.display().to_string(), "--algorithm".to_string(), alg.name.clone()];
            if alg.gpu {
                call.extend(["--backend".to_string(), "gpu".to_string()]);
                if let Some(m) = &args.gpu_memory {
                    call.extend(["--memory".to_string(), m.clone()]);
                }
            } else {
                let t = if alg.sequential() { 1 } else { threads };
                call.extend(["--backend".to_string(), "cpu".to_string(), "--threads".to_string(), t.to_string()]);
                if let (Some(i), true) = (args.incremental, alg.graph_on_cpu()) {
                    call.push(format!("--incremental={i}"));
                }
            }
            call.extend(["--json".to_string(), "--quiet".to_string()]);
            call.extend(args.extra.iter().cloned());
            for r in 0..args.runs {
                for b in 0..n {
                    if runs[a][b].iter().any(|x| !x.ok()) {
                        continue;
                    }
                    let key = json!({"file": name, "algorithm": alg.title(), "run": r});
                    runs[a][b].push(ctx.run(b, &call, key, &[0, 1])?);
                }
            }
        }
        // Checks: the reference verdict, agreement, product sizes.
        let mut verdict: Option<(String, String)> = None;
        let mut product: Option<(String, (u64, u64))> = None;
        for (a, alg) in algorithms.iter().enumerate() {
            for b in 0..n {
                let Some(v) = runs[a][b].iter().find_map(Run::report) else { continue };
                let who = format!("{} {}", ctx.binaries[b].label, alg.title());
                let got = text(v, "verdict").unwrap_or("?").to_string();
                if let Some(holds) = reference {
                    let want = if holds { "holds" } else { "violated" };
                    if got != want {
                        ctx.problem(format!("{name}: {who} says {got}, ltl-reference.csv {want}"));
                    }
                }
                match &verdict {
                    None => verdict = Some((who.clone(), got.clone())),
                    Some((w, x)) if *x != got => ctx.problem(format!("{name}: {who} says {got}, {w} {x}")),
                    _ => {}
                }
                let whole = v.get("partial").and_then(Value::as_bool) != Some(true);
                if whole && (!alg.on_the_fly() || got == "holds") {
                    let size = (count(v, "states").unwrap_or(0), count(v, "transitions").unwrap_or(0));
                    match &product {
                        None => product = Some((who, size)),
                        Some((w, s)) if *s != size => ctx.problem(format!(
                            "{name}: {who} counts a product of {} states and {} transitions, {w} {} and {}",
                            size.0, size.1, s.0, s.1
                        )),
                        _ => {}
                    }
                }
            }
        }
        for b in 0..n {
            let mut cells = vec![
                name.clone(),
                ctx.binaries[b].label.clone(),
                reference.map_or("-".into(), |h| if h { "holds".into() } else { "violated".into() }),
            ];
            let mut size: Option<(u64, u64)> = None;
            for (a, alg) in algorithms.iter().enumerate() {
                let rs = &runs[a][b];
                cells.push(cell(alg, rs));
                if let Some(v) = rs.iter().find_map(Run::report) {
                    let whole = v.get("partial").and_then(Value::as_bool) != Some(true);
                    if whole && (!alg.on_the_fly() || text(v, "verdict") == Some("holds")) && size.is_none() {
                        size = Some((count(v, "states").unwrap_or(0), count(v, "transitions").unwrap_or(0)));
                    }
                }
            }
            cells.push(size.map_or("-".into(), |s| thousands(s.0)));
            cells.push(size.map_or("-".into(), |s| thousands(s.1)));
            table.push(cells);
        }
    }
    let mut doc = ctx.document("LTL model checking");
    doc.text(format!(
        "`warpcheck check FILE --algorithm A --backend cpu --threads T --json --quiet` (T = {threads}; 1 for ndfs, \
         owcty-seq and map-seq{}), or `--backend gpu{}` for the GPU ones; one process per file, algorithm, binary \
         and run ({} run(s), median). A cell: the verdict and `seconds` of the check (the product built and \
         searched; model loading excluded); for the GPU, `seconds` without the NVRTC compilation, then the split: \
         generation with the adjacency / graph / cycle detection (kernel times), and the compilation. \"product \
         states\": the whole product, as counted by an algorithm that stores it (on-the-fly ones only when the \
         property holds). Verdicts checked against ltl-reference.csv and between algorithms and binaries.",
        args.incremental.map_or(String::new(), |i| format!("; owcty and map with --incremental={i}")),
        args.gpu_memory.as_ref().map_or(String::new(), |m| format!(" --memory {m}")),
        args.runs,
    ));
    doc.table(table);
    ctx.finish(doc)
}

/// A cell: `holds 1.23 s`, with the GPU's split, or why there is none.
fn cell(alg: &Algorithm, runs: &[Run]) -> String {
    let Some(first) = runs.iter().find_map(Run::report) else {
        return runs.iter().find(|r| !r.ok()).map_or("not run".into(), Run::failure_cell);
    };
    let verdict = text(first, "verdict").unwrap_or("?");
    let seconds = |v: &Value| {
        let compile = v.get("gpu").and_then(|g| num(g, "compile_seconds")).unwrap_or(0.0);
        num(v, "seconds").map(|s| s - compile)
    };
    let s = median(&runs.iter().filter_map(|r| r.report().and_then(seconds)).collect::<Vec<_>>()).unwrap_or(0.0);
    let prefix = if first.get("partial").and_then(Value::as_bool) == Some(true) { ", prefix" } else { "" };
    let mut out = format!("{verdict} {s:.3} s{prefix}");
    if alg.gpu {
        if let Some(g) = first.get("gpu").filter(|g| g.is_object()) {
            let f = |k: &str| num(g, k).map_or("-".into(), |x| format!("{x:.3}"));
            out.push_str(&format!(
                " ({} / {} / {}; compile {})",
                f("generate_seconds"),
                f("graph_seconds"),
                f("cycle_seconds"),
                num(g, "compile_seconds").map_or("-".into(), |x| format!("{x:.2}"))
            ));
        }
        if let Some(r) = count(first, "map_rounds") {
            out.push_str(&format!(", {r} rounds"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_names() {
        let a = Algorithm::parse("gpu:owcty").unwrap();
        assert!(a.gpu && !a.on_the_fly() && !a.sequential());
        assert_eq!(a.title(), "GPU owcty");
        assert!(Algorithm::parse("ndfs").unwrap().sequential());
        assert!(Algorithm::parse("cndfs").unwrap().on_the_fly());
        assert!(Algorithm::parse("owcty").unwrap().graph_on_cpu());
        assert!(Algorithm::parse("gpu:ndfs").is_err());
        assert!(Algorithm::parse("dfs").is_err());
    }

    #[test]
    fn cells() {
        let run = |v: Value| Run {
            wall: 1.0,
            code: Some(1),
            timed_out: false,
            not_run: false,
            reports: vec![v],
            error: None,
        };
        let cpu = Algorithm::parse("owcty").unwrap();
        assert_eq!(
            cell(&cpu, &[run(json!({"verdict": "violated", "seconds": 1.5, "partial": false}))]),
            "violated 1.500 s"
        );
        let gpu = Algorithm::parse("gpu:map").unwrap();
        let v = json!({"verdict": "holds", "seconds": 2.0, "map_rounds": 3,
                       "gpu": {"compile_seconds": 1.5, "generate_seconds": 0.1, "graph_seconds": 0.05, "cycle_seconds": 0.2}});
        assert_eq!(cell(&gpu, &[run(v)]), "holds 0.500 s (0.100 / 0.050 / 0.200; compile 1.50), 3 rounds");
        assert_eq!(cell(&cpu, &[]), "not run");
    }
}
