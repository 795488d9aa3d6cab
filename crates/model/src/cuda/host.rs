//! Runs the generated C on the host: compiles it with the system C++ compiler (`c++`)
//! into a small program that reads states and writes, for each, what the generated
//! functions say about it. The tests hold this output to the CPU successor function
//! state for state, so the code generator is checked without a GPU.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::cuda::CudaSource;

/// What the generated functions say about one state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostResult {
    /// Successor states (sorted).
    pub successors: Vec<Vec<u32>>,
    /// Steps raising an evaluation error.
    pub errors: u32,
    pub deadlock: bool,
    /// `wc_assertion`: the first violated assertion.
    pub assertion: Option<u32>,
    pub accepting: bool,
    /// `wc_invariant(k)` for each invariant.
    pub invariants: Vec<bool>,
}

/// What every host compilation of generated code defines before it (see the module
/// documentation of [`crate::cuda`]): the integer types and the function and table
/// macros, for a C or C++ compiler; the includer adds `WcSink` and the emit functions.
pub const HOST_DEFINES: &str = r#"
typedef unsigned int u32;
typedef unsigned long long u64;
#define WC_FN static inline
#define WC_NOINLINE static
#define WC_TABLE(name)
"#;

/// The source's tables as static arrays (each with a trailing 0, so none is empty), for
/// a host compilation where `WC_TABLE(name)` expands to nothing.
pub fn host_tables(generated: &CudaSource) -> String {
    let mut tables = String::new();
    for t in &generated.tables {
        let data: String = t.data.iter().map(|v| format!("{v}u, ")).collect();
        tables += &format!("static const u32 {}[] = {{ {data}0u }};\n", t.name);
    }
    tables
}

const HEAD: &str = r#"
#include <stdio.h>
#include <stdlib.h>
typedef struct { u32 *buf; u32 n; u32 errors; } WcSink;
static void wc_emit(WcSink *k, const u32 *t);
static void wc_emit_error(WcSink *k) { k->errors++; }
"#;

const MAIN: &str = r#"
static void wc_emit(WcSink *k, const u32 *t) {
  for (int i = 0; i < WC_WORDS; i++) k->buf[k->n * WC_WORDS + i] = t[i];
  k->n++;
}
int main(int argc, char **argv) {
  long max = atol(argv[1]);
  int invariants = WC_INVARIANTS;
  u32 *buf = (u32 *)malloc(sizeof(u32) * WC_WORDS * (max + 1));
  u32 s[WC_WORDS];
  while (fread(s, sizeof(u32), WC_WORDS, stdin) == WC_WORDS) {
    WcSink k = { buf, 0, 0 };
    u32 head[5];
    head[2] = (u32)wc_successors(s, &k);
    head[0] = k.n; head[1] = k.errors;
    head[3] = (u32)wc_assertion(s);
    head[4] = (u32)wc_accepting(s);
    fwrite(head, sizeof(u32), 5, stdout);
    for (int i = 0; i < invariants; i++) { u32 v = (u32)wc_invariant(i, s); fwrite(&v, sizeof(u32), 1, stdout); }
    fwrite(buf, sizeof(u32), (size_t)k.n * WC_WORDS, stdout);
  }
  return 0;
}
"#;

/// Compiles `generated` with `c++` in `dir` and runs it on `states` (each `words`
/// long); `invariants` is the number of invariants compiled in.
pub fn run_on_host(
    generated: &CudaSource,
    words: usize,
    invariants: usize,
    states: &[Vec<u32>],
    dir: &Path,
) -> Result<Vec<HostResult>, String> {
    let c = dir.join("model.cpp");
    let exe = dir.join("model");
    let tables = host_tables(generated);
    std::fs::write(&c, format!("{HOST_DEFINES}{HEAD}{tables}{}{MAIN}", generated.source)).map_err(|e| e.to_string())?;
    // As C++ (what NVRTC compiles), so that C++-only errors show here too.
    let out = Command::new("c++")
        .args(["-x", "c++", "-std=c++17", "-O0", "-w", "-o"])
        .arg(&exe)
        .arg(&c)
        .output()
        .map_err(|e| format!("cannot run the C++ compiler `c++`: {e}"))?;
    if !out.status.success() {
        return Err(format!("c++ failed on {}:\n{}", c.display(), String::from_utf8_lossy(&out.stderr)));
    }
    let mut child = Command::new(&exe)
        .arg(generated.max_successors.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let input: Vec<u8> = states.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    writer.join().unwrap().map_err(|e| e.to_string())?;
    if !output.status.success() {
        return Err(format!("the generated program failed: {}", output.status));
    }
    let words_out: Vec<u32> =
        output.stdout.chunks_exact(4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
    let mut results = Vec::new();
    let mut at = 0;
    for _ in states {
        let head = &words_out[at..at + 5];
        at += 5;
        let invs = words_out[at..at + invariants].iter().map(|&v| v != 0).collect();
        at += invariants;
        let n = head[0] as usize;
        let mut successors: Vec<Vec<u32>> = words_out[at..at + n * words].chunks(words).map(|c| c.to_vec()).collect();
        at += n * words;
        successors.sort();
        results.push(HostResult {
            successors,
            errors: head[1],
            deadlock: head[2] != 0,
            assertion: (head[3] != u32::MAX).then_some(head[3]),
            accepting: head[4] != 0,
            invariants: invs,
        });
    }
    Ok(results)
}
