//! `warpcheck-bench explore`: `warpcheck explore` on any list of models, or on the BEEM
//! instances of `reference.csv` within a size range, every binary side by side, the
//! counts checked against `reference.csv` where the model is a BEEM instance.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Result};
use serde_json::json;

use crate::common::{
    count, count_problems, matches_reference, median_seconds, num, speedups, text, Common, Context, Counts, Run,
};
use crate::reference::{self, Reference};
use crate::stats::median;
use crate::table::{fixed, thousands, times, Table};

/// Arguments of `explore`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Model files (`.dve`). Without any, the BEEM instances of reference.csv within
    /// --min-states/--max-states (smallest first).
    pub models: Vec<PathBuf>,
    /// With --beem: only instances of at least this many states (reference.csv).
    #[arg(long, value_name = "N")]
    pub min_states: Option<u64>,
    /// With --beem: only instances of at most this many states (reference.csv).
    #[arg(long, value_name = "N")]
    pub max_states: Option<u64>,
    /// Thread counts, comma-separated (each passed as --threads; default: none passed).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub threads: Vec<usize>,
    /// Runs per model, binary and thread count (median of the times).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Extra arguments of `warpcheck explore`, after `--` (e.g. -- --backend gpu --memory 8G).
    #[arg(last = true, value_name = "WARPCHECK ARGS")]
    pub extra: Vec<String>,
}

/// The arguments of one `warpcheck explore` run: the overflow rule of the reference
/// row (unless `extra` names one), `--json --quiet`, then `extra`.
pub fn explore_args(model: &str, pre: &[String], reference: Option<&Reference>, extra: &[String]) -> Vec<String> {
    let mut args = vec!["explore".to_string(), model.to_string()];
    args.extend_from_slice(pre);
    if reference.is_some_and(Reference::wraps)
        && !extra.iter().any(|a| a == "--overflow" || a.starts_with("--overflow="))
    {
        args.extend(["--overflow".to_string(), "wrap".to_string()]);
    }
    args.extend(["--json".to_string(), "--quiet".to_string()]);
    args.extend_from_slice(extra);
    args
}

/// The engine a report names: `cpu, 2 thr` or `gpu`.
pub fn engine(report: &serde_json::Value) -> String {
    match (text(report, "backend"), count(report, "threads")) {
        (Some("gpu"), _) => "gpu".to_string(),
        (Some(b), Some(t)) => format!("{b}, {t} thr"),
        (Some(b), None) => b.to_string(),
        _ => "-".to_string(),
    }
}

/// Peak memory in MiB of a report.
pub fn peak_mib(report: &serde_json::Value) -> Option<f64> {
    num(report, "peak_memory_bytes").map(|b| b / (1u64 << 20) as f64)
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<u8> {
    let mut ctx = Context::new(&args.common, "explore")?;
    let beem_present = ctx.beem.is_dir();
    let references: BTreeMap<String, Reference> =
        if beem_present { reference::load_reference(&ctx.beem)? } else { BTreeMap::new() };
    let mut models: Vec<(String, PathBuf)> = Vec::new();
    for m in &args.models {
        if !m.is_file() {
            bail!("no model file `{}`", m.display());
        }
        models.push((reference::name_of(m), m.clone()));
    }
    if args.models.is_empty() || args.min_states.is_some() || args.max_states.is_some() {
        reference::beem_dir(&ctx.beem)?;
        let (lo, hi) = (args.min_states.unwrap_or(0), args.max_states.unwrap_or(u64::MAX));
        let mut rows: Vec<&Reference> = references.values().filter(|r| r.states >= lo && r.states <= hi).collect();
        rows.sort_by_key(|r| (r.states, r.instance.clone()));
        if rows.is_empty() {
            bail!("no instance of reference.csv has between {lo} and {hi} states");
        }
        for r in rows {
            models.push((r.instance.clone(), reference::instance_path(&ctx.beem, &r.instance)));
        }
    }
    let thread_lists: Vec<Option<usize>> =
        if args.threads.is_empty() { vec![None] } else { args.threads.iter().map(|&t| Some(t)).collect() };
    if args.threads.contains(&0) {
        bail!("--threads: a thread count must be at least 1");
    }
    let mut table = Table::new().left("model").left("binary").left("engine").right("states").right("transitions");
    table = table.right("deadlocks").right("s").right("M states/s").right("wall s").right("peak MiB");
    table = table.right("bytes/state").left("reference");
    if ctx.side_by_side() {
        table = table.right(format!("speed vs {}", ctx.baseline_label()));
    }
    let (mut exact, mut differ, mut without) = (0, 0, 0);
    for (name, path) in &models {
        let reference = references.get(name);
        let model = path.display().to_string();
        for &threads in &thread_lists {
            let pre: Vec<String> = threads.map(|t| vec!["--threads".to_string(), t.to_string()]).unwrap_or_default();
            let call = explore_args(&model, &pre, reference, &args.extra);
            let mut runs: Vec<Vec<Run>> = vec![Vec::new(); ctx.binaries.len()];
            for r in 0..args.runs {
                for b in 0..ctx.binaries.len() {
                    if runs[b].iter().any(|x| x.timed_out) {
                        continue; // one timeout is enough
                    }
                    let key = json!({"model": name, "threads": threads, "run": r});
                    runs[b].push(ctx.run(b, &call, key, &[0])?);
                }
            }
            let mut counts = Vec::new();
            for (b, rs) in runs.iter().enumerate() {
                for (i, r) in rs.iter().enumerate() {
                    if let Some(c) = r.report().and_then(Counts::of) {
                        counts.push((format!("{} (run {})", ctx.binaries[b].label, i + 1), c));
                    }
                }
            }
            let what = match threads {
                Some(t) => format!("{name} on {t} thread(s)"),
                None => name.clone(),
            };
            for p in count_problems(&what, &counts, reference) {
                ctx.problem(p);
            }
            let seconds: Vec<Option<f64>> = runs.iter().map(|rs| median_seconds(rs)).collect();
            let speed = speedups(&seconds, ctx.baseline);
            for (b, rs) in runs.iter().enumerate() {
                let label = ctx.binaries[b].label.clone();
                let Some(first) = rs.iter().find_map(Run::report) else {
                    let cell = rs.last().map_or("-".to_string(), Run::failure_cell);
                    table.push(vec![name.clone(), label, "-".into(), cell]);
                    continue;
                };
                let c = Counts::of(first);
                let wall = median(&rs.iter().filter(|r| r.ok()).map(|r| r.wall).collect::<Vec<_>>());
                let refcell = match (reference, c) {
                    (Some(r), Some(c)) if matches_reference(&c, r) => {
                        exact += 1;
                        "exact".to_string()
                    }
                    (Some(_), _) => {
                        differ += 1;
                        "DIFFERS".to_string()
                    }
                    (None, _) => {
                        without += 1;
                        "-".to_string()
                    }
                };
                let mut cells = vec![
                    name.clone(),
                    label,
                    engine(first),
                    c.map_or("-".into(), |c| thousands(c.states)),
                    c.map_or("-".into(), |c| thousands(c.transitions)),
                    c.and_then(|c| c.deadlocks).map_or("-".into(), thousands),
                    fixed(seconds[b], 3),
                    fixed(c.zip(seconds[b]).map(|(c, s)| c.states as f64 / s.max(1e-9) / 1e6), 2),
                    fixed(wall, 3),
                    fixed(peak_mib(first), 0),
                    fixed(num(first, "bytes_per_state"), 1),
                    refcell,
                ];
                if ctx.side_by_side() {
                    cells.push(times(speed[b]));
                }
                table.push(cells);
            }
        }
    }
    let mut doc = ctx.document("warpcheck explore");
    doc.text(format!(
        "`warpcheck explore MODEL [--threads T] --json --quiet{}` per model (BEEM instances computed by LTSmin get \
         `--overflow wrap`, the rule of reference.csv); {} run(s) each, the binaries interleaved; \"s\": the \
         exploration as warpcheck reports it (`seconds`, model loading excluded), median; \"wall s\": the whole \
         process, median.",
        if args.extra.is_empty() { String::new() } else { format!(" {}", crate::runner::shell_line(&args.extra)) },
        args.runs
    ));
    doc.table(table);
    doc.text(format!(
        "{exact} row(s) match reference.csv exactly, {differ} differ, {without} have no reference{}.",
        if beem_present { "" } else { " (no BEEM folder here)" }
    ));
    ctx.finish(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overflow_rule_and_extra_arguments() {
        let r = Reference {
            instance: "x.1".into(),
            states: 1,
            transitions: 0,
            deadlocks: None,
            accepting: None,
            source: "ltsmin-3.1".into(),
        };
        let pre = vec!["--threads".to_string(), "2".to_string()];
        assert_eq!(
            explore_args("m.dve", &pre, Some(&r), &[]).join(" "),
            "explore m.dve --threads 2 --overflow wrap --json --quiet"
        );
        let extra = vec!["--overflow".to_string(), "error".to_string()];
        assert_eq!(
            explore_args("m.dve", &[], Some(&r), &extra).join(" "),
            "explore m.dve --json --quiet --overflow error"
        );
        assert_eq!(explore_args("m.dve", &[], None, &[]).join(" "), "explore m.dve --json --quiet");
    }

    #[test]
    fn engines() {
        assert_eq!(engine(&json!({"backend": "cpu", "threads": 2})), "cpu, 2 thr");
        assert_eq!(engine(&json!({"backend": "gpu", "threads": null})), "gpu");
        assert_eq!(engine(&json!({})), "-");
    }
}
