//! Builds a PRISM model and prints its size and the time taken:
//! `cargo run --release -p warpcheck-prism --example build -- MODEL.prism [N=1,...] [EXTRA.prism]`.

use std::time::Instant;

use warpcheck_markov::BuildOptions;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: build MODEL.prism [CONSTANTS] [EXTRA.prism]");
        std::process::exit(2);
    };
    let mut source = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if let Some(extra) = args.get(2) {
        source.push('\n');
        source.push_str(&std::fs::read_to_string(extra).unwrap_or_else(|e| panic!("{extra}: {e}")));
    }
    let constants = warpcheck_prism::parse_constants(args.get(1).map_or("", |s| s)).unwrap_or_else(|e| panic!("{e}"));
    let start = Instant::now();
    let model = match warpcheck_prism::load(&source, &constants) {
        Ok(m) => m,
        Err(d) => {
            eprint!("{}", d.render(path, &source));
            std::process::exit(2);
        }
    };
    let loaded = start.elapsed();
    let built = model.build(&BuildOptions::default()).unwrap_or_else(|e| {
        eprintln!("{e}");
        std::process::exit(1);
    });
    let total = start.elapsed();
    println!(
        "{}: {} states, {} choices, {} transitions; parse+check {:.3} s, build {:.3} s, total {:.3} s",
        built.model_type.name(),
        built.states(),
        built.choices(),
        built.transitions(),
        loaded.as_secs_f64(),
        (total - loaded).as_secs_f64(),
        total.as_secs_f64()
    );
}
