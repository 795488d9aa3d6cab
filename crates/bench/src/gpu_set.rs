//! `warpcheck-bench gpu-set`: the GPU set of `shared/docs/benchmarks.md` (the ten
//! largest BEEM instances) on the GPU engine, beside the CPU engine on all cores of the
//! same machine, every binary side by side. Per instance and binary: the NVRTC compile
//! time of a first run with an empty kernel cache, the search time as the median of
//! cached runs, the kernels' time, optionally generation alone (`--profile`), device
//! bytes per state, the kernel's registers and local memory, and the CPU engine's time.
//!
//! Launch settings are compared by giving the same binary under two labels with
//! different environment variables (`--env LABEL:WARPCHECK_GPU_BLOCK=128`).

use std::path::PathBuf;

use anyhow::{bail, Context as _, Result};
use serde_json::{json, Value};

use crate::common::{count, count_problems, num, speedups, Common, Context, Counts, Run};
use crate::explore::explore_args;
use crate::machine;
use crate::reference::{self, instance_path};
use crate::stats::median;
use crate::table::{fixed, thousands, times, Table};

/// The GPU set: the largest BEEM instances.
pub const GPU_SET: [&str; 10] = [
    "anderson.3",
    "lamport.8",
    "mcs.5",
    "brp.6",
    "collision.4",
    "iprotocol.6",
    "at.5",
    "bakery.7",
    "leader_filters.7",
    "frogs.4",
];

/// Arguments of `gpu-set`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Cached GPU runs per instance and binary (median), after the first, uncached one.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Threads of the CPU engine [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Runs of the CPU engine per instance and binary (median); 0: no CPU column.
    #[arg(long, default_value_t = 1)]
    pub cpu_runs: u32,
    /// The --memory of the CPU engine's runs (e.g. 32G: no restart with a larger table).
    #[arg(long, value_name = "SIZE")]
    pub cpu_memory: Option<String>,
    /// The --memory of the GPU runs (default: warpcheck's, 90% of the free device memory).
    #[arg(long, value_name = "SIZE")]
    pub gpu_memory: Option<String>,
    /// Also a `--profile` run: the time of successor generation alone.
    #[arg(long)]
    pub profile: bool,
    /// BEEM instances, comma-separated [default: the GPU set].
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub instances: Vec<String>,
    /// Where each binary's kernel cache is made (emptied first) [default: a folder under the temporary directory].
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Extra arguments of `warpcheck explore` for every run, after `--`.
    #[arg(last = true, value_name = "WARPCHECK ARGS")]
    pub extra: Vec<String>,
}

/// The medians of `key` over the reports of `runs`.
fn median_of(runs: &[Run], key: &str) -> Option<f64> {
    median(&runs.iter().filter_map(|r| r.report().and_then(|v| num(v, key))).collect::<Vec<_>>())
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<u8> {
    let mut ctx = Context::new(&args.common, "gpu-set")?;
    let references = reference::load_reference(&ctx.beem)?;
    let threads = args.threads.unwrap_or_else(machine::cores);
    if threads == 0 {
        bail!("--threads must be at least 1");
    }
    let instances: Vec<String> =
        if args.instances.is_empty() { GPU_SET.map(String::from).to_vec() } else { args.instances.clone() };
    for i in &instances {
        if !instance_path(&ctx.beem, i).is_file() {
            bail!("--instances: no BEEM model `{i}` ({} does not exist)", instance_path(&ctx.beem, i).display());
        }
    }
    let cache_root = args
        .cache
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join(format!("warpcheck-bench-cache-{}", std::process::id())));
    let mut gpu_pre = vec!["--backend".to_string(), "gpu".to_string()];
    if let Some(m) = &args.gpu_memory {
        gpu_pre.extend(["--memory".to_string(), m.clone()]);
    }
    let mut cpu_pre = vec!["--backend".to_string(), "cpu".to_string(), "--threads".to_string(), threads.to_string()];
    if let Some(m) = &args.cpu_memory {
        cpu_pre.extend(["--memory".to_string(), m.clone()]);
    }
    let mut table = Table::new().left("instance").left("binary").right("states").right("compile s").right("search s");
    table = table.right("M states/s").right("kernels s");
    if args.profile {
        table = table.right("generation s");
    }
    table = table.right("bytes/state").right("registers").right("local bytes");
    if args.cpu_runs > 0 {
        table = table.right(format!("CPU s ({threads} thr)")).right("CPU M states/s").right("GPU/CPU");
    }
    if ctx.side_by_side() {
        table = table.right(format!("search speed vs {}", ctx.baseline_label()));
    }
    let mut device: Option<String> = None;
    let n = ctx.binaries.len();
    for inst in &instances {
        let path = instance_path(&ctx.beem, inst).display().to_string();
        let reference = references.get(inst);
        let gpu_call = explore_args(&path, &gpu_pre, reference, &args.extra);
        let mut profile_call = gpu_call.clone();
        profile_call.insert(2, "--profile".to_string());
        let cpu_call = explore_args(&path, &cpu_pre, reference, &args.extra);
        let caches: Vec<Vec<(String, String)>> = (0..n)
            .map(|b| {
                let dir = cache_root.join(format!("binary-{b}"));
                let _ = std::fs::remove_dir_all(&dir);
                std::fs::create_dir_all(&dir)
                    .with_context(|| format!("cannot make the kernel cache `{}`", dir.display()))?;
                Ok(vec![("WARPCHECK_CACHE".to_string(), dir.display().to_string())])
            })
            .collect::<Result<_>>()?;
        let key = |what: &str, r: u32| json!({"instance": inst, "run": what, "index": r});
        let first: Vec<Run> =
            (0..n).map(|b| ctx.run_with(b, &gpu_call, &caches[b], key("uncached", 0), &[0])).collect::<Result<_>>()?;
        let mut cached: Vec<Vec<Run>> = vec![Vec::new(); n];
        for r in 0..args.runs {
            for b in 0..n {
                if first[b].ok() && !cached[b].iter().any(|x| x.timed_out) {
                    cached[b].push(ctx.run_with(b, &gpu_call, &caches[b], key("cached", r), &[0])?);
                }
            }
        }
        let mut profiled: Vec<Option<Run>> = vec![None; n];
        if args.profile {
            for b in 0..n {
                if first[b].ok() {
                    profiled[b] = Some(ctx.run_with(b, &profile_call, &caches[b], key("profile", 0), &[0])?);
                }
            }
        }
        let mut cpu: Vec<Vec<Run>> = vec![Vec::new(); n];
        for r in 0..args.cpu_runs {
            for b in 0..n {
                if !cpu[b].iter().any(|x| x.timed_out) {
                    cpu[b].push(ctx.run(b, &cpu_call, key("cpu", r), &[0])?);
                }
            }
        }
        let mut counts = Vec::new();
        for b in 0..n {
            let label = &ctx.binaries[b].label;
            let all = std::iter::once(&first[b]).chain(&cached[b]).chain(profiled[b].iter());
            for r in all {
                if let Some(c) = r.report().and_then(Counts::of) {
                    counts.push((format!("{label} GPU"), c));
                }
            }
            for r in &cpu[b] {
                if let Some(c) = r.report().and_then(Counts::of) {
                    counts.push((format!("{label} CPU"), c));
                }
            }
        }
        // Deadlocks are not in the LTSmin rows; compare states and transitions.
        for p in count_problems(inst, &counts, reference) {
            ctx.problem(p);
        }
        let search: Vec<Option<f64>> = cached.iter().map(|rs| median_of(rs, "explore_seconds")).collect();
        let speed = speedups(&search, ctx.baseline);
        for b in 0..n {
            let label = ctx.binaries[b].label.clone();
            let Some(f) = first[b].report() else {
                // The GPU failed: its cells say so, the CPU's are kept.
                let gpu_columns = 8 + usize::from(args.profile);
                let mut cells = vec![inst.clone(), label, "-".into(), first[b].failure_cell()];
                cells.resize(2 + gpu_columns, "-".to_string());
                if args.cpu_runs > 0 {
                    let cpu_s = median_of(&cpu[b], "seconds");
                    cells.push(cpu[b].last().filter(|_| cpu_s.is_none()).map_or(fixed(cpu_s, 2), Run::failure_cell));
                    let states = cpu[b].iter().find_map(Run::report).and_then(|v| count(v, "states"));
                    cells.push(fixed(states.zip(cpu_s).map(|(s, t)| s as f64 / t.max(1e-9) / 1e6), 1));
                }
                table.push(cells);
                continue;
            };
            device = device.or_else(|| f.get("device").and_then(Value::as_str).map(String::from));
            let states = count(f, "states");
            let compile = num(f, "compile_seconds");
            let compile_cell = match f.get("compile_cached").and_then(Value::as_bool) {
                Some(true) => format!("{} (cached)", fixed(compile, 2)),
                _ => fixed(compile, 2),
            };
            let search_cell = match (search[b], cached[b].last()) {
                (Some(s), _) => fixed(Some(s), 3),
                (None, Some(r)) => r.failure_cell(),
                (None, None) => "-".into(),
            };
            let rate = states.zip(search[b]).map(|(s, t)| s as f64 / t.max(1e-9) / 1e6);
            let mut cells = vec![
                inst.clone(),
                label,
                states.map_or("-".into(), thousands),
                compile_cell,
                search_cell,
                fixed(rate, 0),
                fixed(median_of(&cached[b], "kernel_seconds"), 3),
            ];
            if args.profile {
                cells.push(match &profiled[b] {
                    Some(r) if r.ok() => fixed(r.report().and_then(|v| num(v, "generate_seconds")), 3),
                    Some(r) => r.failure_cell(),
                    None => "-".into(),
                });
            }
            cells.extend([
                fixed(num(f, "bytes_per_state"), 1),
                count(f, "kernel_registers").map_or("-".into(), |x| x.to_string()),
                count(f, "kernel_local_bytes").map_or("-".into(), |x| x.to_string()),
            ]);
            if args.cpu_runs > 0 {
                let cpu_s = median_of(&cpu[b], "seconds");
                let cpu_cell = match (cpu_s, cpu[b].last()) {
                    (Some(s), _) => fixed(Some(s), 2),
                    (None, Some(r)) => r.failure_cell(),
                    (None, None) => "-".into(),
                };
                let cpu_rate = states.zip(cpu_s).map(|(s, t)| s as f64 / t.max(1e-9) / 1e6);
                cells.extend([cpu_cell, fixed(cpu_rate, 1), times(cpu_s.zip(search[b]).map(|(c, g)| c / g.max(1e-9)))]);
            }
            if ctx.side_by_side() {
                cells.push(times(speed[b]));
            }
            table.push(cells);
        }
    }
    let _ = std::fs::remove_dir_all(&cache_root);
    let mut doc = ctx.document("GPU set (benchmarks.md): GPU engine beside the CPU engine");
    doc.text(format!(
        "GPU: {}. `warpcheck explore MODEL {} --json --quiet` (BEEM instances computed by LTSmin get `--overflow \
         wrap`): \"compile s\": NVRTC in a first run with an empty kernel cache (one cache per binary); \"search \
         s\": the breadth-first search alone (`explore_seconds`), median of {} cached run(s); \"kernels s\": the \
         GPU time of the level batches, median{}; bytes/state: device memory per stored state. CPU: `{}`, {} \
         run(s), median of `seconds`; GPU/CPU: CPU seconds over GPU search seconds.",
        device.as_deref().unwrap_or("none answered"),
        crate::runner::shell_line(&gpu_pre),
        args.runs,
        if args.profile { "; \"generation s\": a `--profile` run's generation-only launches" } else { "" },
        crate::runner::shell_line(&cpu_pre),
        args.cpu_runs,
    ));
    doc.table(table);
    ctx.finish(doc)
}
