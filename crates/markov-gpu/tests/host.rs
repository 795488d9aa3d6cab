//! The GPU engine's logic (batches of sweeps, convergence flags, buffer parity, the
//! fused weighted sums, in-place sweeps) run over sweeps.cu compiled for the host,
//! held to the CPU engine: Jacobi against `Cores::jacobi`, in place against `Cores`
//! (one block), the same bits and the same sweep counts, on random systems and on every
//! property of the shared Markov instances up to 120,000 states. Batches of 1, 3 and
//! 64 sweeps move the batch boundaries.
//!
//! Needs a C++ compiler (`$CXX`, else `c++`); `WARPCHECK_MARKOV` points at the shared
//! Markov folder (default `../shared/markov` beside the repository).

#[path = "../../markov/tests/common/mod.rs"]
mod common;

use proptest::prelude::*;
use warpcheck_markov::check::engine::{self, Cores, Engine};
use warpcheck_markov::check::property::Opt;
use warpcheck_markov::check::solve::{Settings, Solution, System};
use warpcheck_markov::check::{check, parse, CheckError, Options};
use warpcheck_markov::ModelType;
use warpcheck_markov_gpu::host::Host;
use warpcheck_markov_gpu::GpuEngine;

fn host(batch: u32) -> GpuEngine<Host> {
    GpuEngine::new(Host::compile().expect("a C++ compiler builds sweeps.cu for the host")).with_batch(batch)
}

/// A random system: per unknown 1-3 rows of 0-3 entries whose weights sum to at most
/// `mass` (below 1: every row leaves the unknowns with some probability).
fn system(n: usize, seed: u64, mass: f64) -> System {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut sys = System::new();
    for _ in 0..n {
        for _ in 0..1 + next() % 3 {
            let k = (next() % 4) as usize;
            let mut left = mass;
            let mut entries = Vec::new();
            for _ in 0..k {
                let p = left * ((next() % 1000) as f64 / 1000.0);
                left -= p;
                entries.push(((next() % n as u64) as u32, p));
            }
            // Every row earns something: no value is 0, which relative precision
            // could only reach by underflow.
            sys.push_row((1 + next() % 100) as f64 / 101.0 * left, entries);
        }
        sys.end_group();
    }
    sys
}

type Solver = fn(&mut dyn engine::Sweeps, Opt, &[f64], &Settings) -> Result<Solution, CheckError>;

fn same(a: &Solution, b: &Solution, what: &str) {
    assert_eq!(a.iterations, b.iterations, "{what}: sweeps");
    assert!(a.lower.iter().zip(&b.lower).all(|(x, y)| x.to_bits() == y.to_bits()), "{what}: lower bounds differ");
    assert!(a.upper.iter().zip(&b.upper).all(|(x, y)| x.to_bits() == y.to_bits()), "{what}: upper bounds differ");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    #[test]
    fn host_kernels_equal_the_cpu(n in 1usize..40, seed in any::<u64>(), batch in 1u32..6, relative in any::<bool>()) {
        // Jacobi on both, and in place on both: the CPU sweeps one block (n < 2048)
        // from the last unknown down, as the host build of the kernels does.
        let pairs: [[&dyn Engine; 2]; 2] = [[&Cores::jacobi(), &host(batch)], [&Cores::default(), &host(batch).in_place()]];
        let sys = system(n, seed, 0.9);
        for engines in pairs {
        let set = Settings { precision: 1e-9, relative, max_iterations: 100_000 };
        for opt in [Opt::Max, Opt::Min] {
            let zero = vec![0.0; n];
            let mut results = Vec::new();
            for e in engines {
                let mut s = e.open(&sys).unwrap();
                let s = &mut *s;
                let ii = engine::interval(s, opt, &zero, &vec![10.0; n], &set).unwrap();
                let solvers: [Solver; 2] = [engine::value_iteration, engine::optimistic];
                let others: Vec<Solution> = solvers.iter().map(|f| f(s, opt, &zero, &set).unwrap()).collect();
                let x = s.vector(&(0..n).map(|i| i as f64).collect::<Vec<_>>()).unwrap();
                s.sweeps(opt, x, 7).unwrap();
                let swept = s.values(x).unwrap();
                let weights: Vec<f64> = (0..9).map(|k| if k % 3 == 1 { 0.0 } else { 1.0 / (k + 1) as f64 }).collect();
                let y = s.vector(&vec![1.0; n]).unwrap();
                let sum = s.weighted(y, &weights).unwrap();
                let sum = s.values(sum).unwrap();
                results.push((ii, others, swept, sum));
            }
            let (cpu, gpu) = (&results[0], &results[1]);
            same(&cpu.0, &gpu.0, "interval iteration");
            same(&cpu.1[0], &gpu.1[0], "value iteration");
            same(&cpu.1[1], &gpu.1[1], "optimistic value iteration");
            prop_assert_eq!(&cpu.2, &gpu.2);
            prop_assert_eq!(&cpu.3, &gpu.3);
            for i in 0..n {
                prop_assert!(cpu.0.lower[i] <= cpu.0.upper[i]);
            }
        }
        }
    }
}

/// An iteration that does not converge within its sweeps ends the same way on both.
#[test]
fn sweep_limits_are_the_cpus() {
    let sys = system(30, 7, 0.999);
    let set = Settings { precision: 1e-12, relative: false, max_iterations: 10 };
    let (gpu, gpu_in_place) = (host(4), host(4).in_place());
    for e in [&Cores::jacobi() as &dyn Engine, &gpu, &Cores::default(), &gpu_in_place] {
        let mut s = e.open(&sys).unwrap();
        let r = engine::interval(&mut *s, Opt::Max, &[0.0; 30], &[10.0; 30], &set);
        assert_eq!(r.unwrap_err(), CheckError::NotConverged { iterations: 10 }, "{e:?}");
        let r = engine::value_iteration(&mut *s, Opt::Max, &[0.0; 30], &set);
        assert_eq!(r.unwrap_err(), CheckError::NotConverged { iterations: 10 }, "{e:?}");
    }
}

/// Every property of the shared instances of at most 120,000 states: the engine over
/// the host kernels gives the CPU's Jacobi values, bit for bit, and its sweep counts;
/// in place, both engines' answers agree within the precision.
#[test]
fn every_shared_property_equals_the_cpu() {
    let dir = common::markov_dir();
    let additions = common::additions(&dir);
    let cpu = Options { engine: std::sync::Arc::new(Cores::jacobi()), ..Options::default() };
    let emulated = Options { engine: std::sync::Arc::new(host(64)), ..Options::default() };
    let in_place = Options { engine: std::sync::Arc::new(host(64).in_place()), ..Options::default() };
    let mut checked = 0;
    for (id, instance) in &common::references(&dir) {
        let (Some(drn), Some(states)) = (instance["files"]["drn"]["path"].as_str(), instance["states"].as_u64()) else {
            continue;
        };
        if states > 120_000 {
            continue;
        }
        let ctmc = instance["type"] == "ctmc";
        let mut models = vec![(warpcheck_markov::load(&dir.join(drn), None).unwrap(), instance["properties"].clone())];
        if let (Some(add), Some(tra)) = (additions.get(id.as_str()), instance["files"]["tra"]["path"].as_str()) {
            let t = if ctmc { Some(ModelType::Ctmc) } else { None };
            models.push((warpcheck_markov::load(&dir.join(tra), t).unwrap(), add["properties"].clone()));
        }
        for (model, props) in &models {
            for p in props.as_array().unwrap() {
                let formula = p["formula"].as_str().unwrap();
                let property = parse(formula).unwrap();
                let (a, b) = (check(model, &property, &cpu), check(model, &property, &emulated));
                let (Ok(a), Ok(b)) = (&a, &b) else {
                    assert_eq!(a, b, "{id} {formula}");
                    continue;
                };
                assert_eq!(a.iterations, b.iterations, "{id} {formula}: sweeps");
                assert_eq!(a.method, b.method, "{id} {formula}");
                let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert!(bits(&a.lower) == bits(&b.lower) && bits(&a.upper) == bits(&b.upper), "{id} {formula}");
                // In place, on the CPU (blocks in parallel) and the emulated GPU: other
                // iterates, the same answer.
                let c = check(model, &property, &Options::default()).unwrap();
                let b = check(model, &property, &in_place).unwrap();
                for s in 0..model.states() {
                    let (x, y) = (c.value(s as u32), b.value(s as u32));
                    let near = (x - y).abs() <= 2e-6 * x.abs().max(1.0) || x == y;
                    let overlap = c.lower[s] <= b.upper[s] * (1.0 + 1e-12) && b.lower[s] <= c.upper[s] * (1.0 + 1e-12);
                    assert!(
                        near && overlap,
                        "{id} {formula} state {s}: cpu {x} [{}, {}], gpu {y}",
                        c.lower[s],
                        c.upper[s]
                    );
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 60, "only {checked} properties checked");
}

/// Host lanes that report `free` bytes of memory, as a small device would.
struct Small {
    host: Host,
    free: u64,
}

impl warpcheck_markov_gpu::lanes::Lanes for Small {
    type Buf = <Host as warpcheck_markov_gpu::lanes::Lanes>::Buf;
    fn name(&self) -> &'static str {
        "small"
    }
    fn free_memory(&self) -> Option<u64> {
        Some(self.free)
    }
    fn upload(&self, bytes: &[u8]) -> Result<Self::Buf, String> {
        self.host.upload(bytes)
    }
    fn zeros(&self, bytes: usize) -> Result<Self::Buf, String> {
        self.host.zeros(bytes)
    }
    fn download(&self, buf: &Self::Buf, out: &mut [u8]) -> Result<(), String> {
        self.host.download(buf, out)
    }
    fn write(&self, buf: &mut Self::Buf, offset: usize, bytes: &[u8]) -> Result<(), String> {
        self.host.write(buf, offset, bytes)
    }
    fn addr(&self, buf: &Self::Buf) -> u64 {
        self.host.addr(buf)
    }
    unsafe fn launch(
        &self,
        kernel: warpcheck_markov_gpu::lanes::Kernel,
        n: u64,
        sys: &warpcheck_markov_gpu::lanes::MkSystem,
        it: &warpcheck_markov_gpu::lanes::MkIter,
    ) -> Result<(), String> {
        // SAFETY: the caller's contract is the host lanes' own.
        unsafe { self.host.launch(kernel, n, sys, it) }
    }
    unsafe fn launch_mec(
        &self,
        kernel: warpcheck_markov_gpu::lanes::MecKernel,
        args: &warpcheck_markov_gpu::lanes::MeArgs,
    ) -> Result<(), String> {
        // SAFETY: the caller's contract is the host lanes' own.
        unsafe { self.host.launch_mec(kernel, args) }
    }
}

/// A system that does not fit the device's free memory is a clear error, not a failed
/// allocation; one that fits is solved.
#[test]
fn a_system_larger_than_the_free_memory_is_refused() {
    use warpcheck_markov::check::engine::Engine as _;
    let sys = system(1000, 3, 0.9);
    let small = GpuEngine::new(Small { host: Host::compile().unwrap(), free: 1 << 20 });
    let err = small.open(&sys).err().expect("refused");
    let text = err.to_string();
    assert!(
        text.contains("needs about") && text.contains("1048576 are free") && text.contains("--backend cpu"),
        "{text}"
    );
    let roomy = GpuEngine::new(Small { host: Host::compile().unwrap(), free: 1 << 30 });
    assert!(roomy.open(&sys).is_ok());
}

/// A MEC decomposition that does not fit the free memory is refused the same way.
#[test]
fn a_mec_decomposition_larger_than_the_free_memory_is_refused() {
    let mut model = warpcheck_markov::SparseModel::new(ModelType::Mdp);
    for s in 0..10_000u32 {
        model.push_row(None);
        model.push_entry((s + 1) % 10_000, 1.0);
        model.end_state();
    }
    let small = Small { host: Host::compile().unwrap(), free: 1 << 20 };
    let err = warpcheck_markov_gpu::mec::maximal_end_components(&small, &model).expect_err("refused");
    assert!(err.contains("needs about") && err.contains("1048576 are free") && err.contains("--backend cpu"), "{err}");
    let roomy = Small { host: Host::compile().unwrap(), free: 1 << 30 };
    let (mecs, _) = warpcheck_markov_gpu::mec::maximal_end_components(&roomy, &model).unwrap();
    assert_eq!(mecs.summary().sizes_sorted_desc, vec![10_000]);
}
