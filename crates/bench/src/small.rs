//! `warpcheck-bench small`: the start-up cost of a small model. Each binary explores it
//! with its default table sizing and with a tiny fixed table (`--memory 16M`), many
//! times, interleaved; the whole process's wall time (median and minimum), and the
//! ratio default/tiny (the design goal: within 2x).

use std::path::PathBuf;

use anyhow::{bail, Result};
use serde_json::json;

use crate::common::{count_problems, speedups, Common, Context, Counts, Run};
use crate::explore::{explore_args, peak_mib};
use crate::reference;
use crate::stats::{median, minimum};
use crate::table::{fixed, thousands, times, Table};

/// Arguments of `small`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// The small model.
    #[arg(long, default_value = "examples/peterson.dve")]
    pub model: PathBuf,
    /// Runs of each binary and variant (median and minimum).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// The --memory of the tiny fixed table.
    #[arg(long, default_value = "16M", value_name = "SIZE")]
    pub tiny: String,
    /// Extra arguments of `warpcheck explore`, after `--` (default: `--backend cpu`).
    #[arg(last = true, value_name = "WARPCHECK ARGS")]
    pub extra: Vec<String>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<u8> {
    let mut ctx = Context::new(&args.common, "small")?;
    if !args.model.is_file() {
        bail!("no model file `{}` (run from the repository root or pass --model FILE)", args.model.display());
    }
    let name = reference::name_of(&args.model);
    let reference = if ctx.beem.is_dir() {
        reference::load_reference(&ctx.beem).ok().and_then(|r| r.get(&name).cloned())
    } else {
        None
    };
    let mut extra = args.extra.clone();
    if !extra.iter().any(|a| a == "--backend" || a.starts_with("--backend=")) {
        extra.splice(0..0, ["--backend".to_string(), "cpu".to_string()]);
    }
    let model = args.model.display().to_string();
    let variants = [
        ("default", explore_args(&model, &[], reference.as_ref(), &extra)),
        ("tiny", explore_args(&model, &["--memory".to_string(), args.tiny.clone()], reference.as_ref(), &extra)),
    ];
    let n = ctx.binaries.len();
    // runs[binary][variant]
    let mut runs: Vec<[Vec<Run>; 2]> = vec![[Vec::new(), Vec::new()]; n];
    for r in 0..args.runs {
        for b in 0..n {
            for (v, (variant, call)) in variants.iter().enumerate() {
                if runs[b][v].iter().any(|x| x.timed_out) {
                    continue;
                }
                let key = json!({"model": name, "variant": variant, "run": r});
                runs[b][v].push(ctx.run(b, call, key, &[0])?);
            }
        }
    }
    let mut counts = Vec::new();
    for (b, per_variant) in runs.iter().enumerate() {
        for (v, rs) in per_variant.iter().enumerate() {
            if let Some(c) = rs.iter().find_map(|r| r.report().and_then(Counts::of)) {
                counts.push((format!("{} {}", ctx.binaries[b].label, variants[v].0), c));
            }
        }
    }
    for p in count_problems(&name, &counts, reference.as_ref()) {
        ctx.problem(p);
    }
    let walls = |rs: &[Run]| -> Vec<f64> { rs.iter().filter(|r| r.ok()).map(|r| r.wall * 1e3).collect() };
    let default_medians: Vec<Option<f64>> = runs.iter().map(|v| median(&walls(&v[0]))).collect();
    let speed = speedups(&default_medians, ctx.baseline);
    let tiny = &args.tiny;
    let mut table = Table::new().left("binary").right("states").right("transitions");
    table = table.right("default median ms").right("default min ms");
    table = table.right(format!("--memory {tiny} median ms")).right(format!("--memory {tiny} min ms"));
    table = table.right("default/tiny (median)").right("default/tiny (min)");
    table = table.right("default peak MiB").right("tiny peak MiB").left("within 2x");
    if ctx.side_by_side() {
        table = table.right(format!("default speed vs {}", ctx.baseline_label()));
    }
    for (b, [default, small]) in runs.iter().enumerate() {
        let (dw, tw) = (walls(default), walls(small));
        let first = default.iter().chain(small).find_map(Run::report);
        let c = first.and_then(Counts::of);
        let (dmed, dmin, tmed, tmin) = (median(&dw), minimum(&dw), median(&tw), minimum(&tw));
        let ratio_med = dmed.zip(tmed).map(|(d, t)| d / t);
        let ratio_min = dmin.zip(tmin).map(|(d, t)| d / t);
        let peak = |rs: &[Run]| rs.iter().find_map(Run::report).and_then(peak_mib);
        let failed = default.iter().chain(small).find(|r| !r.ok()).map(Run::failure_cell);
        let mut cells = vec![
            ctx.binaries[b].label.clone(),
            c.map_or("-".into(), |c| thousands(c.states)),
            c.map_or("-".into(), |c| thousands(c.transitions)),
            fixed(dmed, 2),
            fixed(dmin, 2),
            fixed(tmed, 2),
            fixed(tmin, 2),
            times(ratio_med),
            times(ratio_min),
            fixed(peak(default), 1),
            fixed(peak(small), 1),
            match (ratio_med, failed) {
                (_, Some(f)) => f,
                (Some(r), None) if r <= 2.0 => "yes".into(),
                (Some(_), None) => "**no**".into(),
                (None, None) => "-".into(),
            },
        ];
        if ctx.side_by_side() {
            cells.push(times(speed[b]));
        }
        table.push(cells);
    }
    let mut doc = ctx.document(format!("Start-up cost: {}", args.model.display()));
    doc.text(format!(
        "Each binary runs `warpcheck {}` (\"default\") and the same with `--memory {tiny}` (\"tiny\": a small \
         fixed state table), {} time(s) each, interleaved (binary by binary, default then tiny). Times are the \
         wall time of the whole process, from start to exit. The design goal: the default within 2x of the tiny \
         table.",
        crate::runner::shell_line(&variants[0].1),
        args.runs
    ));
    doc.table(table);
    ctx.finish(doc)
}
