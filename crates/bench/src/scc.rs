//! `warpcheck-bench scc`: `warpcheck scc` with every SCC algorithm (Tarjan, FB with
//! trimming, Coloring, OBF on the CPU; FB, OBF, Coloring, FB-Coloring on the GPU with
//! `gpu:` names) on the state graphs of BEEM instances (written once with `warpcheck
//! explore --graph-out`), on the synthetic families of the SCC papers (`warpcheck
//! generate`: Erdős–Rényi, R-MAT, SSCA#2, average degree 12, seed 1) and on any graph
//! files. Times are the decomposition alone (graph loading excluded; building the
//! backward edges, which all but Tarjan need, reported apart); the algorithms and the
//! binaries must agree on the SCC counts and size histogram (and, with
//! `--partitions`, on the partition itself).

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context as _, Result};
use serde_json::{json, Value};

use crate::common::{count, median_seconds, num, Common, Context, Run};
use crate::cpu_set;
use crate::machine;
use crate::reference::{self, instance_path};
use crate::stats::median;
use crate::table::{fixed, thousands, Table};

/// One algorithm: where it runs and its `--algorithm` name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Algorithm {
    pub gpu: bool,
    pub name: String,
}

impl Algorithm {
    /// Parses `tarjan`, `fb`, `gpu:fb`, ... (`cpu:` is allowed and means the default).
    pub fn parse(spec: &str) -> Result<Algorithm> {
        let gpu = ["fb", "obf", "coloring", "fb-coloring"];
        let (gpu, name) = crate::common::parse_algorithm(spec, &["tarjan", "fb", "coloring", "obf"], &gpu)?;
        Ok(Algorithm { gpu, name })
    }

    /// The column title.
    pub fn title(&self) -> String {
        let name = match self.name.as_str() {
            "tarjan" => "Tarjan",
            "fb" => "FB+trim",
            "coloring" => "Coloring",
            "obf" => "OBF",
            "fb-coloring" => "FB-Coloring",
            other => other,
        };
        if self.gpu {
            format!("GPU {name} s")
        } else {
            format!("{name} s")
        }
    }
}

/// Arguments of `scc`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub common: Common,
    /// Graph files (`.wcg`, `.aut`, `.edges`) or models (`.dve`, explored by each run).
    pub graphs: Vec<PathBuf>,
    /// BEEM instances whose state graphs to decompose, comma-separated [default without
    /// GRAPHS: the CPU set; `--instances ''` for none].
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub instances: Option<Vec<String>>,
    /// Synthetic families, comma-separated: er, rmat, ssca2 [default without GRAPHS: all three].
    #[arg(long, value_delimiter = ',', value_name = "LIST")]
    pub families: Option<Vec<String>>,
    /// Sizes of the synthetic graphs in Mi vertices (1 Mi = 1,048,576).
    #[arg(long, value_delimiter = ',', default_value = "1,2,4,8", value_name = "LIST")]
    pub sizes: Vec<u32>,
    /// Algorithms, comma-separated: tarjan, fb, coloring, obf; gpu:fb, gpu:obf,
    /// gpu:coloring, gpu:fb-coloring on the GPU.
    #[arg(long, value_delimiter = ',', default_value = "tarjan,fb,coloring,obf", value_name = "LIST")]
    pub algorithms: Vec<String>,
    /// Threads of the parallel algorithms [default: all cores].
    #[arg(long)]
    pub threads: Option<usize>,
    /// Runs of each GPU algorithm (median), after an uncounted warm-up run.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Runs of each CPU algorithm (median) [default: --runs].
    #[arg(long)]
    pub cpu_runs: Option<u32>,
    /// Also compare each algorithm's partition with the first algorithm's (vertex by
    /// vertex, through `--components` files in --work).
    #[arg(long)]
    pub partitions: bool,
    /// Where the state graphs and synthetic graphs are written (several GB).
    #[arg(long, value_name = "DIR", default_value = "/tmp/warpcheck-bench-scc")]
    pub work: PathBuf,
    /// Keep the graphs in --work (by default each is removed after its row).
    #[arg(long)]
    pub keep: bool,
}

/// One input graph.
struct Input {
    name: String,
    path: PathBuf,
    /// Whether it was written here (and is removed after its row).
    made: bool,
    build_seconds: Option<f64>,
    group: usize,
}

const GROUPS: [&str; 3] = [
    "BEEM state graphs (written by `warpcheck explore MODEL --graph-out FILE.wcg`, checked against reference.csv)",
    "Synthetic graphs (`warpcheck generate FAMILY FILE.wcg --vertices N --seed 1`, average degree 12)",
    "Graphs and models given on the command line",
];

/// One planned decomposition: algorithm, run (none for a warm-up), binary, arguments, key.
type Planned = (usize, Option<u32>, usize, Vec<String>, Value);

/// The summary the algorithms must agree on.
fn summary(v: &Value) -> Value {
    json!([v.get("sccs"), v.get("trivial"), v.get("nontrivial"), v.get("largest"), v.get("histogram")])
}

/// Whether two files have the same bytes.
fn same_file(a: &Path, b: &Path) -> Result<bool> {
    let open = |p: &Path| File::open(p).with_context(|| format!("cannot read `{}`", p.display()));
    let (fa, fb) = (open(a)?, open(b)?);
    if fa.metadata()?.len() != fb.metadata()?.len() {
        return Ok(false);
    }
    let (mut ra, mut rb) = (BufReader::with_capacity(1 << 20, fa), BufReader::with_capacity(1 << 20, fb));
    let (mut ba, mut bb) = (vec![0u8; 1 << 16], vec![0u8; 1 << 16]);
    loop {
        let n = ra.read(&mut ba)?;
        if n == 0 {
            return Ok(true);
        }
        rb.read_exact(&mut bb[..n])?;
        if ba[..n] != bb[..n] {
            return Ok(false);
        }
    }
}

/// Runs the subcommand.
pub fn run(args: Args) -> Result<u8> {
    let mut ctx = Context::new(&args.common, "scc")?;
    let algorithms: Vec<Algorithm> = args.algorithms.iter().map(|a| Algorithm::parse(a)).collect::<Result<_>>()?;
    if algorithms.is_empty() {
        bail!("--algorithms: name at least one");
    }
    let threads = args.threads.unwrap_or_else(machine::cores).max(1);
    let cpu_runs = args.cpu_runs.unwrap_or(args.runs).max(1);
    let defaults = args.graphs.is_empty();
    let clean = |l: &Option<Vec<String>>, d: Vec<String>| -> Vec<String> {
        l.clone().unwrap_or(if defaults { d } else { Vec::new() }).into_iter().filter(|s| !s.is_empty()).collect()
    };
    let instances = clean(&args.instances, cpu_set::instances().into_iter().map(String::from).collect());
    let families = clean(&args.families, vec!["er".into(), "rmat".into(), "ssca2".into()]);
    for f in &families {
        if !["er", "rmat", "ssca2"].contains(&f.as_str()) {
            bail!("--families: `{f}` is none of er, rmat, ssca2");
        }
    }
    let references = if instances.is_empty() { Default::default() } else { reference::load_reference(&ctx.beem)? };
    for i in &instances {
        if !instance_path(&ctx.beem, i).is_file() {
            bail!("--instances: no BEEM model `{i}`");
        }
    }
    for g in &args.graphs {
        if !g.is_file() {
            bail!("no graph file `{}`", g.display());
        }
    }
    std::fs::create_dir_all(&args.work).with_context(|| format!("cannot make --work `{}`", args.work.display()))?;
    let mut inputs: Vec<Input> = Vec::new();
    for i in &instances {
        inputs.push(Input {
            name: i.clone(),
            path: args.work.join(format!("{i}.wcg")),
            made: true,
            build_seconds: None,
            group: 0,
        });
    }
    for f in &families {
        for &s in &args.sizes {
            let path = args.work.join(format!("{f}-{s}Mi.wcg"));
            inputs.push(Input { name: format!("{f} {s}Mi"), path, made: true, build_seconds: None, group: 1 });
        }
    }
    for g in &args.graphs {
        inputs.push(Input {
            name: g.display().to_string(),
            path: g.clone(),
            made: false,
            build_seconds: None,
            group: 2,
        });
    }
    let n = ctx.binaries.len();
    let mut tables: Vec<Table> = (0..3).map(|_| header(&algorithms)).collect();
    for input in &mut inputs {
        let graph = input.path.display().to_string();
        // The decompositions to run: (algorithm, run, binary, arguments, key); warm-ups have no run.
        let mut plan: Vec<Planned> = Vec::new();
        for (a, alg) in algorithms.iter().enumerate() {
            let mut call = vec!["scc".to_string(), graph.clone(), "--algorithm".to_string(), alg.name.clone()];
            call.extend(["--threads".to_string(), threads.to_string(), "--json".to_string()]);
            if alg.gpu {
                call.extend(["--backend".to_string(), "gpu".to_string()]);
                for b in 0..n {
                    let key = json!({"graph": input.name, "algorithm": alg.title(), "warmup": true});
                    plan.push((a, None, b, call.clone(), key));
                }
            }
            for r in 0..(if alg.gpu { args.runs } else { cpu_runs }) {
                for b in 0..n {
                    let mut this = call.clone();
                    if args.partitions && r == 0 {
                        let file = args.work.join(format!("components-{a}-{b}.txt"));
                        this.extend(["--components".to_string(), file.display().to_string()]);
                    }
                    let key = json!({"graph": input.name, "algorithm": alg.title(), "threads": threads, "run": r});
                    plan.push((a, Some(r), b, this, key));
                }
            }
        }
        // Build the graph once, with the first binary; not at all when every
        // decomposition is reused from --resume.
        let needed = ctx.budget_left() && plan.iter().any(|(_, _, b, call, key)| !ctx.reusable(*b, call, key));
        let mut dims: Option<(u64, u64)> = None;
        if input.made {
            let (call, json) = if input.group == 0 {
                let mut call = vec!["explore".to_string(), instance_path(&ctx.beem, &input.name).display().to_string()];
                call.extend(["--graph-out".to_string(), graph.clone(), "--json".to_string()]);
                if references.get(&input.name).is_some_and(|r| r.wraps()) {
                    call.extend(["--overflow".to_string(), "wrap".to_string()]);
                }
                (call, true)
            } else {
                let (family, size) = input.name.split_once(' ').unwrap_or((&input.name, "1Mi"));
                let mi: u64 = size.trim_end_matches("Mi").parse().unwrap_or(1);
                let call = ["generate", family, &graph, "--vertices", &(mi << 20).to_string(), "--seed", "1"];
                (call.map(String::from).to_vec(), false)
            };
            let key = json!({"graph": input.name, "build": true});
            let r = if needed { ctx.run_fresh(0, &call, key, json)? } else { ctx.run(0, &call, key, &[0])? };
            if !r.ok() {
                let group = input.group;
                tables[group].push(vec![
                    input.name.clone(),
                    "-".into(),
                    format!("graph not built: {}", r.failure_cell()),
                ]);
                continue;
            }
            input.build_seconds = if json { r.report().and_then(|v| num(v, "seconds")) } else { Some(r.wall) };
            if let Some(v) = r.report().filter(|_| json) {
                let (st, tr) = (count(v, "states").unwrap_or(0), count(v, "transitions").unwrap_or(0));
                dims = Some((st, tr));
                if let Some(rf) = references.get(&input.name) {
                    if (st, tr) != (rf.states, rf.transitions) {
                        ctx.problem(format!(
                            "{}: the state graph has {st} vertices and {tr} edges, reference.csv {} states and {} transitions",
                            input.name, rf.states, rf.transitions
                        ));
                    }
                }
            }
        }
        // results[alg][binary]: the counted runs (and a failed warm-up).
        let mut results: Vec<Vec<Vec<Run>>> = vec![vec![Vec::new(); n]; algorithms.len()];
        let mut partition_files: Vec<(String, PathBuf)> = Vec::new();
        for (a, r, b, call, key) in plan {
            if results[a][b].iter().any(|x| !x.ok()) {
                continue; // a timeout or a failure is not repeated
            }
            let run = ctx.run(b, &call, key, &[0])?;
            if r.is_none() && run.ok() {
                continue; // a warm-up
            }
            if let Some(i) = call.iter().position(|x| x == "--components") {
                partition_files.push((
                    format!("{} {}", ctx.binaries[b].label, algorithms[a].title()),
                    PathBuf::from(&call[i + 1]),
                ));
            }
            results[a][b].push(run);
        }
        // Agreement: every algorithm and binary gives the first one's summary.
        let mut first: Option<(String, Value)> = None;
        for (a, alg) in algorithms.iter().enumerate() {
            for b in 0..n {
                if let Some(v) = results[a][b].iter().find_map(Run::report) {
                    let who = format!("{} {}", ctx.binaries[b].label, alg.title());
                    if dims.is_some_and(|d| (count(v, "vertices"), count(v, "edges")) != (Some(d.0), Some(d.1))) {
                        ctx.problem(format!("{}: {who} reads a graph of another size than was written", input.name));
                    }
                    match &first {
                        None => first = Some((who, summary(v))),
                        Some((w, s)) if *s != summary(v) => {
                            ctx.problem(format!("{}: {who} finds SCCs {}, {w} {}", input.name, summary(v), s))
                        }
                        _ => {}
                    }
                }
            }
        }
        if let Some(((first_who, first_file), rest)) = partition_files.split_first().filter(|_| args.partitions) {
            for (who, file) in rest {
                if first_file.is_file() && file.is_file() && !same_file(first_file, file)? {
                    ctx.problem(format!("{}: {who} gives another partition than {first_who}", input.name));
                }
            }
        }
        for (_, f) in &partition_files {
            let _ = std::fs::remove_file(f);
        }
        for b in 0..n {
            tables[input.group].push(row(input, &algorithms, &results, b, &ctx));
        }
        if input.made && !args.keep {
            let _ = std::fs::remove_file(&input.path);
        }
    }
    let mut doc = ctx.document("SCC decomposition");
    doc.text(format!(
        "`warpcheck scc GRAPH --algorithm A --threads {threads} --json` (`--backend gpu` for the gpu: ones), one \
         process per run; median of {cpu_runs} run(s) of each CPU algorithm and of {} run(s) of each GPU algorithm \
         after an uncounted warm-up; the binaries interleaved. Seconds of the decomposition alone (graph loading \
         excluded; \"backward s\": building the backward edges, needed by all but Tarjan, median over the CPU \
         algorithms); GPU cells: the decomposition including upload and download, in brackets the kernels. \
         \"build s\": writing the graph (exploration or generation). Tarjan is sequential. {}",
        args.runs,
        if args.partitions {
            "Partitions compared vertex by vertex (`--components`)."
        } else {
            "The algorithms' SCC counts and size histograms compared."
        }
    ));
    for (g, t) in tables.into_iter().enumerate() {
        if !t.is_empty() {
            doc.text(format!("{}:", GROUPS[g]));
            doc.table(t);
        }
    }
    ctx.finish(doc)
}

fn header(algorithms: &[Algorithm]) -> Table {
    let mut t = Table::new().left("graph").left("binary").right("vertices").right("edges").right("SCCs");
    t = t.right("non-trivial").right("largest").right("build s");
    for a in algorithms {
        t = t.right(a.title());
    }
    t.right("backward s").right("best vs Tarjan")
}

fn row(input: &Input, algorithms: &[Algorithm], results: &[Vec<Vec<Run>>], b: usize, ctx: &Context) -> Vec<String> {
    let first = algorithms.iter().enumerate().find_map(|(a, _)| results[a][b].iter().find_map(Run::report));
    let cnt = |k: &str| first.and_then(|v| count(v, k)).map_or("-".to_string(), thousands);
    let mut cells = vec![
        input.name.clone(),
        ctx.binaries[b].label.clone(),
        cnt("vertices"),
        cnt("edges"),
        cnt("sccs"),
        cnt("nontrivial"),
        cnt("largest"),
        if b == 0 { fixed(input.build_seconds, 2) } else { "-".into() },
    ];
    let mut seconds: Vec<Option<f64>> = Vec::new();
    for (a, alg) in algorithms.iter().enumerate() {
        let runs = &results[a][b];
        let s = median_seconds(runs);
        seconds.push(s);
        cells.push(match (s, runs.iter().find(|r| !r.ok())) {
            (_, Some(bad)) => bad.failure_cell(),
            (Some(s), None) if alg.gpu => {
                let k = median(
                    &runs.iter().filter_map(|r| r.report().and_then(|v| num(v, "kernel_seconds"))).collect::<Vec<_>>(),
                );
                format!("{s:.3} ({})", fixed(k, 3))
            }
            (Some(s), None) => format!("{s:.2}"),
            (None, None) => "-".into(),
        });
    }
    let backward: Vec<f64> = algorithms
        .iter()
        .enumerate()
        .filter(|(_, a)| !a.gpu && a.name != "tarjan")
        .flat_map(|(a, _)| results[a][b].iter().filter_map(|r| r.report().and_then(|v| num(v, "backward_seconds"))))
        .collect();
    cells.push(fixed(median(&backward), 2));
    let tarjan = algorithms.iter().position(|a| !a.gpu && a.name == "tarjan").and_then(|a| seconds[a]);
    let best = algorithms
        .iter()
        .enumerate()
        .filter(|(_, a)| a.gpu || a.name != "tarjan")
        .filter_map(|(a, alg)| seconds[a].map(|s| (s, alg.title())))
        .min_by(|x, y| x.0.total_cmp(&y.0));
    cells.push(match (tarjan, best) {
        (Some(t), Some((s, who))) => format!("{:.2}x ({})", t / s.max(1e-9), who.trim_end_matches(" s")),
        _ => "-".into(),
    });
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_names() {
        assert_eq!(Algorithm::parse("tarjan").unwrap(), Algorithm { gpu: false, name: "tarjan".into() });
        assert_eq!(Algorithm::parse("gpu:fb-coloring").unwrap().title(), "GPU FB-Coloring s");
        assert_eq!(Algorithm::parse("cpu:fb").unwrap().title(), "FB+trim s");
        assert!(Algorithm::parse("gpu:tarjan").is_err());
        assert!(Algorithm::parse("fb-coloring").is_err());
        assert!(Algorithm::parse("tpu:fb").is_err());
    }
}
