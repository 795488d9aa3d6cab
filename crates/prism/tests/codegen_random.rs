//! The generated C against the CPU evaluator on random expressions: each case is a
//! model whose commands assign random integer expressions, weigh branches with random
//! real expressions and whose labels are random Boolean expressions, over variables
//! `x : [-4..4]`, `y : [0..6]`, `b : bool`; every valuation of them is run through
//! the host-compiled code and through the CPU. Values, weights (bit for bit; any NaN
//! equals any NaN), label values and evaluation errors (overflow, modulo by zero,
//! values out of range, non-finite numbers made integers) must agree.

mod common;

use common::{cpu_emits, host_run, Emit};
use proptest::prelude::*;
use warpcheck_model::cuda::CudaModel;
use warpcheck_model::{Describe, Model};

/// Random expressions of each type, as PRISM text.
fn int_expr(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        3 => (-3i64..10).prop_map(|v| if v < 0 { format!("({v})") } else { v.to_string() }),
        3 => Just("x".to_string()),
        1 => Just("y".to_string()),
        1 => Just("(b ? 1 : 0)".to_string()),
        1 => Just("9223372036854775807".to_string()),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let i = || int_expr(depth - 1);
    prop_oneof![
        2 => leaf,
        1 => (i(), prop_oneof![Just("+"), Just("-"), Just("*")], i()).prop_map(|(a, op, b)| format!("({a} {op} {b})")),
        1 => i().prop_map(|a| format!("(-{a})")),
        2 => (prop_oneof![Just("min"), Just("max"), Just("mod"), Just("pow")], i(), i())
            .prop_map(|(f, a, b)| format!("{f}({a}, {b})")),
        1 => (prop_oneof![Just("floor"), Just("ceil"), Just("round")], double_expr(depth - 1))
            .prop_map(|(f, a)| format!("{f}({a})")),
        1 => (bool_expr(depth - 1), i(), i()).prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
    ]
    .boxed()
}

fn double_expr(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        prop_oneof![Just("0.5"), Just("1.5"), Just("(-2.25)"), Just("0.0"), Just("1e300"), Just("0.1")]
            .prop_map(str::to_string),
        Just("(x / 3)".to_string()),
        Just("(y / 2)".to_string()),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let d = || double_expr(depth - 1);
    prop_oneof![
        2 => leaf,
        1 => (d(), prop_oneof![Just("+"), Just("-"), Just("*"), Just("/")], d())
            .prop_map(|(a, op, b)| format!("({a} {op} {b})")),
        1 => (int_expr(depth - 1), int_expr(depth - 1)).prop_map(|(a, b)| format!("({a} / {b})")),
        1 => d().prop_map(|a| format!("(-{a})")),
        1 => (prop_oneof![Just("min"), Just("max"), Just("pow"), Just("log")], d(), d())
            .prop_map(|(f, a, b)| format!("{f}({a}, {b})")),
        1 => (bool_expr(depth - 1), d(), d()).prop_map(|(c, a, b)| format!("({c} ? {a} : {b})")),
    ]
    .boxed()
}

fn bool_expr(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![Just("b".to_string()), Just("true".to_string()), Just("(x > y)".to_string())];
    if depth == 0 {
        return leaf.boxed();
    }
    let p = || bool_expr(depth - 1);
    let cmp = prop_oneof![Just("<"), Just("<="), Just(">"), Just(">="), Just("="), Just("!=")];
    prop_oneof![
        leaf,
        (int_expr(depth - 1), cmp.clone(), int_expr(depth - 1)).prop_map(|(a, c, b)| format!("({a} {c} {b})")),
        (double_expr(depth - 1), cmp, double_expr(depth - 1)).prop_map(|(a, c, b)| format!("({a} {c} {b})")),
        p().prop_map(|a| format!("(!{a})")),
        (p(), prop_oneof![Just("&"), Just("|"), Just("=>")], p()).prop_map(|(a, op, b)| format!("({a} {op} {b})")),
    ]
    .boxed()
}

/// Weights equal bit for bit, or both NaN.
fn same(a: &[Emit], b: &[Emit]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Emit::Branch { target: t1, weight: w1, tag: g1 }, Emit::Branch { target: t2, weight: w2, tag: g2 }) => {
                let nan = f64::from_bits(*w1).is_nan() && f64::from_bits(*w2).is_nan();
                t1 == t2 && g1 == g2 && (w1 == w2 || nan)
            }
            (x, y) => x == y,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_expressions_evaluate_alike_in_c_and_on_the_cpu(
        ints in prop::collection::vec(int_expr(3), 6),
        doubles in prop::collection::vec(double_expr(3), 6),
        bools in prop::collection::vec(bool_expr(3), 6),
    ) {
        let mut source = String::from("mdp\nmodule m\n  x : [-4..4] init 0;\n  y : [0..6] init 0;\n  b : bool init false;\n  z : [-1000..1000] init 0;\n");
        for e in &ints {
            source += &format!("  [] true -> (z'={e});\n");
        }
        for e in &doubles {
            source += &format!("  [] true -> {e} : (z'=1) + 0.25 : (z'=2);\n");
        }
        source += "endmodule\n";
        for (k, e) in bools.iter().enumerate() {
            source += &format!("label \"l{k}\" = {e};\n");
        }
        let model = match warpcheck_prism::load(&source, &[]) {
            Ok(m) => m,
            // A constant expression the checker folds and rejects (an overflow, say).
            Err(_) => return Ok(()),
        };
        let labels: Vec<usize> = (0..bools.len()).collect();
        let generated = model.cuda_source(&labels).unwrap();
        let p = &model.program;
        let mut states = Vec::new();
        for x in -4..=4i64 {
            for y in 0..=6i64 {
                for b in 0..=1i64 {
                    let mut s = vec![0u32; model.state_words()];
                    for (v, value) in [(0usize, x), (1, y), (2, b), (3, 0)] {
                        let var = p.vars.iter().position(|var| var.name == ["x", "y", "b", "z"][v]).unwrap();
                        p.slots[var].slot.set(&mut s, (value - p.vars[var].lo) as i32);
                    }
                    states.push(s);
                }
            }
        }
        let dir = std::env::temp_dir().join(format!("warpcheck-prism-random-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let host = host_run(&generated, model.state_words(), labels.len(), &states, &dir);
        for (s, h) in states.iter().zip(&host) {
            let (emits, dead) = cpu_emits(&model, s);
            prop_assert!(same(&h.emits, &emits) && h.dead == dead, "{:?}:\nC   {:?}\nCPU {:?}\n{}", model.describe_state(s), h.emits, emits, source);
            let cpu_labels: Vec<i32> = labels.iter().map(|&l| match model.label(s, l) {
                Ok(v) => v as i32,
                Err(_) => -1,
            }).collect();
            prop_assert_eq!(&h.labels, &cpu_labels, "labels in {:?}\n{}", model.describe_state(s), source);
        }
    }
}
