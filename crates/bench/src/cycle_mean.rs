//! `warpcheck-bench cycle-mean`: the optimal cycle mean and ratio algorithms of
//! `warpcheck cycle-mean` (Howard sequential and parallel, Young–Tarjan–Orlin, Karp,
//! and Howard on the GPU) on the largest graphs of `shared/cycle-mean` (minimum and
//! maximum cycle ratio, minimum cycle mean), on BEEM state graphs weighted by a DVE
//! expression on the target state (maximum cycle mean), and on Erdős–Rényi graphs
//! (`warpcheck generate er`, degree 8, weights uniform in [-1000, 1000] from a seeded
//! generator; minimum cycle mean). Every input is loaded once per binary: one process
//! runs all algorithms on it (`-a A,B,...`), so a time limit keeps the algorithms that
//! finished. All algorithms and binaries must give the same exact value.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use serde_json::{json, Value};

use crate::common::{count, num, text, Common, Context, Run};
use crate::machine;
use crate::reference::instance_path;
use crate::stats::median;
use crate::table::{fixed, thousands, Table};

/// Dasdan's largest graphs (relative to --cycle-mean).
pub const DASDAN: [&str; 5] =
    ["iscas/s38584.d", "iscas/s38417.d", "iscas/bigkey.d", "iscas/dsip.d", "core-big/rd_big.d"];

/// The BEEM instances weighted by default.
pub const INSTANCES: [&str; 4] = ["mcs.3", "fischer.4", "lamport.5", "exit.5"];

/// The weight expression of each BEEM model (evaluated on a transition's target state):
/// a global counter or a sum of flags, a proxy for the resource use of the state.
pub const WEIGHTS: [(&str, &str); 8] = [
    ("fischer", "id"),
    ("lamport", "b[0] + b[1] + b[2] + b[3]"),
    ("mcs", "locked[0] + locked[1] + locked[2] + locked[3]"),
    ("exit", "time"),
    ("cambridge", "buf_act"),
    ("leader_election", "nr_leaders"),
    ("bakery", "number[0] + number[1] + number[2] + number[3]"),
    ("at", "z"),
];

/// The algorithms in the order one process runs them (the fast ones first, so a time
/// limit costs the slow ones).
const ORDER: [&str; 5] = ["howard-gpu", "howard-par", "yto", "howard", "karp"];

/// The order of the columns.
const COLUMNS: [&str; 5] = ["howard", "howard-par", "howard-gpu", "yto", "karp"];

/// The ones that run `--runs` times; the others run `--cpu-runs` times.
fn fast(a: &str) -> bool {
    a == "howard-par" || a == "howard-gpu"
}

fn title(a: &str) -> &'static str {
    match a {
        "howard" => "Howard s",
        "howard-par" => "Howard-par s",
        "howard-gpu" => "GPU Howard s",
        "yto" => "YTO s",
        _ => "Karp s",
    }
}

/// Arguments of `cycle-mean`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Weighted graphs (`.d`), each solved as minimum and maximum ratio and minimum mean.
    pub graphs: Vec<PathBuf>,
    /// The folder of Dasdan's graphs.
    #[arg(long, value_name = "DIR", default_value = "../shared/cycle-mean")]
    pub cycle_mean: PathBuf,
    /// Dasdan's graphs (under --cycle-mean), comma-separated [default without GRAPHS:
    /// the five largest; '' for none].
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub dasdan: Option<Vec<String>>,
    /// Weighted BEEM instances, comma-separated [default without GRAPHS: mcs.3,
    /// fischer.4, lamport.5, exit.5; '' for none].
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub instances: Option<Vec<String>>,
    /// The weight of a model's transitions, MODEL=EXPR (repeatable; replaces the built-in one).
    #[arg(long = "weight", value_name = "MODEL=EXPR")]
    pub weights: Vec<String>,
    /// Vertex counts of the Erdős–Rényi graphs, comma-separated [default without GRAPHS:
    /// 100000,1000000; '' for none].
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub er: Option<Vec<String>>,
    /// Algorithms, comma-separated: howard, howard-par, yto, karp, howard-gpu.
    #[arg(long, value_delimiter = ',', default_value = "howard,howard-par,yto,karp", value_name = "LIST")]
    pub algorithms: Vec<String>,
    /// Also GPU Howard (the same as adding howard-gpu to --algorithms).
    #[arg(long)]
    pub gpu: bool,
    /// Threads of howard-par and of GPU Howard's host side [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Runs of howard-par and howard-gpu (median).
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Runs of the sequential algorithms (median).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub cpu_runs: u32,
    /// Karp (O(nm)) only where vertices x edges is at most this.
    #[arg(long, default_value_t = 2e9)]
    pub karp_nm: f64,
    /// Seed of the random weights of the ER graphs.
    #[arg(long, default_value_t = 12345)]
    pub seed: u64,
    /// Where the ER graphs are written (kept and reused).
    #[arg(long, value_name = "DIR", default_value = "/tmp/warpcheck-bench-cycle")]
    pub work: PathBuf,
}

/// One row: an input and how it is solved.
struct Problem {
    name: String,
    input: String,
    flags: Vec<String>,
    karp: bool,
}

/// SplitMix64: a small seeded generator for the ER weights.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo + 1) as u64;
        lo + (self.next_u64() % span) as i64
    }
}

/// Turns an edge list (`u v` lines, `#` comments, 0-based) into a `.d` graph with
/// weights uniform in [-1000, 1000] and transit time 1.
pub fn edges_to_dimacs(edges: &str, vertices: u64, seed: u64, name: &str) -> Result<String> {
    let mut rng = SplitMix(seed);
    let mut arcs = String::new();
    let mut m = 0u64;
    for (i, line) in edges.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut it = line.split_whitespace().map(str::parse::<u64>);
        let (Some(Ok(u)), Some(Ok(v))) = (it.next(), it.next()) else {
            bail!("edge list line {}: `{line}` is not `u v`", i + 1);
        };
        let _ = writeln!(arcs, "a {} {} {} 1", u + 1, v + 1, rng.range(-1000, 1000));
        m += 1;
    }
    Ok(format!("p {name} {vertices} {m}\n{arcs}"))
}

/// `n` and `m` of a `.d` file's `p name n m` line.
fn dimacs_size(path: &Path) -> Option<(f64, f64)> {
    let f = std::fs::File::open(path).ok()?;
    let line = BufReader::new(f).lines().find_map(|l| l.ok().filter(|l| l.starts_with('p')))?;
    let parts: Vec<&str> = line.split_whitespace().collect();
    Some((parts.get(2)?.parse().ok()?, parts.get(3)?.parse().ok()?))
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<u8> {
    let mut ctx = Context::new(&args.common, "cycle-mean")?;
    let mut chosen: Vec<String> = args.algorithms.clone();
    if args.gpu {
        chosen.push("howard-gpu".into());
    }
    for a in &chosen {
        if !ORDER.contains(&a.as_str()) {
            bail!("--algorithms: `{a}` is none of {}", ORDER.join(", "));
        }
    }
    let algorithms: Vec<&str> = ORDER.iter().copied().filter(|a| chosen.iter().any(|c| c == a)).collect();
    let threads = args.threads.unwrap_or_else(machine::cores).max(1);
    let defaults = args.graphs.is_empty();
    let list = |l: &Option<Vec<String>>, d: &[&str]| -> Vec<String> {
        let d = if defaults { d.iter().map(|s| s.to_string()).collect() } else { Vec::new() };
        l.clone().unwrap_or(d).into_iter().filter(|s| !s.is_empty()).collect()
    };
    let mut weights: BTreeMap<String, String> = WEIGHTS.iter().map(|(m, w)| (m.to_string(), w.to_string())).collect();
    for w in &args.weights {
        let Some((m, e)) = w.split_once('=') else { bail!("--weight `{w}`: expected MODEL=EXPR") };
        weights.insert(m.trim().to_string(), e.trim().to_string());
    }
    let mut problems: Vec<Problem> = Vec::new();
    let variants = [(vec!["--ratio"], "min ratio"), (vec!["--ratio", "--max"], "max ratio"), (vec![], "min mean")];
    let mut graphs: Vec<(String, PathBuf)> = Vec::new();
    for d in list(&args.dasdan, &DASDAN) {
        let p = args.cycle_mean.join(&d);
        if !p.is_file() {
            bail!("no Dasdan graph `{}` (pass --cycle-mean DIR)", p.display());
        }
        graphs.push((d, p));
    }
    for g in &args.graphs {
        if !g.is_file() {
            bail!("no graph file `{}`", g.display());
        }
        graphs.push((g.display().to_string(), g.clone()));
    }
    for (name, path) in &graphs {
        let karp = dimacs_size(path).is_some_and(|(n, m)| n * m <= args.karp_nm);
        for (flags, what) in &variants {
            problems.push(Problem {
                name: format!("{name} ({what})"),
                input: path.display().to_string(),
                flags: flags.iter().map(|s| s.to_string()).collect(),
                karp: karp && flags.is_empty(),
            });
        }
    }
    for inst in list(&args.instances, &INSTANCES) {
        let model = inst.split('.').next().unwrap_or(&inst).to_string();
        let Some(weight) = weights.get(&model) else {
            bail!("--instances: no weight expression for `{model}`; pass --weight {model}=EXPR");
        };
        let path = instance_path(crate::reference::beem_dir(&ctx.beem)?, &inst);
        if !path.is_file() {
            bail!("--instances: no BEEM model `{}`", path.display());
        }
        problems.push(Problem {
            name: format!("{inst} (max mean, weight `{weight}`)"),
            input: path.display().to_string(),
            flags: vec!["--weight".into(), weight.clone(), "--max".into()],
            karp: false,
        });
    }
    let er = list(&args.er, &["100000", "1000000"]);
    if !er.is_empty() {
        std::fs::create_dir_all(&args.work).with_context(|| format!("cannot make --work `{}`", args.work.display()))?;
    }
    for n in er {
        let vertices: u64 = n.parse().with_context(|| format!("--er: `{n}` is not a vertex count"))?;
        let path = args.work.join(format!("er-{vertices}-seed{}.d", args.seed));
        if !path.is_file() {
            let edges = args.work.join(format!("er-{vertices}.edges"));
            let call = ["generate", "er", &edges.display().to_string(), "--vertices", &n, "--degree", "8", "--seed"]
                .map(String::from)
                .into_iter()
                .chain([args.seed.to_string()])
                .collect::<Vec<_>>();
            let r = ctx.run_fresh(0, &call, json!({"graph": format!("er {vertices}"), "build": true}), false)?;
            if !r.ok() {
                bail!("cannot generate the ER graph of {vertices} vertices");
            }
            let text = std::fs::read_to_string(&edges).with_context(|| format!("cannot read `{}`", edges.display()))?;
            let d = edges_to_dimacs(&text, vertices, args.seed, &format!("er{vertices}"))?;
            let mut f = BufWriter::new(
                std::fs::File::create(&path).with_context(|| format!("cannot write `{}`", path.display()))?,
            );
            f.write_all(d.as_bytes())?;
            f.flush()?;
            let _ = std::fs::remove_file(&edges);
        }
        problems.push(Problem {
            name: format!("ER n={} d=8 (min mean)", thousands(vertices)),
            input: path.display().to_string(),
            flags: vec![],
            karp: false,
        });
    }
    if problems.is_empty() {
        bail!("nothing to run: name graphs, --dasdan, --instances or --er");
    }
    let gpu = algorithms.contains(&"howard-gpu");
    let mut table = Table::new().left("graph").left("binary").right("vertices").right("edges").right("cyclic SCCs");
    table = table.right("value").right("decimal");
    let columns: Vec<&str> = COLUMNS.iter().copied().filter(|a| algorithms.contains(a)).collect();
    for a in &columns {
        table = table.right(title(a));
    }
    table = table.right("Howard rounds");
    if gpu {
        table = table.right("GPU kernels s").right("GPU SCC/layout+upload/device/certificate s").right("GPU rounds");
        table = table.right("certificate fallbacks").right("GPU vs Howard");
    }
    let n = ctx.binaries.len();
    for p in &problems {
        let used: Vec<&str> = algorithms.iter().copied().filter(|a| *a != "karp" || p.karp).collect();
        let mut order: Vec<&str> = Vec::new();
        for a in &used {
            let times = if fast(a) { args.runs } else { args.cpu_runs };
            order.extend(std::iter::repeat_n(*a, times as usize));
        }
        let mut call = vec!["cycle-mean".to_string(), p.input.clone()];
        call.extend(p.flags.iter().cloned());
        call.extend([
            "-a".to_string(),
            order.join(","),
            "--threads".to_string(),
            threads.to_string(),
            "--json".to_string(),
        ]);
        let runs: Vec<Run> =
            (0..n).map(|b| ctx.run(b, &call, json!({"graph": p.name}), &[0])).collect::<Result<_>>()?;
        let mut reference: Option<(String, Value)> = None;
        for (b, r) in runs.iter().enumerate() {
            for v in &r.reports {
                let who = format!("{} {}", ctx.binaries[b].label, text(v, "algorithm").unwrap_or("?"));
                let value = v.get("value").cloned().unwrap_or(Value::Null);
                match &reference {
                    None => reference = Some((who, value)),
                    Some((w, x)) if *x != value => {
                        ctx.problem(format!("{}: {who} gives {value}, {w} {x}", p.name));
                    }
                    _ => {}
                }
            }
        }
        for (b, r) in runs.iter().enumerate() {
            table.push(row(p, &columns, &used, r, b, &ctx, gpu));
        }
    }
    let mut doc = ctx.document("Optimal cycle mean and ratio");
    doc.text(format!(
        "One `warpcheck cycle-mean INPUT [--ratio] [--max] [--weight EXPR] -a A,A,B,... --threads {threads} --json` \
         process per input and binary runs every algorithm (howard-par and howard-gpu {} time(s), the sequential \
         ones {} time(s); median). Seconds of the algorithm including its SCC decomposition, input loading and \
         exploration excluded; for the GPU also the layout, upload and exact certificate, not NVRTC and the context. \
         A process stopped by the time limit keeps the algorithms that finished: the interrupted one shows `>T` (the \
         seconds it had), the ones after it `not run`. Karp only for cycle means of .d graphs with vertices x edges \
         <= {:e}. ER weights: SplitMix64 seeded {}.",
        args.runs, args.cpu_runs, args.karp_nm, args.seed
    ));
    doc.table(table);
    ctx.finish(doc)
}

/// The median over the reports of algorithm `a` of `f`.
fn median_by(reports: &[&Value], f: impl Fn(&Value) -> Option<f64>) -> Option<f64> {
    median(&reports.iter().filter_map(|v| f(v)).collect::<Vec<_>>())
}

fn row(p: &Problem, columns: &[&str], used: &[&str], run: &Run, b: usize, ctx: &Context, gpu: bool) -> Vec<String> {
    let by: BTreeMap<&str, Vec<&Value>> =
        used.iter().map(|a| (*a, run.reports.iter().filter(|v| text(v, "algorithm") == Some(a)).collect())).collect();
    let total = |v: &Value| Some(num(v, "seconds")? + num(v, "scc_seconds").unwrap_or(0.0));
    let first = run.reports.first();
    let mut cells = vec![p.name.clone(), ctx.binaries[b].label.clone()];
    match first {
        Some(v) => {
            cells.push(count(v, "vertices").map_or("-".into(), thousands));
            cells.push(count(v, "edges").map_or("-".into(), thousands));
            cells.push(count(v, "cyclic_sccs").map_or("-".into(), thousands));
            cells.push(text(v, "value").unwrap_or("none").to_string());
            cells.push(fixed(num(v, "decimal"), 4));
        }
        None => {
            cells.push(run.failure_cell());
            cells.extend(std::iter::repeat_n("-".to_string(), 4));
        }
    }
    // Time spent before the interruption: loading and the finished runs.
    let spent =
        first.and_then(|v| num(v, "load_seconds")).unwrap_or(0.0) + run.reports.iter().filter_map(total).sum::<f64>();
    // The algorithm a time limit interrupted: the first, in the order they ran, without a report.
    let interrupted = used.iter().copied().find(|a| by[a].is_empty()).filter(|_| run.timed_out);
    let mut totals: BTreeMap<&str, Option<f64>> = BTreeMap::new();
    for a in columns {
        if !used.contains(a) {
            cells.push("-".into()); // Karp, left out for this input
            continue;
        }
        let t = median_by(&by[a], total);
        totals.insert(a, t);
        cells.push(match t {
            Some(t) => format!("{t:.3}"),
            None if interrupted == Some(*a) => format!(">{:.0}", (run.wall - spent).max(0.0)),
            None if run.timed_out => "not run".into(),
            None => run.failure_cell(),
        });
    }
    let rounds = by.get("howard").and_then(|v| v.first()).and_then(|v| count(v, "rounds"));
    cells.push(rounds.map_or("-".into(), |r| r.to_string()));
    if gpu {
        let g = by.get("howard-gpu").filter(|v| !v.is_empty());
        match g {
            Some(reports) => {
                let m = |k: &str| median_by(reports, |v| num(v, k));
                let split = ["scc_seconds", "upload_seconds", "device_seconds", "certify_seconds"]
                    .map(|k| fixed(m(k), 2))
                    .join("/");
                let speedup = totals.get("howard").copied().flatten().zip(totals.get("howard-gpu").copied().flatten());
                cells.extend([
                    fixed(m("kernel_seconds"), 3),
                    split,
                    reports[0].get("device_rounds").map_or("-".into(), |v| v.to_string()),
                    reports[0].get("certificate_fallbacks").map_or("-".into(), |v| v.to_string()),
                    speedup.map_or("-".into(), |(h, g)| format!("{:.1}x", h / g.max(1e-9))),
                ]);
            }
            None => cells.extend(std::iter::repeat_n("-".to_string(), 5)),
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn er_weights_are_seeded_and_in_range() {
        let edges = "# vertices 3\n# edges 3\n0 1\n1 2\n2 0\n";
        let a = edges_to_dimacs(edges, 3, 7, "er3").unwrap();
        assert_eq!(a, edges_to_dimacs(edges, 3, 7, "er3").unwrap());
        assert!(a.starts_with("p er3 3 3\na 1 2 "));
        for line in a.lines().skip(1) {
            let w: i64 = line.split_whitespace().nth(3).unwrap().parse().unwrap();
            assert!((-1000..=1000).contains(&w));
        }
        assert!(edges_to_dimacs("0 x\n", 1, 1, "e").is_err());
    }
}
