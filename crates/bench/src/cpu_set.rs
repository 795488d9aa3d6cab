//! `warpcheck-bench cpu-set`: the CPU set of `shared/docs/benchmarks.md` (ten BEEM
//! instances of 4.8-12 M states) explored by the CPU engine on the given thread counts,
//! every binary interleaved per instance, beside the peers' figures measured on a
//! 2-core machine of the same kind (LTSmin 3.1, DiVinE 2.4).

use anyhow::{bail, Result};
use serde_json::json;

use crate::common::{count_problems, median_seconds, num, speedups, Common, Context, Counts, Run};
use crate::explore::{explore_args, peak_mib};
use crate::reference::{self, instance_path};
use crate::stats::geometric_mean;
use crate::table::{fixed, thousands, times, Table};

/// A peer's figures for one instance, in million states per second (bytes per state
/// for LTSmin's tree store), from benchmarks.md.
#[derive(Clone, Copy, Debug)]
pub struct Peers {
    pub instance: &'static str,
    pub ltsmin_1: f64,
    pub ltsmin_2: f64,
    pub ltsmin_bytes: f64,
    pub divine_1: f64,
}

impl Peers {
    /// The best peer's M states/s on `threads` threads (peers were measured on 1 and 2).
    pub fn best(&self, threads: usize) -> Option<f64> {
        match threads {
            1 => Some(self.ltsmin_1.max(self.divine_1)),
            2 => Some(self.ltsmin_2),
            _ => None,
        }
    }
}

/// The CPU set and the peers' figures ("Peers on a development machine (2 cores)").
pub const CPU_SET: [Peers; 10] = [
    Peers { instance: "adding.6", ltsmin_1: 0.57, ltsmin_2: 0.57, ltsmin_bytes: 9.2, divine_1: 0.96 },
    Peers { instance: "at.4", ltsmin_1: 0.42, ltsmin_2: 0.41, ltsmin_bytes: 8.1, divine_1: 0.40 },
    Peers { instance: "bakery.5", ltsmin_1: 0.41, ltsmin_2: 0.42, ltsmin_bytes: 8.9, divine_1: 0.48 },
    Peers { instance: "brp.4", ltsmin_1: 0.43, ltsmin_2: 0.61, ltsmin_bytes: 10.0, divine_1: 0.63 },
    Peers { instance: "cambridge.7", ltsmin_1: 0.28, ltsmin_2: 0.42, ltsmin_bytes: 8.6, divine_1: 0.18 },
    Peers { instance: "elevator2.3", ltsmin_1: 0.48, ltsmin_2: 0.49, ltsmin_bytes: 8.0, divine_1: 0.30 },
    Peers { instance: "fischer.6", ltsmin_1: 0.38, ltsmin_2: 0.43, ltsmin_bytes: 8.4, divine_1: 0.34 },
    Peers { instance: "lamport.6", ltsmin_1: 0.46, ltsmin_2: 0.55, ltsmin_bytes: 8.0, divine_1: 0.43 },
    Peers { instance: "leader_election.5", ltsmin_1: 0.19, ltsmin_2: 0.22, ltsmin_bytes: 15.4, divine_1: 0.17 },
    Peers { instance: "msmie.4", ltsmin_1: 0.54, ltsmin_2: 0.53, ltsmin_bytes: 8.4, divine_1: 0.42 },
];

/// The instances of the CPU set.
pub fn instances() -> Vec<&'static str> {
    CPU_SET.iter().map(|p| p.instance).collect()
}

/// Arguments of `cpu-set`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Thread counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1,2", value_name = "LIST")]
    pub threads: Vec<usize>,
    /// Runs per instance, thread count and binary (median).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Only these instances of the set, comma-separated (default: all ten).
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub instances: Vec<String>,
    /// Extra arguments of `warpcheck explore`, after `--` (e.g. -- --memory 2G).
    #[arg(last = true, value_name = "WARPCHECK ARGS")]
    pub extra: Vec<String>,
}

/// One row's numbers, for the geometric means.
struct Ratios {
    binary: usize,
    threads: usize,
    vs_peer: Option<f64>,
    vs_baseline: Option<f64>,
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<u8> {
    let mut ctx = Context::new(&args.common, "cpu-set")?;
    let references = reference::load_reference(&ctx.beem)?;
    let chosen: Vec<Peers> = if args.instances.is_empty() {
        CPU_SET.to_vec()
    } else {
        args.instances
            .iter()
            .map(|i| {
                CPU_SET.iter().find(|p| p.instance == i).copied().ok_or_else(|| {
                    anyhow::anyhow!("--instances: `{i}` is not in the CPU set ({})", instances().join(", "))
                })
            })
            .collect::<Result<_>>()?
    };
    if args.threads.is_empty() || args.threads.contains(&0) {
        bail!("--threads: give thread counts of at least 1, e.g. 1,2");
    }
    let mut table = Table::new().left("instance").right("threads").left("binary").right("states").right("transitions");
    table = table.right("s").right("M states/s").right("best peer M/s").right("vs best peer");
    if ctx.side_by_side() {
        table = table.right(format!("speed vs {}", ctx.baseline_label()));
    }
    table = table.right("peak MiB").right("bytes/state").right("LTSmin bytes/state");
    let mut ratios = Vec::new();
    for peers in &chosen {
        let inst = peers.instance;
        let path = instance_path(&ctx.beem, inst);
        if !path.is_file() {
            bail!("the CPU set's model `{}` is missing", path.display());
        }
        let reference = references.get(inst);
        for &threads in &args.threads {
            let pre = ["--backend", "cpu", "--threads", &threads.to_string()].map(String::from).to_vec();
            let call = explore_args(&path.display().to_string(), &pre, reference, &args.extra);
            let mut runs: Vec<Vec<Run>> = vec![Vec::new(); ctx.binaries.len()];
            for r in 0..args.runs {
                for (b, rs) in runs.iter_mut().enumerate() {
                    if rs.iter().any(|x| x.timed_out) {
                        continue;
                    }
                    rs.push(ctx.run(b, &call, json!({"instance": inst, "threads": threads, "run": r}), &[0])?);
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
            for p in count_problems(&format!("{inst} on {threads} thread(s)"), &counts, reference) {
                ctx.problem(p);
            }
            let seconds: Vec<Option<f64>> = runs.iter().map(|rs| median_seconds(rs)).collect();
            let speed = speedups(&seconds, ctx.baseline);
            let best = peers.best(threads);
            for (b, rs) in runs.iter().enumerate() {
                let label = ctx.binaries[b].label.clone();
                let Some(first) = rs.iter().find_map(Run::report) else {
                    let cell = rs.last().map_or("-".to_string(), Run::failure_cell);
                    table.push(vec![inst.into(), threads.to_string(), label, cell]);
                    continue;
                };
                let c = Counts::of(first);
                let rate = c.zip(seconds[b]).map(|(c, s)| c.states as f64 / s.max(1e-9) / 1e6);
                let vs_peer = rate.zip(best).map(|(r, p)| r / p);
                ratios.push(Ratios { binary: b, threads, vs_peer, vs_baseline: speed[b] });
                let peak = rs
                    .iter()
                    .filter_map(|r| r.report().and_then(peak_mib))
                    .fold(None, |m: Option<f64>, p| Some(m.map_or(p, |m| m.max(p))));
                let mut cells = vec![
                    inst.to_string(),
                    threads.to_string(),
                    label,
                    c.map_or("-".into(), |c| thousands(c.states)),
                    c.map_or("-".into(), |c| thousands(c.transitions)),
                    fixed(seconds[b], 2),
                    fixed(rate, 2),
                    fixed(best, 2),
                    times(vs_peer),
                ];
                if ctx.side_by_side() {
                    cells.push(times(speed[b]));
                }
                cells.extend([
                    fixed(peak, 0),
                    fixed(num(first, "bytes_per_state"), 1),
                    fixed(Some(peers.ltsmin_bytes), 1),
                ]);
                table.push(cells);
            }
        }
    }
    let mut doc = ctx.document("CPU set (benchmarks.md): warpcheck beside the peers");
    doc.text(format!(
        "`warpcheck explore MODEL --backend cpu --threads T --json --quiet{}` (BEEM instances computed by LTSmin \
         get `--overflow wrap`); median of {} run(s) per instance, thread count and binary, the binaries \
         interleaved (A, B, A, B, ...). \"s\": the exploration as warpcheck reports it (model loading excluded). \
         Peers: LTSmin 3.1 and DiVinE 2.4 on an otherwise idle 2-core machine of the same kind, from \
         shared/docs/benchmarks.md (best of LTSmin and DiVinE on 1 thread, LTSmin on 2; none for other counts); \
         \"vs best peer\": states/s over the best peer's.",
        if args.extra.is_empty() { String::new() } else { format!(" {}", crate::runner::shell_line(&args.extra)) },
        args.runs
    ));
    doc.table(table);
    let mut summary = String::new();
    for (b, binary) in ctx.binaries.iter().enumerate() {
        for &threads in &args.threads {
            let of = |f: fn(&Ratios) -> Option<f64>| -> Vec<f64> {
                ratios.iter().filter(|r| r.binary == b && r.threads == threads).filter_map(f).collect()
            };
            let peer = geometric_mean(&of(|r| r.vs_peer));
            let mut line = format!("- {} on {threads} thread(s): ", binary.label);
            line.push_str(&match peer {
                Some(g) => format!("geometric mean {g:.2}x the best peer"),
                None => "no peer figures".to_string(),
            });
            if ctx.side_by_side() && b != ctx.baseline {
                if let Some(g) = geometric_mean(&of(|r| r.vs_baseline)) {
                    line.push_str(&format!(", {g:.2}x the speed of {}", ctx.baseline_label()));
                }
            }
            summary.push_str(&line);
            summary.push('\n');
        }
    }
    doc.text(summary);
    ctx.finish(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_peers() {
        let adding = CPU_SET[0];
        assert_eq!(adding.best(1), Some(0.96));
        assert_eq!(adding.best(2), Some(0.57));
        assert_eq!(adding.best(16), None);
        assert_eq!(instances().len(), 10);
    }
}
