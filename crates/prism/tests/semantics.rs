//! The semantics on tiny hand-made models whose matrices are derived by hand: DTMC
//! fusion, MDP products of synchronised choices, CTMC rate products and sums, module
//! renaming, `init ... endinit`, deadlock self-loops, rewards and evaluation errors.

use warpcheck_markov::{BuildError, BuildOptions, ModelType, SparseModel};
use warpcheck_model::{Model, Successors};

fn build(source: &str) -> SparseModel {
    let model = warpcheck_prism::load(source, &[]).unwrap_or_else(|d| panic!("{}", d.render("test.prism", source)));
    let m = model.build(&BuildOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    m.validate().unwrap();
    m
}

fn build_err(source: &str) -> BuildError {
    let model = warpcheck_prism::load(source, &[]).unwrap_or_else(|d| panic!("{}", d.render("test.prism", source)));
    model.build(&BuildOptions::default()).expect_err("an error")
}

/// The rows of state `s`.
fn rows(m: &SparseModel, s: u32) -> Vec<Vec<(u32, f64)>> {
    m.rows(s).map(|r| m.row(r).collect()).collect()
}

/// The values of state `s`.
fn values(m: &SparseModel, s: u32) -> Vec<i64> {
    m.valuations.as_ref().unwrap().of(s).to_vec()
}

#[test]
fn dtmc_fuses_the_choices_of_a_state_uniformly() {
    let m = build(
        "dtmc
         module a
           x : [0..2];
           [] x=0 -> 0.5:(x'=1) + 0.5:(x'=2);
           [] x=0 -> (x'=2);
         endmodule",
    );
    assert_eq!(m.model_type, ModelType::Dtmc);
    assert_eq!((m.states(), m.transitions()), (3, 4));
    assert_eq!(rows(&m, 0), [vec![(1, 0.25), (2, 0.75)]]);
    assert_eq!(rows(&m, 1), [vec![(1, 1.0)]]);
    assert_eq!(m.labelling.states("deadlock"), Some(&[1, 2][..]));
    assert_eq!(m.labelling.states("init"), Some(&[0][..]));
}

/// Two modules synchronise on `a`, each with two enabled `a` commands: four choices,
/// their probabilities the products, after the unlabelled command of `B`.
#[test]
fn mdp_synchronisation_is_every_combination_of_commands() {
    let m = build(
        "mdp
         module A
           x : [0..2];
           [a] x=0 -> (x'=1);
           [a] x=0 -> 0.5:(x'=1) + 0.5:(x'=2);
         endmodule
         module B
           y : [0..1];
           [a] y=0 -> (y'=1);
           [a] y=0 -> 0.3:(y'=0) + 0.7:(y'=1);
           [] y=0 -> (y'=1);
         endmodule",
    );
    // Discovery order: (0,0), (0,1), (1,1), (1,0), (2,1), (2,0).
    let states: Vec<Vec<i64>> = (0..m.states() as u32).map(|s| values(&m, s)).collect();
    assert_eq!(states, [[0, 0], [0, 1], [1, 1], [1, 0], [2, 1], [2, 0]]);
    assert_eq!(
        rows(&m, 0),
        [
            vec![(1, 1.0)],
            vec![(2, 1.0)],
            vec![(2, 0.7), (3, 0.3)],
            vec![(2, 0.5), (4, 0.5)],
            vec![(2, 0.35), (3, 0.15), (4, 0.35), (5, 0.15)],
        ]
    );
    // (0,1): A offers `a` but B does not: no synchronisation, a deadlock.
    assert_eq!(rows(&m, 1), [vec![(1, 1.0)]]);
    assert_eq!(m.choices(), 5 + 5);
}

#[test]
fn ctmc_multiplies_synchronised_rates_and_sums_all() {
    let m = build(
        "ctmc
         module A
           x : [0..1];
           [go] x=0 -> 2 : (x'=1);
           [] x=0 -> 3 : (x'=1);
           [] x=0 -> 4 : (x'=1);
         endmodule
         module B
           y : [0..1];
           [go] y=0 -> 5 : (y'=1) + 1.5 : (y'=0);
         endmodule",
    );
    // (0,0) → (1,0) at 3 + 4 + 2·1.5, → (1,1) at 2·5.
    assert_eq!(values(&m, 1), [1, 0]);
    assert_eq!(values(&m, 2), [1, 1]);
    assert_eq!(rows(&m, 0), [vec![(1, 10.0), (2, 10.0)]]);
    // Deadlocks get a self-loop of rate 1.
    assert_eq!(rows(&m, 1), [vec![(1, 1.0)]]);
}

#[test]
fn renamed_modules_rename_variables_constants_and_actions() {
    let m = build(
        "dtmc
         const int N = 2;
         const int M = 1;
         module P1
           x1 : [0..N] init 0;
           [step] x1<N -> (x1'=x1+1);
         endmodule
         module P2 = P1 [x1=x2, N=M, step=step2] endmodule",
    );
    // x1 in 0..2, x2 in 0..1, and the two modules interleave (different actions).
    assert_eq!(m.states(), 6);
    assert_eq!(m.valuations.as_ref().unwrap().names, ["x1", "x2"]);
    assert_eq!(rows(&m, 0), [vec![(1, 0.5), (2, 0.5)]]);
    // The same renaming with a shared action synchronises.
    let m = build(
        "dtmc
         module P1
           x1 : [0..2] init 0;
           [step] x1<2 -> (x1'=x1+1);
         endmodule
         module P2 = P1 [x1=x2] endmodule",
    );
    assert_eq!(m.states(), 3);
    assert_eq!(values(&m, 1), [1, 1]);
}

#[test]
fn formulas_expand_before_renaming() {
    // `f` reads `x1`; in P2 (x1 renamed to x2) it reads x2, as PRISM expands formulas first.
    let m = build(
        "mdp
         formula f = x1 < 1;
         module P1
           x1 : [0..1];
           [] f -> (x1'=1);
         endmodule
         module P2 = P1 [x1=x2] endmodule",
    );
    // With `f` read as `x1 < 1` in P2 too, (1,0) would be a second deadlock.
    assert_eq!(m.states(), 4);
    assert_eq!(m.labelling.states("deadlock").map(|d| d.len()), Some(1));
}

#[test]
fn init_block_gives_every_satisfying_valuation_in_storm_order() {
    let m = build(
        "dtmc
         module m
           x : [0..3];
           b : bool;
           [] true -> true;
         endmodule
         init x>=2 | b endinit",
    );
    // Integers first, the first variable fastest; then the Booleans. Variables: b, x.
    let init: Vec<Vec<i64>> = m.initial.iter().map(|&s| values(&m, s)).collect();
    assert_eq!(init, [[0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]);
    assert_eq!(m.initial, [0, 1, 2, 3, 4, 5]);
    let model = warpcheck_prism::load("dtmc module m x : [0..3]; endmodule init x=1 endinit", &[]).unwrap();
    assert_eq!(model.initial_states().len(), 1);
    assert_eq!(model.initial_state(), model.initial_states()[0]);
}

#[test]
fn deadlocks_loop_and_are_labelled() {
    let source = "mdp
         module m
           x : [0..2];
           [] x<2 -> (x'=x+1);
         endmodule
         label \"end\" = x=2;";
    let m = build(source);
    assert_eq!(m.labelling.states("deadlock"), Some(&[2][..]));
    assert_eq!(m.labelling.states("end"), Some(&[2][..]));
    assert_eq!(rows(&m, 2), [vec![(2, 1.0)]]);
    let model = warpcheck_prism::load(source, &[]).unwrap();
    let mut worker = model.successors();
    assert!(!worker.successors(&model.initial_state(), |_, _| {}));
}

#[test]
fn out_of_bounds_update_is_an_error_naming_state_and_command() {
    let e = build_err(
        "dtmc
         module m
           x : [0..2];
           [] true -> (x'=x+1);
         endmodule",
    );
    let text = e.to_string();
    assert!(matches!(e, BuildError::Step { .. }), "{e:?}");
    assert!(text.contains("value 3 is outside the range [0..2] of variable `x`"), "{text}");
    assert!(text.contains("x = 2"), "{text}");
    assert!(text.contains("module m, line 4: [] true -> (x'=x+1);"), "{text}");
}

#[test]
fn probabilities_must_sum_to_one() {
    let e = build_err("dtmc module m x : [0..1]; [] x=0 -> 0.5 : (x'=1) + 0.4 : (x'=0); endmodule");
    assert!(e.to_string().contains("sum to 0.9"), "{e}");
    let e = build_err("mdp module m x : [0..1]; [] x=0 -> -0.5 : (x'=1) + 1.5 : (x'=0); endmodule");
    assert!(e.to_string().contains("not positive"), "{e}");
    let e = build_err("dtmc module m x : [0..3]; [] true -> (x'=mod(x, x)); endmodule");
    assert!(e.to_string().contains("modulo by zero"), "{e}");
}

#[test]
fn rewards_of_states_and_actions() {
    let m = build(
        "mdp
         module m
           x : [0..1];
           [a] x=0 -> (x'=1);
           [] x=0 -> (x'=1);
         endmodule
         rewards \"r\"
           x=0 : 2;
           x=1 : 0.5;
           [a] true : 10;
           [] x=0 : 3;
         endrewards",
    );
    let r = &m.rewards[0];
    assert_eq!(r.name, "r");
    assert_eq!(r.state.as_deref(), Some(&[2.0, 0.5][..]));
    // State 0: the [a] choice and the unlabelled one; state 1: the deadlock loop.
    assert_eq!(r.choice.as_deref(), Some(&[10.0, 3.0, 0.0][..]));
    // A DTMC's fused row carries the mean of its choices' action rewards.
    let m = build(
        "dtmc
         module m
           x : [0..1];
           [a] x=0 -> (x'=1);
           [] x=0 -> (x'=1);
         endmodule
         rewards [a] true : 10; [] true : 3; endrewards",
    );
    assert_eq!(m.rewards[0].choice.as_deref(), Some(&[6.5, 0.0][..]));
    assert_eq!(m.rewards[0].state, None);
}

#[test]
fn expressions_in_guards_and_updates() {
    // `/` is real division; `floor`/`ceil` give integers; `? :`; `=>`; `<=>`; Booleans.
    let m = build(
        "dtmc
         const double h = 1/2;
         module m
           x : [0..10];
           b : bool init true;
           [] x=0 -> h : (x'=floor(7/2)) & (b'=false) + h : (x'=ceil(7/2)) & (b'=(x=0 => b <=> true));
           [] x>0 & x<10 -> (x'=(x>3 ? min(x*2, 10) : max(x-1, 0)));
         endmodule",
    );
    let states: Vec<Vec<i64>> = (0..m.states() as u32).map(|s| values(&m, s)).collect();
    assert_eq!(states, [[1, 0], [0, 3], [1, 4], [0, 2], [1, 8], [0, 1], [1, 10], [0, 0], [0, 4], [0, 8], [0, 10]]);
}

#[test]
fn open_constants_come_from_outside() {
    let source = "dtmc const int N; const double p; const bool f; module m x : [0..N]; [] f & x<N -> p : (x'=x+1) + 1-p : (x'=x); endmodule";
    let c = warpcheck_prism::parse_constants("N=3, p=0.25,f=true").unwrap();
    let m = warpcheck_prism::load(source, &c).unwrap().build(&BuildOptions::default()).unwrap();
    assert_eq!(m.states(), 4);
    assert_eq!(rows(&m, 0), [vec![(0, 0.75), (1, 0.25)]]);
    assert_eq!(warpcheck_prism::parse_constants("").unwrap(), []);
    assert!(warpcheck_prism::parse_constants("N").is_err());
    assert!(warpcheck_prism::parse_constants("N=1,N=2").is_err());
    assert!(warpcheck_prism::parse_constants("1N=1").is_err());
}

#[test]
fn max_states_stops_the_build() {
    let model = warpcheck_prism::load("dtmc module m x : [0..100]; [] x<100 -> (x'=x+1); endmodule", &[]).unwrap();
    let e = model.build(&BuildOptions { max_states: Some(10), valuations: false }).unwrap_err();
    assert_eq!(e, BuildError::TooManyStates { limit: 10 });
}
