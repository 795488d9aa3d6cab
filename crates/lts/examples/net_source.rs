//! Writes a network's generated C (`warpcheck_lts::codegen`) with a host harness, to
//! measure what the GPU compiler is given: the source's size, a host compiler's time
//! on it, and its speed on the first states of a breadth-first search.
//!
//! `cargo run --release -p warpcheck-lts --example net_source -- NET.exp DIR [STATES] [REPEAT]`
//!
//! Writes `DIR/source.c` (the generated source alone), `DIR/model.cpp` (the source in a
//! harness that reads its tables from `DIR/tables.bin` at run time, as the GPU engine
//! uploads them, and times `wc_successors` on the states of `DIR/states.bin`,
//! `REPEAT` times), and prints sizes and the CPU's successor count on those states,
//! which the harness's must equal. Compile with `c++ -O2 -o DIR/model DIR/model.cpp`
//! and run `DIR/model DIR` .

use std::collections::{HashSet, VecDeque};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use warpcheck_lts::{build, Network};
use warpcheck_model::cuda::CudaModel;
use warpcheck_model::{Model, Successors};

const HEAD: &str = r#"#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef unsigned int u32;
typedef unsigned long long u64;
#define WC_FN static inline
#define WC_NOINLINE static
#define WC_TABLE(name) static const u32 *name;
typedef struct { u64 n; u64 sum; } WcSink;
static void wc_emit(WcSink *k, const u32 *t) {
  k->n++;
  for (int i = 0; i < WC_WORDS_OF_HARNESS; i++) k->sum = k->sum * 31 + t[i];
}
static void wc_emit_error(WcSink *k) { (void)k; }
"#;

/// The first `limit` states of a breadth-first search of `net`.
fn reachable(net: &Network, limit: usize) -> Vec<Vec<u32>> {
    let mut seen = HashSet::from([net.initial_state()]);
    let mut queue = VecDeque::from([net.initial_state()]);
    let mut out = Vec::new();
    let mut steps = net.successors();
    while let Some(s) = queue.pop_front() {
        if out.len() >= limit {
            break;
        }
        steps.successors(&s, |_, t| {
            let t = t.unwrap().to_vec();
            if seen.insert(t.clone()) {
                queue.push_back(t);
            }
        });
        out.push(s);
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (net_path, dir) = (PathBuf::from(&args[1]), PathBuf::from(&args[2]));
    let limit: usize = args.get(3).map_or(10_000, |a| a.parse().unwrap());
    let repeat: usize = args.get(4).map_or(10, |a| a.parse().unwrap());
    std::fs::create_dir_all(&dir).unwrap();
    let start = Instant::now();
    let net = build::load(&net_path, &build::Options::default()).unwrap_or_else(|e| panic!("{e}"));
    eprintln!("loaded in {:.1} s", start.elapsed().as_secs_f64());
    let start = Instant::now();
    let generated = net.cuda_source(&[]).unwrap();
    let words: usize = generated.tables.iter().map(|t| t.data.len()).sum();
    println!(
        "source: {} bytes ({} lines) in {:.3} s; {} tables, {words} words; max_successors {}",
        generated.source.len(),
        generated.source.lines().count(),
        start.elapsed().as_secs_f64(),
        generated.tables.len(),
        generated.max_successors
    );
    std::fs::write(dir.join("source.c"), &generated.source).unwrap();
    let mut bin = Vec::new();
    for t in &generated.tables {
        bin.extend((t.data.len() as u32).to_le_bytes());
        bin.extend(t.data.iter().flat_map(|v| v.to_le_bytes()));
    }
    std::fs::write(dir.join("tables.bin"), bin).unwrap();
    let states = reachable(&net, limit);
    let mut steps = net.successors();
    let cpu_start = Instant::now();
    let mut cpu = 0u64;
    for s in &states {
        steps.successors(s, |_, _| cpu += 1);
    }
    println!(
        "{} states, CPU successors {cpu} ({:.0} ns/state on the CPU successor function)",
        states.len(),
        cpu_start.elapsed().as_nanos() as f64 / states.len() as f64
    );
    let bin: Vec<u8> = states.iter().flatten().flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(dir.join("states.bin"), bin).unwrap();
    let mut main = String::new();
    main += "static const u32 *wc_load(FILE *f) {\n  u32 n; if (fread(&n, 4, 1, f) != 1) exit(2);\n";
    main += "  u32 *d = (u32 *)malloc(4 * (size_t)n + 4); if (fread(d, 4, n, f) != n) exit(2); return d;\n}\n";
    main += "int main(int argc, char **argv) {\n  char p[4096];\n";
    main += "  snprintf(p, sizeof p, \"%s/tables.bin\", argv[1]); FILE *f = fopen(p, \"rb\"); if (!f) return 1;\n";
    for t in &generated.tables {
        let _ = writeln!(main, "  {} = wc_load(f);", t.name);
    }
    main += "  fclose(f);\n";
    main += "  snprintf(p, sizeof p, \"%s/states.bin\", argv[1]); f = fopen(p, \"rb\"); if (!f) return 1;\n";
    let _ =
        writeln!(main, "  size_t cap = {}, n = 0; u32 *s = (u32 *)malloc(4 * cap * WC_WORDS);", states.len().max(1));
    main += "  while (n < cap && fread(s + n * WC_WORDS, 4, WC_WORDS, f) == WC_WORDS) n++;\n";
    main +=
        "  WcSink k = { 0, 0 }; u64 dead = 0;\n  struct timespec a, b; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);\n";
    let _ = writeln!(main, "  for (int r = 0; r < {repeat}; r++) for (size_t i = 0; i < n; i++) dead += wc_successors(s + i * WC_WORDS, &k);");
    main += "  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);\n";
    main += "  double ns = (b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec);\n";
    let _ = writeln!(
        main,
        "  printf(\"%zu states, successors %llu per pass, deadlocks %llu, %.0f ns/state (checksum %llx)\\n\", n, k.n / {repeat}, dead / {repeat}, ns / n / {repeat}, k.sum);"
    );
    main += "  return 0;\n}\n";
    let words = net.state_words();
    let harness = format!("#define WC_WORDS_OF_HARNESS {words}\n{HEAD}{}{main}", generated.source);
    std::fs::write(dir.join("model.cpp"), harness).unwrap();
}
