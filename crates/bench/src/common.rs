//! What every subcommand shares: the options naming the binaries and the outputs, the
//! run context (date, machine, commit, command line), running one measurement and
//! recording it, the checks that binaries agree, and the exit status.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _, Result};
use serde_json::{json, Value};

use crate::machine;
use crate::reference::Reference;
use crate::runner::{self, shell_line};
use crate::table::{thousands, Document};

/// The default binary, relative to the repository root.
pub const DEFAULT_BINARY: &str = "target/release/warpcheck";

/// Options of every subcommand.
#[derive(clap::Args, Debug, Clone)]
pub struct Common {
    /// A warpcheck binary to measure, as LABEL=PATH (or PATH); repeatable, measured side
    /// by side in this order [default: warpcheck=target/release/warpcheck].
    #[arg(long = "binary", value_name = "LABEL=PATH")]
    pub binaries: Vec<String>,
    /// An environment variable for the runs of one binary, LABEL:VAR=VALUE (repeatable;
    /// the same PATH under two labels with different variables compares settings).
    #[arg(long = "env", value_name = "LABEL:VAR=VALUE")]
    pub env: Vec<String>,
    /// The label the other binaries are compared with [default: the last --binary].
    #[arg(long, value_name = "LABEL")]
    pub baseline: Option<String>,
    /// The BEEM models and their reference.csv.
    #[arg(long, value_name = "DIR", default_value = "../shared/beem")]
    pub beem: PathBuf,
    /// Seconds a single warpcheck process may run before it is killed and recorded as a timeout.
    #[arg(long, value_name = "SECS")]
    pub timeout: Option<f64>,
    /// Also append the table, with its header lines, to FILE.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Append one JSON record per measurement (one warpcheck process) to FILE.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Reuse the measurements already in the --jsonl file (same subcommand, binary
    /// label, measurement and arguments) instead of running them again: a sweep cut
    /// short by --budget or a time box goes on where it stopped; with nothing left to
    /// run, the table is rebuilt from the file.
    #[arg(long, requires = "jsonl")]
    pub resume: bool,
    /// Start no new warpcheck process after this many seconds; what is left shows as
    /// `not run` and the exit status is 3 (run the same command with --resume again).
    #[arg(long, value_name = "SECS")]
    pub budget: Option<f64>,
    /// The commit to name in the table when `git rev-parse --short HEAD` gives none
    /// (overrides it when given).
    #[arg(long)]
    pub commit: Option<String>,
}

/// A warpcheck binary under a label, with environment variables for its runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binary {
    pub label: String,
    pub path: PathBuf,
    pub env: Vec<(String, String)>,
}

/// Parses `LABEL=PATH` (or a bare `PATH`, labelled by itself).
pub fn parse_binary(spec: &str) -> Result<(String, PathBuf)> {
    let (label, path) = match spec.split_once('=') {
        Some((label, path)) => (label.trim(), path.trim()),
        None => (spec.trim(), spec.trim()),
    };
    if label.is_empty() || path.is_empty() {
        bail!("--binary `{spec}`: expected LABEL=PATH, e.g. new=target/release/warpcheck");
    }
    Ok((label.to_string(), PathBuf::from(path)))
}

/// Parses an `--algorithms` entry, `NAME`, `cpu:NAME` or `gpu:NAME`, against the
/// names known on each side: whether it runs on the GPU, and its name.
pub fn parse_algorithm(spec: &str, cpu: &[&str], gpu: &[&str]) -> Result<(bool, String)> {
    let (on_gpu, name) = match spec.split_once(':') {
        Some(("gpu", n)) => (true, n),
        Some(("cpu", n)) => (false, n),
        Some(_) => bail!("--algorithms: `{spec}`: the prefix is cpu: or gpu:"),
        None => (false, spec),
    };
    let known = if on_gpu { gpu } else { cpu };
    if !known.contains(&name) {
        bail!("--algorithms: `{spec}` is none of {}", known.join(", "));
    }
    Ok((on_gpu, name.to_string()))
}

/// Parses `LABEL:VAR=VALUE`.
pub fn parse_env(spec: &str) -> Result<(String, String, String)> {
    let bad = || anyhow::anyhow!("--env `{spec}`: expected LABEL:VAR=VALUE, e.g. new:WARPCHECK_GPU_BLOCK=128");
    let (label, assignment) = spec.split_once(':').ok_or_else(bad)?;
    let (var, value) = assignment.split_once('=').ok_or_else(bad)?;
    if label.is_empty() || var.is_empty() {
        return Err(bad());
    }
    Ok((label.to_string(), var.to_string(), value.to_string()))
}

/// The binaries of `--binary` and `--env`, and the index of the baseline.
pub fn binaries(common: &Common) -> Result<(Vec<Binary>, usize)> {
    let specs =
        if common.binaries.is_empty() { vec![format!("warpcheck={DEFAULT_BINARY}")] } else { common.binaries.clone() };
    let mut out: Vec<Binary> = Vec::new();
    for spec in &specs {
        let (label, path) = parse_binary(spec)?;
        if out.iter().any(|b| b.label == label) {
            bail!("--binary: the label `{label}` is given twice");
        }
        out.push(Binary { label, path, env: Vec::new() });
    }
    for spec in &common.env {
        let (label, var, value) = parse_env(spec)?;
        let Some(b) = out.iter_mut().find(|b| b.label == label) else {
            bail!("--env `{spec}`: no --binary is labelled `{label}`");
        };
        b.env.push((var, value));
    }
    let baseline = match &common.baseline {
        None => out.len() - 1,
        Some(l) => out.iter().position(|b| &b.label == l).with_context(|| format!("--baseline: no binary `{l}`"))?,
    };
    Ok((out, baseline))
}

/// Checks that a binary exists before hours of benchmarks start.
fn check_binary(b: &Binary) -> Result<()> {
    if !b.path.is_file() {
        let hint = if b.path == Path::new(DEFAULT_BINARY) {
            "build it with `cargo build --release -p warpcheck` (from the repository root) or pass --binary LABEL=PATH"
        } else {
            "pass the path of a built warpcheck binary"
        };
        bail!("--binary {}: `{}` does not exist; {hint}", b.label, b.path.display());
    }
    Ok(())
}

/// One warpcheck process, as measured.
#[derive(Clone, Debug)]
pub struct Run {
    pub wall: f64,
    pub code: Option<i32>,
    pub timed_out: bool,
    /// Not started: the --budget ran out.
    pub not_run: bool,
    /// The JSON objects it printed (one per line), also those printed before a timeout.
    pub reports: Vec<Value>,
    /// Why the run failed (an exit status it should not have, or no JSON report).
    pub error: Option<String>,
}

impl Run {
    /// The first report of a run that finished as it should.
    pub fn report(&self) -> Option<&Value> {
        if self.ok() {
            self.reports.first()
        } else {
            None
        }
    }

    /// Whether it finished with an expected status and a report.
    pub fn ok(&self) -> bool {
        !self.timed_out && !self.not_run && self.error.is_none()
    }

    /// What a table cell says instead of a number.
    pub fn failure_cell(&self) -> String {
        if self.not_run {
            return "not run".to_string();
        }
        match (&self.error, self.timed_out) {
            (_, true) => format!("timeout (>{:.0} s)", self.wall),
            (Some(_), _) => match self.code {
                Some(c) => format!("failed (exit {c})"),
                None => "failed (killed)".to_string(),
            },
            _ => "-".to_string(),
        }
    }
}

/// A number of a JSON report.
pub fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

/// The median of the `seconds` of the runs that reported.
pub fn median_seconds(runs: &[Run]) -> Option<f64> {
    crate::stats::median(&runs.iter().filter_map(|r| r.report().and_then(|v| num(v, "seconds"))).collect::<Vec<_>>())
}

/// A count of a JSON report.
pub fn count(v: &Value, key: &str) -> Option<u64> {
    v.get(key).and_then(Value::as_u64)
}

/// A string of a JSON report.
pub fn text<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// The JSON objects among the lines of `stdout`.
pub fn json_lines(stdout: &str) -> Vec<Value> {
    stdout.lines().filter(|l| l.trim_start().starts_with('{')).filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// The state-space counts of an `explore` report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counts {
    pub states: u64,
    pub transitions: u64,
    pub deadlocks: Option<u64>,
}

impl Counts {
    pub fn of(report: &Value) -> Option<Counts> {
        Some(Counts {
            states: count(report, "states")?,
            transitions: count(report, "transitions")?,
            deadlocks: count(report, "deadlocks"),
        })
    }
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} states, {} transitions", thousands(self.states), thousands(self.transitions))?;
        if let Some(d) = self.deadlocks {
            write!(f, ", {} deadlocks", thousands(d))?;
        }
        Ok(())
    }
}

/// Whether `counts` match the reference row (deadlocks only where it has them).
pub fn matches_reference(counts: &Counts, r: &Reference) -> bool {
    counts.states == r.states
        && counts.transitions == r.transitions
        && (r.deadlocks.is_none() || counts.deadlocks.is_none() || counts.deadlocks == r.deadlocks)
}

/// The disagreements among the counts of several runs of `what` (labelled), and with
/// its reference row: one message each.
pub fn count_problems(what: &str, counts: &[(String, Counts)], reference: Option<&Reference>) -> Vec<String> {
    let mut out = Vec::new();
    if let Some((first_label, first)) = counts.first() {
        for (label, c) in &counts[1..] {
            if (c.states, c.transitions) != (first.states, first.transitions) {
                out.push(format!("{what}: {label} counts {c}, {first_label} {first}"));
            }
        }
    }
    if let Some(r) = reference {
        for (label, c) in counts {
            if !matches_reference(c, r) {
                let deadlocks = r.deadlocks.map_or(String::new(), |d| format!(", {} deadlocks", thousands(d)));
                out.push(format!(
                    "{what}: {label} counts {c}; reference.csv says {} states, {} transitions{deadlocks}",
                    thousands(r.states),
                    thousands(r.transitions)
                ));
            }
        }
    }
    out.dedup();
    out
}

/// The speed of each binary relative to the baseline's: baseline seconds over its
/// seconds (above 1: faster than the baseline).
pub fn speedups(seconds: &[Option<f64>], baseline: usize) -> Vec<Option<f64>> {
    let base = seconds.get(baseline).copied().flatten();
    seconds.iter().map(|s| Some(base? / s.filter(|s| *s > 0.0)?)).collect()
}

/// The state of one `warpcheck-bench` invocation.
pub struct Context {
    pub subcommand: &'static str,
    pub date: String,
    pub machine: String,
    pub commit: String,
    pub command: String,
    pub binaries: Vec<Binary>,
    pub baseline: usize,
    pub timeout: Option<Duration>,
    pub beem: PathBuf,
    out: Option<PathBuf>,
    jsonl: Option<File>,
    jsonl_path: Option<PathBuf>,
    problems: Vec<String>,
    /// Earlier measurements (--resume), by [`resume_key`].
    earlier: HashMap<String, Value>,
    budget: Option<f64>,
    start: Instant,
    reused: usize,
    not_run: usize,
}

/// What identifies a measurement in the --jsonl file.
fn resume_key(subcommand: &str, label: &str, key: &Value, args: &Value) -> String {
    format!("{subcommand}\u{0}{label}\u{0}{key}\u{0}{args}")
}

/// The measurements of `path` that finished well, by [`resume_key`].
fn load_earlier(path: &Path) -> Result<HashMap<String, Value>> {
    let mut out = HashMap::new();
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e).with_context(|| format!("cannot read --jsonl `{}`", path.display())),
    };
    for line in text.lines().filter(|l| l.starts_with('{')) {
        let Ok(v) = serde_json::from_str::<Value>(line) else { continue };
        let finished = v.get("error").is_some_and(Value::is_null) && v.get("timed_out") == Some(&Value::Bool(false));
        let (Some(sub), Some(label), Some(key), Some(args)) = (
            v.get("subcommand").and_then(Value::as_str),
            v.get("binary").and_then(Value::as_str),
            v.get("key"),
            v.get("args"),
        ) else {
            continue;
        };
        if finished {
            out.insert(resume_key(sub, label, key, args), v.clone());
        }
    }
    Ok(out)
}

impl Context {
    /// The context of `subcommand` from its common options; checks the binaries.
    pub fn new(common: &Common, subcommand: &'static str) -> Result<Context> {
        let (binaries, baseline) = binaries(common)?;
        for b in &binaries {
            check_binary(b)?;
        }
        let timeout = match common.timeout {
            None => None,
            Some(t) if t > 0.0 && t.is_finite() => Some(Duration::from_secs_f64(t)),
            Some(t) => bail!("--timeout {t}: expected a positive number of seconds"),
        };
        let earlier = match (&common.jsonl, common.resume) {
            (Some(p), true) => load_earlier(p)?,
            _ => HashMap::new(),
        };
        if common.budget.is_some_and(|b| b.is_nan() || b < 0.0) {
            bail!("--budget: expected a number of seconds");
        }
        let jsonl = match &common.jsonl {
            None => None,
            Some(p) => Some(
                OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(p)
                    .with_context(|| format!("cannot open --jsonl `{}`", p.display()))?,
            ),
        };
        let commit = common
            .commit
            .clone()
            .or_else(machine::git_commit)
            .unwrap_or_else(|| "unknown (no git checkout here; pass --commit)".to_string());
        let args: Vec<String> = std::env::args().collect();
        Ok(Context {
            subcommand,
            date: machine::today(),
            machine: machine::current(),
            commit,
            command: shell_line(&args),
            binaries,
            baseline,
            timeout,
            beem: common.beem.clone(),
            out: common.out.clone(),
            jsonl,
            jsonl_path: common.jsonl.clone(),
            problems: Vec::new(),
            earlier,
            budget: common.budget,
            start: Instant::now(),
            reused: 0,
            not_run: 0,
        })
    }

    /// Whether several binaries are compared.
    pub fn side_by_side(&self) -> bool {
        self.binaries.len() > 1
    }

    /// The baseline's label.
    pub fn baseline_label(&self) -> &str {
        &self.binaries[self.baseline].label
    }

    /// A document with the header lines: date, machine, commit, command, binaries.
    pub fn document(&self, title: impl Into<String>) -> Document {
        let mut d = Document::new(title);
        d.meta.push(format!("Date: {} (UTC)", self.date));
        d.meta.push(format!("Machine: {}", self.machine));
        d.meta.push(format!("Commit: {}", self.commit));
        d.meta.push(format!("Command: `{}`", self.command));
        let list: Vec<String> = self
            .binaries
            .iter()
            .map(|b| {
                let env: Vec<String> = b.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
                let env = if env.is_empty() { String::new() } else { format!(" with {}", env.join(" ")) };
                format!("{} = `{}`{env}", b.label, b.path.display())
            })
            .collect();
        let baseline =
            if self.side_by_side() { format!("; baseline {}", self.baseline_label()) } else { String::new() };
        d.meta.push(format!("Binaries: {}{baseline}", list.join(", ")));
        if let Some(t) = self.timeout {
            d.meta.push(format!("Time limit: {} s per process", t.as_secs_f64()));
        }
        d
    }

    /// Records a problem (a disagreement or a failed run): printed at once, listed
    /// under the table, and the exit status becomes 1.
    pub fn problem(&mut self, message: impl Into<String>) {
        let message = message.into();
        eprintln!("MISMATCH/FAILURE: {message}");
        self.problems.push(message);
    }

    /// Runs binary `binary` with `args`; `ok_codes` are the exit statuses of a normal
    /// end. `key` names the measurement in the JSON record. A failed run is also a
    /// problem; a timeout is not (it is a result).
    pub fn run(&mut self, binary: usize, args: &[String], key: Value, ok_codes: &[i32]) -> Result<Run> {
        self.run_with(binary, args, &[], key, ok_codes)
    }

    /// [`Context::run`] with extra environment variables.
    pub fn run_with(
        &mut self,
        binary: usize,
        args: &[String],
        env: &[(String, String)],
        key: Value,
        ok_codes: &[i32],
    ) -> Result<Run> {
        self.launch(binary, args, env, key, ok_codes, true, true)
    }

    /// [`Context::run`] of a command that writes a file the next runs read (`warpcheck
    /// generate`, `explore --graph-out`): never reused from --resume, never skipped by
    /// --budget. `json`: whether it prints a JSON report.
    pub fn run_fresh(&mut self, binary: usize, args: &[String], key: Value, json: bool) -> Result<Run> {
        self.launch(binary, args, &[], key, &[0], json, false)
    }

    /// Whether the --budget still lets new processes start.
    pub fn budget_left(&self) -> bool {
        !self.budget.is_some_and(|budget| self.start.elapsed().as_secs_f64() > budget)
    }

    /// Whether [`Context::run`] of these would reuse an earlier measurement (--resume).
    pub fn reusable(&self, binary: usize, args: &[String], key: &Value) -> bool {
        self.earlier.contains_key(&resume_key(self.subcommand, &self.binaries[binary].label, key, &json!(args)))
    }

    #[allow(clippy::too_many_arguments)]
    fn launch(
        &mut self,
        binary: usize,
        args: &[String],
        env: &[(String, String)],
        key: Value,
        ok_codes: &[i32],
        want_json: bool,
        may_skip: bool,
    ) -> Result<Run> {
        let b = &self.binaries[binary];
        let resume = resume_key(self.subcommand, &b.label, &key, &json!(args));
        if let Some(v) = self.earlier.get(&resume).filter(|_| may_skip) {
            self.reused += 1;
            let reports = match v.get("reports") {
                Some(Value::Array(r)) => r.clone(),
                _ => Vec::new(),
            };
            let code = v.get("exit").and_then(Value::as_i64).map(|c| c as i32);
            let wall = v.get("wall_seconds").and_then(Value::as_f64).unwrap_or(0.0);
            eprintln!("[{}] warpcheck {}: reused from the --jsonl file", b.label, shell_line(args));
            return Ok(Run { wall, code, timed_out: false, not_run: false, reports, error: None });
        }
        if may_skip && !self.budget_left() {
            self.not_run += 1;
            return Ok(Run {
                wall: 0.0,
                code: None,
                timed_out: false,
                not_run: true,
                reports: Vec::new(),
                error: None,
            });
        }
        let mut all_env = b.env.clone();
        all_env.extend_from_slice(env);
        let o = runner::run(&b.path, args, &all_env, self.timeout)?;
        let reports = json_lines(&o.stdout);
        let error = if o.timed_out {
            None
        } else if !o.code.is_some_and(|c| ok_codes.contains(&c)) {
            let last = o.stderr.trim().lines().last().unwrap_or("no message").to_string();
            Some(match o.code {
                Some(c) => format!("exit {c}: {last}"),
                None => format!("killed by a signal: {last}"),
            })
        } else if want_json && reports.is_empty() {
            Some("no JSON report on stdout".to_string())
        } else {
            None
        };
        let run = Run { wall: o.wall, code: o.code, timed_out: o.timed_out, not_run: false, reports, error };
        let label = b.label.clone();
        let line = shell_line(args);
        let status = match (&run.error, run.timed_out) {
            (_, true) => "TIMEOUT".to_string(),
            (Some(e), _) => format!("FAILED ({e})"),
            _ => "ok".to_string(),
        };
        eprintln!("[{label}] warpcheck {line}: {status}, {:.3} s", run.wall);
        if let Some(e) = &run.error {
            self.problem(format!("[{label}] warpcheck {line}: {e}"));
        }
        self.record(json!({
            "key": key,
            "binary": label,
            "path": self.binaries[binary].path.display().to_string(),
            "env": self.binaries[binary].env.iter().chain(env).map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>(),
            "args": args,
            "wall_seconds": run.wall,
            "exit": run.code,
            "timed_out": run.timed_out,
            "error": run.error,
            "reports": run.reports,
        }))?;
        Ok(run)
    }

    /// Appends a record to `--jsonl`, with the subcommand, date, machine and commit.
    pub fn record(&mut self, mut record: Value) -> Result<()> {
        let Some(file) = &mut self.jsonl else { return Ok(()) };
        if let Value::Object(map) = &mut record {
            map.insert("subcommand".into(), json!(self.subcommand));
            map.insert("date".into(), json!(self.date));
            map.insert("machine".into(), json!(self.machine));
            map.insert("commit".into(), json!(self.commit));
        }
        writeln!(file, "{record}").context("cannot write the --jsonl file")?;
        Ok(())
    }

    /// Prints the document (with the problems listed at its end) and appends it to
    /// `--out`; the exit status: 1 when there were problems, 3 when the --budget left
    /// measurements not run, else 0.
    pub fn finish(self, mut doc: Document) -> Result<u8> {
        if self.reused > 0 || self.not_run > 0 {
            let file = self.jsonl_path.as_ref().map_or(String::new(), |p| format!(" `{}`", p.display()));
            doc.text(format!(
                "{} measurement(s) reused from the --jsonl file{file} (--resume); {} not run (the --budget ran out{}).",
                self.reused,
                self.not_run,
                if self.not_run > 0 { ": run the same command with --resume again" } else { "" }
            ));
        }
        if !self.problems.is_empty() {
            let mut text = format!("**{} problem(s):**\n", self.problems.len());
            for p in &self.problems {
                text.push_str(&format!("- {p}\n"));
            }
            doc.text(text);
        }
        let rendered = doc.render();
        print!("{rendered}");
        if let Some(path) = &self.out {
            let mut f = OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("cannot open --out `{}`", path.display()))?;
            writeln!(f, "{rendered}").with_context(|| format!("cannot write --out `{}`", path.display()))?;
        }
        if !self.problems.is_empty() {
            eprintln!("{} problem(s); see the end of the table", self.problems.len());
        }
        if !self.problems.is_empty() {
            Ok(1)
        } else if self.not_run > 0 {
            eprintln!("{} measurement(s) not run (--budget): run the same command with --resume again", self.not_run);
            Ok(3)
        } else {
            Ok(0)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_specs() {
        assert_eq!(
            parse_binary("new=target/release/warpcheck").unwrap(),
            ("new".into(), "target/release/warpcheck".into())
        );
        assert_eq!(parse_binary("/tmp/wc").unwrap(), ("/tmp/wc".into(), "/tmp/wc".into()));
        assert_eq!(parse_binary("old=/tmp/a=b").unwrap(), ("old".into(), "/tmp/a=b".into()));
        assert!(parse_binary("=x").is_err());
        assert!(parse_binary("x=").is_err());
        assert!(parse_binary("").is_err());
    }

    #[test]
    fn env_specs() {
        assert_eq!(parse_env("a:K=V=W").unwrap(), ("a".into(), "K".into(), "V=W".into()));
        assert_eq!(parse_env("a:K=").unwrap(), ("a".into(), "K".into(), "".into()));
        assert!(parse_env("a=K").is_err());
        assert!(parse_env(":K=V").is_err());
        assert!(parse_env("a:=V").is_err());
    }

    fn common(binaries: &[&str], env: &[&str], baseline: Option<&str>) -> Common {
        Common {
            binaries: binaries.iter().map(|s| s.to_string()).collect(),
            env: env.iter().map(|s| s.to_string()).collect(),
            baseline: baseline.map(String::from),
            beem: PathBuf::from("../shared/beem"),
            timeout: None,
            out: None,
            jsonl: None,
            resume: false,
            budget: None,
            commit: None,
        }
    }

    #[test]
    fn binary_list_and_baseline() {
        let (b, base) = binaries(&common(&[], &[], None)).unwrap();
        assert_eq!(
            (b.len(), b[0].label.as_str(), b[0].path.as_path(), base),
            (1, "warpcheck", Path::new(DEFAULT_BINARY), 0)
        );
        let (b, base) = binaries(&common(&["new=a", "old=b"], &["old:X=1"], None)).unwrap();
        assert_eq!(base, 1);
        assert_eq!(b[1].env, vec![("X".to_string(), "1".to_string())]);
        let (_, base) = binaries(&common(&["new=a", "old=b"], &[], Some("new"))).unwrap();
        assert_eq!(base, 0);
        assert!(binaries(&common(&["a=x", "a=y"], &[], None)).is_err());
        assert!(binaries(&common(&["a=x"], &["b:X=1"], None)).is_err());
        assert!(binaries(&common(&["a=x"], &[], Some("c"))).is_err());
    }

    #[test]
    fn count_checks() {
        let c = |s, t| Counts { states: s, transitions: t, deadlocks: Some(0) };
        assert!(count_problems("m", &[("a".into(), c(70, 118)), ("b".into(), c(70, 118))], None).is_empty());
        let p = count_problems("m", &[("a".into(), c(70, 118)), ("b".into(), c(71, 118))], None);
        assert_eq!(p.len(), 1);
        assert!(p[0].contains("b counts 71 states"), "{p:?}");
        let r = Reference {
            instance: "m".into(),
            states: 70,
            transitions: 118,
            deadlocks: None,
            accepting: None,
            source: "ltsmin-3.1".into(),
        };
        assert!(count_problems("m", &[("a".into(), c(70, 118))], Some(&r)).is_empty());
        assert_eq!(count_problems("m", &[("a".into(), c(70, 117))], Some(&r)).len(), 1);
    }

    #[test]
    fn speedup_ratios() {
        let s = speedups(&[Some(1.0), Some(2.0), None], 1);
        assert_eq!(s, vec![Some(2.0), Some(1.0), None]);
        assert_eq!(speedups(&[Some(1.0), None], 1), vec![None, None]);
    }

    #[test]
    fn json_output_lines() {
        let v = json_lines("progress\n{\"states\": 70, \"transitions\": 118}\n{bad\n{\"x\": 1.5}\n");
        assert_eq!(v.len(), 2);
        assert_eq!(Counts::of(&v[0]), Some(Counts { states: 70, transitions: 118, deadlocks: None }));
        assert_eq!(num(&v[1], "x"), Some(1.5));
    }

    #[test]
    fn failure_cells() {
        let run = Run { wall: 30.2, code: None, timed_out: true, not_run: false, reports: vec![], error: None };
        assert_eq!(run.failure_cell(), "timeout (>30 s)");
        assert!(run.report().is_none());
        let run = Run {
            wall: 1.0,
            code: Some(3),
            timed_out: false,
            not_run: false,
            reports: vec![],
            error: Some("x".into()),
        };
        assert_eq!(run.failure_cell(), "failed (exit 3)");
    }
}
