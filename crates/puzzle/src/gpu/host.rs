//! `puzzles.cu` compiled as C with gcc and run on the host, for the tests: the device
//! functions (rank, unrank, moves, the level loop's word functions) checked without a
//! GPU. [`Host::compile`] builds the harness once (`host_main.c` appended to the
//! source); [`Host::successors`] and [`Host::bfs`] ask it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{Params, SOURCE};

/// The harness that reads queries on standard input (see `host_main.c`).
const MAIN: &str = include_str!("host_main.c");

/// The compiled harness.
pub struct Host {
    exe: PathBuf,
}

fn fields(p: &Params) -> String {
    format!("{} {} {} {} {} {} {} {} {}", p.size, p.bucket, p.half, p.kind, p.m, p.rows, p.cols, p.k, p.folded)
}

impl Host {
    /// Compiles the harness into `dir` with `gcc -O2` (as C: the macros of
    /// `puzzles.cu` turn the device code into plain functions). Errors say when gcc is
    /// missing or refuses the source.
    pub fn compile(dir: &Path) -> Result<Host, String> {
        let c = dir.join("puzzles_host.c");
        let exe = dir.join("puzzles_host");
        std::fs::write(&c, format!("{SOURCE}\n{MAIN}")).map_err(|e| format!("write {}: {e}", c.display()))?;
        let out = Command::new("gcc")
            .args(["-x", "c", "-std=c99", "-O2", "-Wall", "-Werror", "-Wno-unused-function", "-o"])
            .arg(&exe)
            .arg(&c)
            .output()
            .map_err(|e| {
                format!("gcc is needed to test the GPU code on the host and could not be run: {e} (install gcc)")
            })?;
        if !out.status.success() {
            return Err(format!("gcc failed on {}:\n{}", c.display(), String::from_utf8_lossy(&out.stderr)));
        }
        Ok(Host { exe })
    }

    /// Runs the harness on `input`; its output lines.
    fn ask(&self, input: String) -> Result<Vec<String>, String> {
        let mut child = Command::new(&self.exe)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("run {}: {e}", self.exe.display()))?;
        let mut stdin = child.stdin.take().ok_or("no stdin")?;
        let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
        let out = child.wait_with_output().map_err(|e| e.to_string())?;
        writer.join().map_err(|_| "writer panicked")?.map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(format!("the harness failed: {}", out.status));
        }
        Ok(String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect())
    }

    /// The successors of each index, in the order the C emits them.
    pub fn successors(&self, params: &Params, indices: &[u64]) -> Result<Vec<Vec<u64>>, String> {
        let list: Vec<String> = indices.iter().map(u64::to_string).collect();
        let lines = self.ask(format!("S {} {} {}\n", fields(params), indices.len(), list.join(" ")))?;
        if lines.len() != indices.len() {
            return Err(format!("{} answers for {} indices", lines.len(), indices.len()));
        }
        lines.iter().map(|l| parse(l).map(|v| v[1..].to_vec())).collect()
    }

    /// The layers of the BFS from `start`, by the kernels' word functions run
    /// sequentially (the level loop of `mod.rs` with the atomics as plain ors).
    pub fn bfs(&self, params: &Params, start: u64) -> Result<Vec<u64>, String> {
        let lines = self.ask(format!("B {} {start}\n", fields(params)))?;
        parse(lines.first().ok_or("no answer")?)
    }
}

fn parse(line: &str) -> Result<Vec<u64>, String> {
    line.split_whitespace().map(|x| x.parse().map_err(|_| format!("bad number `{x}`"))).collect()
}
