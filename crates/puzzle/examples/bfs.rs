//! Searches one instance and prints a line per layer and the report: the library's
//! timing harness until the `warpcheck puzzle` command exists.
//!
//! ```text
//! cargo run --release -p warpcheck-puzzle --example bfs -- sliding-tile 3x4 [ALGORITHM]
//! ```
//! ALGORITHM is `auto` (default), `two-bit`, `two-bit-literal`, `reachability`,
//! `one-bit-alternation` or `one-bit-layers`.

use warpcheck_puzzle::{Algorithm, AnyPuzzle, Options, Progress};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(family) = args.first() else {
        eprintln!("usage: bfs FAMILY [PARAMETER] [ALGORITHM]");
        std::process::exit(2);
    };
    let (parameter, algorithm) = match args.get(1).map(String::as_str) {
        Some(a) if Algorithm::from_name(a).is_some() => (None, Some(a)),
        p => (p, args.get(2).map(String::as_str)),
    };
    let algorithm = algorithm.map(|a| Algorithm::from_name(a).unwrap_or(Algorithm::Auto));
    let puzzle = match AnyPuzzle::parse(family, parameter) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    let progress = |p: &Progress| eprintln!("{:>4} {:>14} {:>16} {:>9.2} s", p.step, p.new_states, p.states, p.seconds);
    let options = Options { algorithm, progress: Some(&progress), ..Options::default() };
    match puzzle.search(&options) {
        Ok(r) => {
            println!(
                "{} {}: {} states, depth {:?}, {:.2} s, {} threads",
                r.puzzle,
                r.algorithm.name(),
                r.states,
                r.depth,
                r.seconds,
                rayon::current_num_threads()
            );
            println!(
                "index space {}, {} bytes, {} scans, {} expansions",
                r.index_space, r.bytes, r.scans, r.expansions
            );
            if let Some(layers) = r.layers {
                println!("layers {}", layers.iter().map(u64::to_string).collect::<Vec<_>>().join(" "));
            }
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(3);
        }
    }
}
