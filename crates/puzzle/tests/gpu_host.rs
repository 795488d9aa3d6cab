//! The GPU's CUDA C (`src/gpu/puzzles.cu`) compiled as C with gcc and run on the host:
//! its successors equal [`Puzzle::successors`] (same indices, same order) on thousands
//! of random indices per instance, and its level loop (the kernels' word functions run
//! sequentially) reproduces the CSV rows of `../shared/games` and the CPU search.
//! Needs gcc (CI has it); without it the tests fail saying so.

mod common;

use std::path::PathBuf;

use common::{puzzle_of, rows};
use warpcheck_puzzle::domains::frogs::{FrogIndex, Frogs};
use warpcheck_puzzle::domains::pancake::Pancake;
use warpcheck_puzzle::domains::peg_solitaire::{PegSolitaire, Rules};
use warpcheck_puzzle::domains::sliding_tile::SlidingTile;
use warpcheck_puzzle::domains::top_spin::TopSpin;
use warpcheck_puzzle::gpu::host::{Dialect, Host};
use warpcheck_puzzle::gpu::{gpu_path, Params};
use warpcheck_puzzle::{search, Algorithm, AnyPuzzle, Options, Puzzle};

/// The harness of one test, in a directory of its own.
fn host(name: &str, dialect: Dialect) -> Host {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("gpu_host_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    Host::compile(&dir, dialect).unwrap_or_else(|e| panic!("{e}"))
}

/// `count` pseudo-random indices below `size`, and the edges of the space.
fn indices(size: u64, start: u64, count: usize) -> Vec<u64> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ size;
    let mut v: Vec<u64> = (0..count)
        .map(|_| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 11) % size
        })
        .collect();
    v.extend([0, size - 1, start]);
    v
}

fn same_successors<P: Puzzle>(host: &Host, puzzle: &P, params: &Params) {
    let idx = indices(puzzle.size(), puzzle.start(), 3000);
    let got = host.successors(params, &idx).unwrap_or_else(|e| panic!("{}: {e}", puzzle.name()));
    let mut scratch = puzzle.scratch();
    for (&i, c) in idx.iter().zip(&got) {
        let mut want = Vec::new();
        puzzle.successors(i, &mut scratch, |_, s| want.push(s));
        assert_eq!(c, &want, "{}: successors of {i}", puzzle.name());
    }
}

#[test]
fn successors_equal_the_rust_ones() {
    let host = host("successors", Dialect::C);
    for (r, c) in [(2, 2), (2, 3), (3, 2), (2, 4), (4, 2), (3, 3), (2, 5), (5, 2), (3, 4), (4, 3), (2, 6), (6, 2)]
        .into_iter()
        .chain([(2, 7), (7, 2), (3, 5), (5, 3), (4, 4), (2, 8), (8, 2)])
    {
        let p = SlidingTile::new(r, c).unwrap();
        same_successors(&host, &p, &Params::sliding_tile(&p).unwrap());
    }
    for n in 2..=16 {
        let p = Pancake::new(n).unwrap();
        same_successors(&host, &p, &Params::pancake(&p).unwrap());
    }
    for (n, k) in (5..=16).map(|n| (n, 4)).chain([(6, 2), (7, 3), (9, 5), (12, 6), (13, 3), (16, 15), (10, 9)]) {
        let p = TopSpin::new(n, k).unwrap();
        same_successors(&host, &p, &Params::top_spin(&p).unwrap());
    }
    for side in 2..=5 {
        let p = Frogs::new(side, FrogIndex::HoleColex).unwrap();
        same_successors(&host, &p, &Params::frogs(&p).unwrap());
    }
    // Peg solitaire from the centre vacancy and from boards of 17 and 7 pegs, with and
    // without diagonal jumps.
    for rules in [Rules::Orthogonal, Rules::Diagonal] {
        for board in [None, Some(0x1_5A5A_F0F0u64 & 0x1_FFFF_FFFF), Some(0b1011_0001_0000_0001_0100_0000_1000)] {
            let p = match board {
                None => PegSolitaire::with_rules(rules),
                Some(b) => PegSolitaire::from_board_with(b, rules).unwrap(),
            };
            same_successors(&host, &p, &Params::peg_solitaire(&p).unwrap());
        }
    }
    let thesis = Frogs::new(4, FrogIndex::Multinomial).unwrap();
    assert!(Params::frogs(&thesis).unwrap_err().to_string().contains("colex"));
}

/// The largest index space the level loop runs in CI (C on one core).
const LIMIT: u64 = 4_000_000;

/// The C level loop, then the CUDA kernels on one thread (C++ with stand-ins).
#[test]
fn level_loop_reproduces_the_csv_rows() {
    let c = host("csv_c", Dialect::C);
    let cuda = host("csv_cuda", Dialect::CudaStandIn);
    let mut checked = 0;
    for file in ["sliding_tile.csv", "topspin.csv", "pancake.csv", "frogs_and_toads.csv"] {
        for row in rows(file).into_iter().filter(|r| r.computed()) {
            let Some(puzzle) = puzzle_of(file, &row.instance) else { continue };
            if puzzle.size() > LIMIT {
                continue;
            }
            let params = Params::of(&puzzle).unwrap();
            for host in [&c, &cuda] {
                let layers = host.bfs(&params, puzzle.start()).unwrap_or_else(|e| panic!("{}: {e}", row.instance));
                assert_eq!(layers, row.layers, "{file} {}", row.instance);
                assert_eq!(layers.iter().sum::<u64>(), row.total);
            }
            checked += 1;
        }
    }
    assert!(checked >= 21, "only {checked} rows checked");
}

#[test]
fn level_loop_equals_the_cpu_search() {
    let host = host("cpu", Dialect::CudaStandIn);
    // Instances without a computed row too (other twist lengths, Top-Spin (5,4)).
    for (family, size) in [("top-spin", "8,3"), ("top-spin", "7,5"), ("top-spin", "9,2"), ("top-spin", "5,4")]
        .into_iter()
        .chain([("pancake", "2"), ("sliding-tile", "2x2"), ("top-spin", "10,6")])
    {
        let puzzle = AnyPuzzle::parse(family, Some(size)).unwrap();
        let cpu = puzzle.search(&Options { algorithm: Some(Algorithm::TwoBit), ..Options::default() }).unwrap();
        let layers = host.bfs(&Params::of(&puzzle).unwrap(), puzzle.start()).unwrap();
        assert_eq!(Some(layers), cpu.layers, "{family} {size}");
    }
    // Peg solitaire from boards of 6 and 7 pegs (1.4 M and 5.7 M indices), and with
    // diagonal jumps from the first.
    for (board, rules) in [
        (0b1011_0001_0000_0001_0100_0000_0000u64, Rules::Orthogonal),
        (0b1_1000_0000_0011_1000_0000_0110_0000, Rules::Orthogonal),
        (0b1011_0001_0000_0001_0100_0000_0000u64, Rules::Diagonal),
    ] {
        let puzzle = AnyPuzzle::PegSolitaire(PegSolitaire::from_board_with(board, rules).unwrap());
        let cpu = puzzle.search(&Options { algorithm: Some(Algorithm::TwoBit), ..Options::default() }).unwrap();
        let layers = host.bfs(&Params::of(&puzzle).unwrap(), puzzle.start()).unwrap();
        assert_eq!(Some(layers), cpu.layers, "peg solitaire ({rules:?}) from {board:#b}");
    }
    // And one through the generic search, to pin `Auto`.
    let p = SlidingTile::new(3, 3).unwrap();
    let cpu = search(&p, &Options::default()).unwrap();
    assert_eq!(Some(host.bfs(&Params::sliding_tile(&p).unwrap(), p.start()).unwrap()), cpu.layers);
}

#[test]
fn what_has_no_gpu_path_says_why() {
    let peg = AnyPuzzle::parse("peg-solitaire", None).unwrap();
    assert!(gpu_path(&peg, Algorithm::Auto).is_ok());
    assert!(gpu_path(&peg, Algorithm::OneBitAlternation).unwrap_err().contains("sliding-tile puzzle only"));
    let big = AnyPuzzle::parse("pancake", Some("17")).unwrap();
    assert!(gpu_path(&big, Algorithm::Auto).unwrap_err().contains("at most 16"));
    let ts = AnyPuzzle::parse("top-spin", Some("17,4")).unwrap();
    assert!(gpu_path(&ts, Algorithm::TwoBit).unwrap_err().contains("at most 16"));
    let st = AnyPuzzle::parse("sliding-tile", Some("3x4")).unwrap();
    assert!(gpu_path(&st, Algorithm::TwoBit).is_ok());
    assert!(gpu_path(&st, Algorithm::OneBitAlternation).is_ok());
    assert!(gpu_path(&st, Algorithm::Reachability).unwrap_err().contains("two-bit"));
    let pancake = AnyPuzzle::parse("pancake", Some("8")).unwrap();
    assert!(gpu_path(&pancake, Algorithm::OneBitAlternation).unwrap_err().contains("sliding-tile puzzle only"));
    // Without a device the search is an error, never a panic.
    if !warpcheck_puzzle::gpu::device_available() {
        let e = warpcheck_puzzle::gpu::search(&st, &Options::default(), 0).unwrap_err();
        assert!(e.to_string().starts_with("GPU: no CUDA device"), "{e}");
    }
}

/// On a machine with a CUDA device (never in CI): the device reproduces every computed
/// row up to 2e7 states, and stops at a depth as the CPU does.
#[test]
fn on_a_device_the_gpu_reproduces_the_csv_rows() {
    if !warpcheck_puzzle::gpu::device_available() {
        eprintln!("no CUDA device: the device run is skipped");
        return;
    }
    for file in ["sliding_tile.csv", "topspin.csv", "pancake.csv", "frogs_and_toads.csv"] {
        for row in rows(file).into_iter().filter(|r| r.computed() && r.total <= 20_000_000) {
            let Some(puzzle) = puzzle_of(file, &row.instance) else { continue };
            let g = warpcheck_puzzle::gpu::search(&puzzle, &Options::default(), 0)
                .unwrap_or_else(|e| panic!("{file} {}: {e}", row.instance));
            eprintln!("{file} {}: {} states in {:.4} s on the device", row.instance, g.report.states, g.gpu_seconds);
            assert!(g.report.complete);
            assert_eq!(g.report.layers.as_deref(), Some(&row.layers[..]), "{file} {}", row.instance);
            assert_eq!(g.report.expansions, row.total);
        }
    }
    let p = AnyPuzzle::parse("sliding-tile", Some("3x3")).unwrap();
    let options = Options { max_depth: Some(5), ..Options::default() };
    let (g, cpu) = (warpcheck_puzzle::gpu::search(&p, &options, 0).unwrap(), p.search(&options).unwrap());
    assert_eq!((g.report.layers, g.report.complete, g.report.expansions), (cpu.layers, false, cpu.expansions));
}

/// The one-bit search with move alternation, by the C word functions (a warp of 32
/// lanes phase by phase) and by the kernels on one thread: the CPU's layers and
/// expansions on every sliding-tile instance up to `LIMIT` indices, and the CSV rows.
#[test]
fn one_bit_alternation_equals_the_cpu_and_the_csv_rows() {
    let c = host("alternation_c", Dialect::C);
    let cuda = host("alternation_cuda", Dialect::CudaStandIn);
    let mut checked = 0;
    for row in rows("sliding_tile.csv").into_iter().filter(|r| r.computed()) {
        let Some(puzzle) = puzzle_of("sliding_tile.csv", &row.instance) else { continue };
        if puzzle.size() > LIMIT {
            continue;
        }
        let cpu =
            puzzle.search(&Options { algorithm: Some(Algorithm::OneBitAlternation), ..Options::default() }).unwrap();
        let params = Params::of(&puzzle).unwrap();
        for host in [&c, &cuda] {
            let (expansions, layers) =
                host.alternation(&params, puzzle.start()).unwrap_or_else(|e| panic!("{}: {e}", row.instance));
            assert_eq!(layers, row.layers, "{}", row.instance);
            assert_eq!((Some(&layers), expansions), (cpu.layers.as_ref(), cpu.expansions), "{}", row.instance);
        }
        checked += 1;
    }
    assert!(checked >= 6, "only {checked} sliding-tile rows checked");
}

/// puzzles.cu compiled by NVRTC for an H100 (`sm_90`) without a device. Needs NVRTC
/// (`libnvrtc.so.13` on the library path, e.g. from the PyPI package
/// `nvidia-cuda-nvrtc`): `LD_LIBRARY_PATH=DIR cargo test -p warpcheck-puzzle --test
/// gpu_host -- --ignored nvrtc`.
#[test]
#[ignore = "needs NVRTC (libnvrtc)"]
fn the_kernels_compile_with_nvrtc() {
    use warpcheck_cuda::nvrtc;
    assert!(nvrtc::available(), "NVRTC (libnvrtc) is not on the library path");
    nvrtc::compile(warpcheck_puzzle::gpu::SOURCE, 90, &[]).unwrap_or_else(|e| panic!("{e}"));
}
