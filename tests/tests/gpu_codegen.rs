//! The GPU code generator, checked without a GPU: the generated C is compiled with the
//! host C compiler and run on sample states of every BEEM instance of the reference
//! table, every BEEM property file and every semantic-rule model; for each state, its
//! successors, erroring steps, deadlock, violated assertion, acceptance and the BEEM
//! reachability propositions (as invariants) must equal the CPU engine's.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use warpcheck_conformance::beem_xml::reach_goals;
use warpcheck_conformance::*;
use warpcheck_dve::codegen::generate;
use warpcheck_dve::ir::Expr;
use warpcheck_dve::DveModel;
use warpcheck_dve::{Generator, Program as Model};
use warpcheck_model::cuda::host::{run_on_host, HostResult};

/// Sample states: the first `bfs` states breadth first, then the states of a few
/// seeded random walks (to reach deep states cheaply).
fn sample_states(model: &Model, bfs: usize, walks: usize, length: usize) -> Vec<Vec<u32>> {
    let mut generator = Generator::new(model);
    let mut seen = HashSet::new();
    let mut order = Vec::new();
    let mut queue = VecDeque::from([model.initial_state()]);
    seen.insert(model.initial_state());
    while let Some(s) = queue.pop_front() {
        order.push(s.clone());
        if order.len() >= bfs {
            break;
        }
        generator.successors(&s, |_, r| {
            if let Ok(t) = r {
                if seen.insert(t.to_vec()) {
                    queue.push_back(t.to_vec());
                }
            }
        });
    }
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..walks {
        let mut s = model.initial_state();
        for _ in 0..length {
            let mut next = Vec::new();
            generator.successors(&s, |_, r| {
                if let Ok(t) = r {
                    next.push(t.to_vec());
                }
            });
            if next.is_empty() {
                break;
            }
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            s = next.swap_remove((rng % next.len() as u64) as usize);
            if seen.insert(s.clone()) {
                order.push(s.clone());
            }
        }
    }
    order
}

/// What the CPU engine says about `state`, in the host program's terms.
fn cpu_result(model: &Model, generator: &mut Generator<'_>, invariants: &[Expr], state: &[u32]) -> HostResult {
    let mut successors = Vec::new();
    let mut errors = 0;
    let deadlock = generator.successors(state, |_, r| match r {
        Ok(t) => successors.push(t.to_vec()),
        Err(_) => errors += 1,
    });
    successors.sort();
    let ev = model.evaluator(&mut []);
    HostResult {
        successors,
        errors,
        deadlock,
        assertion: warpcheck_model::Model::violated_assertion(
            model,
            state,
            &warpcheck_model::Model::assertion_labels(model),
        )
        .map(|(a, _)| a as u32),
        accepting: model.is_accepting(state),
        invariants: invariants.iter().map(|e| ev.holds(e, state).unwrap_or(false)).collect(),
    }
}

fn check_model(name: &str, dve: &DveModel, invariants: &[Expr], dir: &Path) -> Result<(), String> {
    let model = &dve.model;
    let generated = generate(model, invariants).map_err(|e| format!("{name}: {e}"))?;
    let states = sample_states(model, 600, 12, 400);
    let host = run_on_host(&generated, model.state_words(), invariants.len(), &states, dir)
        .map_err(|e| format!("{name}: {e}"))?;
    let mut generator = Generator::new(model);
    for (state, got) in states.iter().zip(host) {
        let want = cpu_result(model, &mut generator, invariants, state);
        if got != want {
            return Err(format!(
                "{name}: generated code differs in state {}:\n generated {got:?}\n CPU       {want:?}",
                model.describe_state(state).join(", ")
            ));
        }
        if want.successors.len() as u64 + want.errors as u64 > generated.max_successors {
            return Err(format!(
                "{name}: {} steps exceed the bound {}",
                want.successors.len(),
                generated.max_successors
            ));
        }
    }
    Ok(())
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpcheck-codegen-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every instance of the reference table, with its reachability propositions.
#[test]
fn generated_code_agrees_with_the_cpu_engine_on_every_reference_instance() {
    let beem = beem_dir();
    let rows = references(&beem);
    let failures = parallel_failures(&rows, |r| {
        let mut dve = load_file(&r.model_path(&beem));
        dve.model.overflow = r.overflow();
        let model_dir = r.model_path(&beem).parent().unwrap().to_path_buf();
        let mut invariants = Vec::new();
        if model_dir.join("results.xml").is_file() {
            for goal in reach_goals(&model_dir).into_iter().filter(|g| g.instance == r.instance) {
                invariants.push(dve.expression(&goal.invariant).map_err(|_| format!("{}: bad goal", r.instance))?);
            }
        }
        let dir = scratch(&r.instance);
        let result = check_model(&r.instance, &dve, &invariants, &dir);
        let _ = std::fs::remove_dir_all(&dir);
        result
    });
    assert!(failures.is_empty(), "{} of {} instances differ:\n{}", failures.len(), rows.len(), failures.join("\n"));
}

/// Property files: the product with the Büchi automaton, stuttering included.
#[test]
fn generated_code_agrees_with_the_cpu_engine_on_property_files() {
    let beem = beem_dir();
    let mut files = Vec::new();
    for entry in std::fs::read_dir(&beem).unwrap() {
        let dir = entry.unwrap().path();
        let Ok(list) = std::fs::read_dir(&dir) else { continue };
        let mut props: Vec<PathBuf> =
            list.map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().contains(".prop")).collect();
        props.sort();
        // The first property file of each model keeps the test short.
        files.extend(props.into_iter().take(1));
    }
    assert!(files.len() >= 20, "expected BEEM property files, found {}", files.len());
    let failures = parallel_failures(&files, |path| {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let dve = load_file(path);
        let dir = scratch(&name);
        let result = check_model(&name, &dve, &[], &dir);
        let _ = std::fs::remove_dir_all(&dir);
        result
    });
    assert!(failures.is_empty(), "{} of {} files differ:\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// The semantic-rule models: every evaluation error, committed states, sync systems.
#[test]
fn generated_code_agrees_with_the_cpu_engine_on_the_semantic_rule_models() {
    let models = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/semantics");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&models).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    assert!(files.len() >= 30);
    let failures = parallel_failures(&files, |path| {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let dir = scratch(&name);
        let mut result = Ok(());
        for overflow in [warpcheck_dve::Overflow::Error, warpcheck_dve::Overflow::Wrap] {
            let mut dve = load_file(path);
            dve.model.overflow = overflow;
            result = result.and_then(|_| check_model(&format!("{name} ({overflow:?})"), &dve, &[], &dir));
        }
        let _ = std::fs::remove_dir_all(&dir);
        result
    });
    assert!(failures.is_empty(), "{} of {} models differ:\n{}", failures.len(), files.len(), failures.join("\n"));
}

/// LTL formulas through our translation (`warpcheck_ltl::formula_model`): the first
/// LTL formula of each BEEM `model.xml` on the model's first instance, its automaton
/// attached as the property process.
#[test]
fn generated_code_agrees_with_the_cpu_engine_on_formula_models() {
    use warpcheck_conformance::beem_xml::ltl_formulas;
    use warpcheck_ltl::propositions::Definition;
    let beem = beem_dir();
    let names = |formula: &str| {
        let atoms = warpcheck_ltl::formula::parse(formula).map(|f| f.atoms).unwrap_or_default();
        atoms.into_iter().map(|(a, _)| a.to_string()).collect()
    };
    let mut formulas = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&beem).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for dir in dirs.into_iter().filter(|d| d.join("model.xml").is_file()) {
        formulas.extend(ltl_formulas(&dir, names).into_iter().find(|f| f.instance.ends_with(".1")));
    }
    assert!(formulas.len() >= 20, "expected BEEM LTL formulas, found {}", formulas.len());
    let failures = parallel_failures(&formulas, |f| {
        let name = format!("{} `{}`", f.instance, f.formula);
        let model_name = f.instance.split('.').next().unwrap();
        let dve = load_file(&beem.join(model_name).join(format!("{}.dve", f.instance)));
        let definitions: Vec<Definition> = f
            .propositions
            .iter()
            .map(|(n, e)| Definition { name: n.clone(), expression: e.clone(), origin: "model.xml".into() })
            .collect();
        let ready = warpcheck_ltl::formula_model(&dve.model, &f.formula, &definitions, |e| dve.expression(e))
            .map_err(|e| format!("{name}: {e}"))?;
        let product = DveModel { model: ready.model, names: dve.names.clone(), warnings: vec![] };
        let dir = scratch(&f.property_file());
        let result = check_model(&name, &product, &[], &dir);
        let _ = std::fs::remove_dir_all(&dir);
        result
    });
    assert!(failures.is_empty(), "{} of {} formulas differ:\n{}", failures.len(), formulas.len(), failures.join("\n"));
}
