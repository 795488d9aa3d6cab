use std::time::Instant;
use warpcheck_cycle::*;
fn main() {
    for path in std::env::args().skip(1) {
        let g = dimacs::read(std::path::Path::new(&path)).unwrap().graph;
        for (problem, algs) in [(Problem::Mean, &Algorithm::ALL[..]), (Problem::Ratio, &Algorithm::ALL[..3])] {
            for &algorithm in algs {
                for sense in [Sense::Min, Sense::Max] {
                    let t = Instant::now();
                    let s = solve(&g, &Options { problem, sense, algorithm }).unwrap();
                    let el = t.elapsed().as_secs_f64();
                    if el > 0.05 { println!("{path} {problem:?} {algorithm:?} {sense:?} {el:.3} rounds {} comps {} largest {}", s.rounds, s.components.len(), s.components.iter().map(|c| c.vertices).max().unwrap_or(0)); }
                }
            }
        }
    }
}
