//! The GPU's Nine Men's Morris solve (`morris/gpu`: its host loop and morris.cu's
//! kernels), built for the host with g++ and run on one thread, against the CPU's
//! solve: every byte of every database, the levels and counts per database, the counts
//! per ply of the placing phase, the start's value and the first moves. The CPU's solve
//! is itself held to the equations of the game by `morris_solve.rs`. Needs g++ (CI has
//! it); without it the test fails saying so.

use std::path::PathBuf;
use warpcheck_puzzle::morris::gpu::host::Host;
use warpcheck_puzzle::morris::notation::Given;
use warpcheck_puzzle::morris::rules::Position;
use warpcheck_puzzle::morris::{self, Solution};

fn host(name: &str) -> Host {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("morris_gpu_host_{name}"));
    std::fs::create_dir_all(&dir).unwrap();
    Host::compile(&dir).unwrap_or_else(|e| panic!("{e}"))
}

fn empty(k: u32) -> Given {
    Given { position: Position { mover: 0, other: 0, mover_hand: k, other_hand: k }, white_to_move: true }
}

fn same(k: u32, cpu: &Solution, gpu: &Solution) {
    assert_eq!(cpu.database_stats.len(), gpu.database_stats.len());
    for (c, g) in cpu.database_stats.iter().zip(&gpu.database_stats) {
        let (a, b) = (c.mover, c.other);
        assert_eq!((g.mover, g.other), (a, b));
        assert_eq!(
            (g.slots, g.boards, g.wins, g.losses, g.draws, g.longest, g.levels),
            (c.slots, c.boards, c.wins, c.losses, c.draws, c.longest, c.levels),
            "database {a}-{b}"
        );
        let (ct, gt) = (cpu.databases.table(a, b).unwrap(), gpu.databases.table(a, b).unwrap());
        assert_eq!(ct.len(), gt.len());
        if let Some(slot) = (0..ct.len()).find(|&i| ct[i] != gt[i]) {
            panic!("database {a}-{b}, slot {slot}: cpu {} gpu {}", ct[slot], gt[slot]);
        }
    }
    assert_eq!(cpu.ply_stats.len(), 2 * k as usize);
    for (c, g) in cpu.ply_stats.iter().zip(&gpu.ply_stats) {
        assert_eq!((g.ply, g.positions, g.wins, g.losses, g.draws), (c.ply, c.positions, c.wins, c.losses, c.draws));
    }
    assert_eq!(cpu.start(), gpu.start());
    assert!(cpu.start().is_some());
    assert_eq!(cpu.moves(&empty(k)).unwrap(), gpu.moves(&empty(k)).unwrap());
}

#[test]
fn the_host_build_of_the_kernels_solves_the_small_games_as_the_cpu() {
    let machine = host("small");
    for k in 3..=4 {
        let cpu = morris::solve(k, 1 << 32, None, None, true, |_| {}).unwrap();
        let gpu = morris::solve_on(&machine, k, 1 << 32, None, None, true, |_| {}).unwrap();
        same(k, &cpu, &gpu);
    }
    assert!(machine.launches() > 100);
}

/// On a machine with a CUDA device (never in CI): the device solves the games of 3 to
/// 5 pieces a side as the CPU does, byte for byte.
#[test]
fn on_a_device_the_gpu_solves_the_small_games_as_the_cpu() {
    if !warpcheck_puzzle::gpu::device_available() {
        eprintln!("no CUDA device: the device run is skipped");
        return;
    }
    let gpu = warpcheck_puzzle::morris::gpu::device::Gpu::open(0).unwrap_or_else(|e| panic!("{e}"));
    for k in 3..=5 {
        let cpu = morris::solve(k, 1 << 34, None, None, true, |_| {}).unwrap();
        let on_gpu = morris::solve_on(&gpu, k, 1 << 34, None, None, true, |_| {}).unwrap();
        same(k, &cpu, &on_gpu);
    }
}

/// morris.cu compiled by NVRTC for an H100 (`sm_90`) without a device. Needs NVRTC
/// (`libnvrtc.so.13` on the library path, e.g. from the PyPI package
/// `nvidia-cuda-nvrtc`): `LD_LIBRARY_PATH=DIR cargo test -p warpcheck-puzzle --test
/// morris_gpu_host -- --ignored nvrtc`.
#[test]
#[ignore = "needs NVRTC (libnvrtc)"]
fn the_kernels_compile_with_nvrtc() {
    use warpcheck_cuda::nvrtc;
    assert!(nvrtc::available(), "NVRTC (libnvrtc) is not on the library path");
    nvrtc::compile(warpcheck_puzzle::morris::gpu::SOURCE, 90, &[]).unwrap_or_else(|e| panic!("{e}"));
}
