//! `explore --disk DIR`: the breadth-first search with its states on disk
//! (`warpcheck_explore::disk`), on the CPU, and its report.

use std::path::Path;

use warpcheck_explore::disk::{buffer_for, explore_on_disk, DiskExploration, DiskOptions};
use warpcheck_explore::{ProgressHook, Report};
use warpcheck_model::CudaModel;

use crate::backend::Backend;
use crate::error::CliError;
use crate::explore::{native_code, OrderArg, RunArgs};
use crate::{memory, progress, report};

/// `--disk DIR` must name a directory.
pub fn check_dir(dir: &Path) -> Result<(), CliError> {
    if dir.is_dir() {
        Ok(())
    } else {
        Err(CliError::input(format!("--disk {}: no such directory", dir.display())))
    }
}

/// Explores `model` with its states in `dir` and prints the report.
pub fn explore<M: CudaModel>(args: &RunArgs, model: &M, dir: &Path) -> Result<(), CliError> {
    check_dir(dir)?;
    if args.backend == Backend::Gpu || args.order == OrderArg::Dfs {
        return Err(CliError::input(
            "--disk explores breadth first on the CPU: leave out --backend gpu and --order dfs",
        ));
    }
    let line = std::sync::Arc::new(progress::ProgressLine::new(args.quiet || args.json, args.progress_every));
    let shown = line.clone();
    let options = DiskOptions {
        dir: dir.to_owned(),
        buffer: buffer_for(args.memory),
        max_states: None,
        progress: Some(ProgressHook(std::sync::Arc::new(move |p: &warpcheck_explore::Progress| shown.update(p)))),
    };
    let pool = crate::thread_pool(args.threads())?;
    let native = native_code(args.successors, model)?;
    let result = pool.install(|| match &native {
        Some(native) => explore_on_disk(native, &options),
        None => explore_on_disk(model, &options),
    });
    line.finish();
    // No state limit is set: the errors are the files'.
    let found = result.map_err(|e| match e {
        e if e.disk_full() => CliError::Resource(format!("the disk is full: {e}")),
        e => CliError::Resource(format!("the state files: {e}")),
    })?;
    let r = as_report(&found);
    let engine = report::Engine { threads: args.threads(), gpu: None, native: native.is_some() };
    if args.json {
        report::print_stats_json(args.path(), model, &r, &engine);
    } else {
        report::print_counts(model, &r);
        let rate = r.states as f64 / r.seconds.max(1e-9);
        let code = if native.is_some() { "native" } else { "built-in" };
        println!(
            "time:         {:.3} s, {rate:.0} states/s on {} thread(s), {code} successor code",
            r.seconds, engine.threads
        );
        let peak =
            memory::peak_resident().map_or(String::new(), |b| format!("; peak memory {}", memory::format_bytes(b)));
        println!(
            "disk:         {} of state files at most ({:.1} bytes/state){peak}",
            memory::format_bytes(found.disk_bytes),
            found.disk_bytes as f64 / r.states.max(1) as f64
        );
    }
    Ok(())
}

/// The counts as the in-memory engines report them.
fn as_report(d: &DiskExploration) -> Report {
    Report {
        states: d.states,
        transitions: d.transitions,
        deadlocks: d.deadlocks,
        levels: d.levels,
        accepting: d.accepting,
        error_transitions: d.error_transitions,
        complete: true,
        seconds: d.seconds,
        ..Report::default()
    }
}
