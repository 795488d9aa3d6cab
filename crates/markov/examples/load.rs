//! Loads a model file (DRN, or `.tra` with its siblings; `.gz` too) and prints its size
//! and the time taken: `cargo run --release -p warpcheck-markov --example load -- FILE
//! [dtmc|ctmc|mdp]`.

use std::path::PathBuf;
use std::time::Instant;

use warpcheck_markov::{load, ModelType};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next().map(PathBuf::from) else {
        eprintln!("usage: load FILE [dtmc|ctmc|mdp]");
        std::process::exit(2);
    };
    let model_type = match args.next().as_deref() {
        None => None,
        Some("dtmc") => Some(ModelType::Dtmc),
        Some("ctmc") => Some(ModelType::Ctmc),
        Some("mdp") => Some(ModelType::Mdp),
        Some(other) => {
            eprintln!("unknown model type {other}");
            std::process::exit(2);
        }
    };
    let start = Instant::now();
    match load(&path, model_type) {
        Ok(m) => println!(
            "{}: {} {} states, {} choices, {} transitions, {} labels, {} reward models; loaded in {:.3} s",
            path.display(),
            m.model_type.name(),
            m.states(),
            m.choices(),
            m.transitions(),
            m.labelling.labels.len(),
            m.rewards.len(),
            start.elapsed().as_secs_f64()
        ),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
