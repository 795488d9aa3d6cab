//! `puzzles.cu` compiled as C with gcc and run on the host, for the tests: the device
//! functions (rank, unrank, moves, the level loop's word functions) checked without a
//! GPU. [`Host::compile`] builds the harness once (`host_main.c` appended to the
//! source); [`Host::successors`], [`Host::bfs`] and [`Host::alternation`] ask it.
//!
//! [`Dialect::C`] compiles the source as C99 with gcc, the kernels left out;
//! [`Dialect::CudaStandIn`] compiles it as C++17 with g++ with `__CUDACC__` defined and
//! one-thread stand-ins for the CUDA built-ins ([`CUDA_STAND_IN`]): the `__global__`
//! kernels themselves then run the level loop on a grid of one thread, and the source
//! is held to C++, the language NVRTC compiles.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{Params, SOURCE};

/// The harness that reads queries on standard input (see `host_main.c`).
const MAIN: &str = include_str!("host_main.c");

/// CUDA's built-ins for a grid of one block of one thread: `__shfl_down_sync` returns 0
/// (the lanes beyond the block hold nothing), the atomics are plain updates.
pub const CUDA_STAND_IN: &str = r#"
#define __CUDACC__ 1
#define __device__
#define __global__
#define __forceinline__ inline
#define __shared__
static void __syncwarp() {}
struct PzDim3 { unsigned x, y, z; };
static const PzDim3 threadIdx = {0, 0, 0}, blockIdx = {0, 0, 0}, blockDim = {1, 1, 1}, gridDim = {1, 1, 1};
static unsigned long long atomicOr(unsigned long long *a, unsigned long long v) { unsigned long long o = *a; *a = o | v; return o; }
static unsigned long long atomicAdd(unsigned long long *a, unsigned long long v) { unsigned long long o = *a; *a = o + v; return o; }
static int __ffsll(long long x) { return __builtin_ffsll(x); }
static int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static int __clzll(long long x) { return __builtin_clzll((unsigned long long)x); }
template <class T> static T __shfl_down_sync(unsigned, T, int) { return T(0); }
"#;

/// How the harness is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// C99 with gcc: the device functions, the level loop by the word functions.
    C,
    /// C++17 with g++ and [`CUDA_STAND_IN`]: the kernels run the level loop.
    CudaStandIn,
}

/// The compiled harness.
pub struct Host {
    exe: PathBuf,
}

/// The fields of `Pz` but its table's address, then the table's length and words.
fn fields(p: &Params) -> String {
    let t = super::table(p);
    let words: Vec<String> = t.iter().map(u64::to_string).collect();
    format!(
        "{} {} {} {} {} {} {} {} {} {} {} {} {}",
        p.size,
        p.bucket,
        p.half,
        p.kind,
        p.m,
        p.rows,
        p.cols,
        p.k,
        p.folded,
        p.cells,
        p.pieces,
        t.len(),
        words.join(" ")
    )
}

impl Host {
    /// Compiles the harness into `dir` in `dialect`, with `-O2 -Wall -Werror`. Errors
    /// say when the compiler is missing or refuses the source.
    pub fn compile(dir: &Path, dialect: Dialect) -> Result<Host, String> {
        let (name, compiler, head, flags) = match dialect {
            Dialect::C => ("puzzles_c", "gcc", "", ["-x", "c", "-std=c99"]),
            Dialect::CudaStandIn => ("puzzles_cuda", "g++", CUDA_STAND_IN, ["-x", "c++", "-std=c++17"]),
        };
        let c = dir.join(format!("{name}.c"));
        let exe = dir.join(name);
        std::fs::write(&c, format!("{head}\n{SOURCE}\n{MAIN}")).map_err(|e| format!("write {}: {e}", c.display()))?;
        let out = Command::new(compiler)
            .args(flags)
            .args(["-O2", "-Wall", "-Werror", "-Wno-unused-function", "-o"])
            .arg(&exe)
            .arg(&c)
            .output()
            .map_err(|e| {
                format!("{compiler} is needed to test the GPU code on the host and could not be run: {e} (install gcc and g++)")
            })?;
        if !out.status.success() {
            return Err(format!("{compiler} failed on {}:\n{}", c.display(), String::from_utf8_lossy(&out.stderr)));
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

impl Host {
    /// The one-bit BFS with move alternation from `start` (sliding tile): the
    /// expansions (re-expansions included), then the layers.
    pub fn alternation(&self, params: &Params, start: u64) -> Result<(u64, Vec<u64>), String> {
        let lines = self.ask(format!("A {} {start}\n", fields(params)))?;
        let v = parse(lines.first().ok_or("no answer")?)?;
        Ok((v[0], v[1..].to_vec()))
    }
}

fn parse(line: &str) -> Result<Vec<u64>, String> {
    line.split_whitespace().map(|x| x.parse().map_err(|_| format!("bad number `{x}`"))).collect()
}
