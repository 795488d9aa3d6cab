//! Semantic rules of DVE, one tiny model each (`tests/models/semantics/`), with the
//! exact counts derived by hand from the semantics (`shared/docs/dve-language.md`).
//! Every model file starts with the rule it pins and the derivation: the reachable
//! states and the steps between them.
//!
//! Counting conventions (DiVinE 2.4): an evaluation error turns the step into an edge
//! to one special error state, which is one extra state and one extra deadlock; each
//! erroring step is one transition. The initial state is level 0 and `levels` is the
//! number of BFS levels (only asserted for models without errors).

use std::path::Path;

use warpcheck_conformance::{explore_all, load_file};
use warpcheck_explore::Stats;
use warpcheck_model::EvalError;

/// The counts a model must produce.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counts {
    states: u64,
    transitions: u64,
    deadlocks: u64,
    /// Steps into the error state (0: the error state is unreachable).
    error_transitions: u64,
    accepting: u64,
    assertion_violations: u64,
}

/// Explores `tests/models/semantics/{name}` and checks its counts (and `levels`
/// when given) exactly, and that the error fields agree with each other.
fn check(name: &str, want: Counts, levels: Option<u32>) -> Stats {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/semantics").join(name);
    let stats = explore_all(&load_file(&path));
    let got = Counts {
        states: stats.states,
        transitions: stats.transitions,
        deadlocks: stats.deadlocks,
        error_transitions: stats.error_transitions,
        accepting: stats.accepting,
        assertion_violations: stats.assertion_violations,
    };
    assert_eq!(got, want, "{name}: counts differ from the hand derivation");
    assert!(!stats.truncated, "{name}: exploration truncated");
    let errors = want.error_transitions > 0;
    assert_eq!(stats.error_state, errors, "{name}: error_state");
    assert_eq!(stats.first_error.is_some(), errors, "{name}: first_error = {:?}", stats.first_error);
    if let Some(levels) = levels {
        assert_eq!(stats.levels, levels, "{name}: BFS levels");
    }
    stats
}

/// The error of `stats.first_error`.
fn first_error(stats: &Stats) -> EvalError {
    stats.first_error.expect("an evaluation error").1
}

fn assert_out_of_range(stats: &Stats, value: i32) {
    match first_error(stats) {
        EvalError::OutOfRange { value: v, .. } => assert_eq!(v, value),
        e => panic!("expected an out-of-range assignment of {value}, got {e:?}"),
    }
}

fn assert_index_error(stats: &Stats) {
    match first_error(stats) {
        EvalError::IndexOutOfBounds { index, len, .. } => {
            assert_eq!(len, 3);
            assert!(index == -1 || index == 3, "index {index}");
        }
        e => panic!("expected an index out of bounds, got {e:?}"),
    }
}

fn no_error(states: u64, transitions: u64, deadlocks: u64) -> Counts {
    Counts { states, transitions, deadlocks, ..Counts::default() }
}

fn with_errors(states: u64, transitions: u64, deadlocks: u64, error_transitions: u64) -> Counts {
    Counts { states, transitions, deadlocks, error_transitions, ..Counts::default() }
}

// ---- value ranges and arithmetic ----

#[test]
fn byte_holds_255_but_not_256() {
    let stats = check("byte_overflow.dve", with_errors(3, 2, 1, 1), None);
    assert_out_of_range(&stats, 256);
}

#[test]
fn byte_holds_0_but_not_minus_1() {
    let stats = check("byte_underflow.dve", with_errors(3, 2, 1, 1), None);
    assert_out_of_range(&stats, -1);
}

#[test]
fn byte_constants_out_of_range_are_errors() {
    let stats = check("byte_range.dve", with_errors(3, 3, 2, 2), None);
    assert!(matches!(first_error(&stats), EvalError::OutOfRange { value: 256 | -1, .. }));
}

#[test]
fn int_holds_32767_but_not_32768() {
    let stats = check("int_overflow.dve", with_errors(3, 2, 1, 1), None);
    assert_out_of_range(&stats, 32768);
}

#[test]
fn int_holds_minus_32768_but_not_minus_32769() {
    let stats = check("int_underflow.dve", with_errors(3, 2, 1, 1), None);
    assert_out_of_range(&stats, -32769);
}

#[test]
fn expressions_are_evaluated_in_32_bits() {
    check("arithmetic_32bit.dve", no_error(5, 4, 1), Some(5));
}

// ---- division by zero and array bounds ----

#[test]
fn division_and_remainder_by_zero_in_a_guard() {
    let stats = check("division_by_zero_guard.dve", with_errors(4, 4, 2, 2), None);
    assert_eq!(first_error(&stats), EvalError::DivisionByZero);
}

#[test]
fn division_and_remainder_by_zero_in_an_effect() {
    let stats = check("division_by_zero_effect.dve", with_errors(4, 4, 2, 2), None);
    assert_eq!(first_error(&stats), EvalError::DivisionByZero);
}

#[test]
fn index_out_of_bounds_in_a_guard() {
    let stats = check("index_out_of_bounds_guard.dve", with_errors(3, 3, 2, 2), None);
    assert_index_error(&stats);
}

#[test]
fn index_out_of_bounds_in_an_assignment_target() {
    let stats = check("index_out_of_bounds_target.dve", with_errors(3, 3, 2, 2), None);
    assert_index_error(&stats);
}

#[test]
fn index_out_of_bounds_in_an_assigned_value() {
    let stats = check("index_out_of_bounds_value.dve", with_errors(3, 3, 2, 2), None);
    assert_index_error(&stats);
}

// ---- expressions and effects ----

#[test]
fn and_or_imply_short_circuit() {
    check("short_circuit.dve", no_error(3, 2, 2), Some(2));
}

#[test]
fn undecided_left_operand_evaluates_the_right_one() {
    let stats = check("short_circuit_right_evaluated.dve", with_errors(3, 4, 2, 3), None);
    assert_index_error(&stats);
}

#[test]
fn effects_run_left_to_right() {
    check("effect_order.dve", no_error(3, 2, 1), Some(3));
}

#[test]
fn omitted_source_state_reuses_the_previous_source() {
    check("omitted_source.dve", no_error(5, 6, 2), Some(3));
}

// ---- DiVinE 2.4's leniencies (accepted with a warning) ----

/// The warnings of a semantic-rule model: (message, line, column).
fn warnings(name: &str) -> Vec<(String, usize, usize)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/semantics").join(name);
    let source = std::fs::read_to_string(&path).unwrap();
    load_file(&path)
        .warnings
        .iter()
        .map(|w| {
            let (line, column) = w.line_column(&source);
            (w.message.clone(), line, column)
        })
        .collect()
}

#[test]
fn an_unindexed_array_is_its_first_element() {
    check("unindexed_array.dve", no_error(7, 6, 1), Some(7));
    let first = |line, column| {
        ("array `e` used without an index: taken as `e[0]`, its first element".to_string(), line, column)
    };
    assert_eq!(
        warnings("unindexed_array.dve"),
        [first(21, 25), first(22, 52), first(23, 36), first(24, 25), first(25, 24)]
    );
}

#[test]
fn an_initial_value_reads_the_initial_values_of_earlier_variables() {
    check("initial_value_reads_variable.dve", no_error(4, 3, 1), Some(4));
    let read = |name: &str, value, what: &str, line, column| {
        (format!("variable `{name}` read in {what}: taken as its initial value {value}"), line, column)
    };
    assert_eq!(
        warnings("initial_value_reads_variable.dve"),
        [
            read("a", 3, "an initial value", 13, 14),
            read("b[1]", 7, "an initial value", 14, 9),
            read("a", 3, "a constant's value", 15, 16),
            read("c", 14, "an initial value", 18, 14),
            read("a", 3, "an initial value", 18, 18),
        ]
    );
}

// ---- committed states ----

#[test]
fn committed_state_blocks_other_processes() {
    check("committed.dve", no_error(8, 8, 1), Some(5));
}

#[test]
fn committed_rendezvous_needs_both_partners_committed() {
    check("committed_rendezvous.dve", no_error(6, 5, 2), Some(4));
}

// ---- rendezvous ----

#[test]
fn rendezvous_pairs_sender_and_receiver() {
    check("rendezvous.dve", no_error(3, 2, 2), Some(2));
}

#[test]
fn rendezvous_passes_a_value() {
    check("rendezvous_value.dve", no_error(3, 2, 1), Some(3));
}

#[test]
fn rendezvous_effects_run_value_receiver_sender() {
    check("rendezvous_effect_order.dve", no_error(3, 2, 1), Some(3));
}

#[test]
fn process_cannot_rendezvous_with_itself() {
    check("rendezvous_self.dve", no_error(2, 1, 1), Some(2));
}

#[test]
fn typed_rendezvous_passes_several_values() {
    check("rendezvous_typed.dve", no_error(3, 2, 1), Some(3));
}

// ---- buffered channels ----

#[test]
fn buffered_channel_is_fifo() {
    check("buffered_fifo.dve", no_error(7, 7, 1), Some(6));
}

#[test]
fn buffered_channel_items_keep_their_fields() {
    check("buffered_fifo_typed.dve", no_error(7, 7, 1), Some(6));
}

#[test]
fn buffered_send_blocks_when_full_and_receive_when_empty() {
    check("buffered_bounds.dve", no_error(3, 2, 1), Some(3));
}

// ---- other processes' states and variables ----

#[test]
fn guards_read_process_states_and_remote_variables() {
    check("remote_state_and_variable.dve", no_error(7, 9, 0), Some(6));
}

// ---- assertions ----

#[test]
fn assertion_violations_are_counted_per_state() {
    check("assert.dve", Counts { assertion_violations: 3, ..no_error(10, 9, 5) }, Some(6));
}

// ---- property process ----

#[test]
fn property_product_with_stuttering_and_acceptance() {
    check("property.dve", Counts { accepting: 2, ..no_error(6, 6, 1) }, Some(4));
}

// ---- synchronous systems ----

#[test]
fn sync_system_steps_every_process_in_order() {
    check("sync_system.dve", no_error(4, 3, 1), Some(4));
}

#[test]
fn sync_system_steps_are_all_combinations() {
    check("sync_choices.dve", no_error(7, 6, 6), Some(2));
}

// ---- declarations ----

#[test]
fn constants_initialisers_and_default_zero() {
    check("constants_and_initialisers.dve", no_error(5, 4, 1), Some(5));
}

/// With `Overflow::Wrap` (the rule of DiVinE's compiled models) the byte wraps:
/// x = 254, 255, 0, 1, ..., 253 and back to 254: 256 states on one cycle, no error.
#[test]
fn byte_overflow_wraps_in_wrap_mode() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("models/semantics/byte_overflow.dve");
    let mut model = load_file(&path);
    model.model.overflow = warpcheck_dve::Overflow::Wrap;
    let stats = explore_all(&model);
    assert_eq!((stats.states, stats.transitions, stats.deadlocks, stats.error_transitions), (256, 256, 0, 0));
}
