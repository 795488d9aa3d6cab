//! Storm's DRN format ("direct encoding"), read and written, for DTMCs, CTMCs and MDPs.
//!
//! ```text
//! // Exported by storm
//! @type: CTMC
//! @value_type: double
//! @parameters
//!
//! @reward_models
//! customers
//! @nr_states
//! 66
//! @nr_choices
//! 66
//! @model
//! state 0 !12.5 [0] init minimum
//!     action 0 [0]
//!         1 : 10
//!         2 : 2.5
//! ```
//!
//! (Storm indents `action` lines with one tab and transitions with two; the reader takes
//! any white space.)
//!
//! What the reader takes:
//! - A header of `@type: DTMC|CTMC|MDP`, `@value_type: double` (optional), an empty
//!   `@parameters` line, `@reward_models` with the names on the next line (separated by
//!   white space; a line of white space only names one unnamed model, as Storm writes
//!   it), `@nr_states` and `@nr_choices` (optional) with their counts on the next line,
//!   then `@model`. Lines starting with `//` are comments anywhere (Storm writes state
//!   valuations as such comments).
//! - `state <i>` for i = 0, 1, ... in order, then in a CTMC optionally `!<exit rate>`
//!   (checked against the sum of the state's rates), optionally `[r1, r2, ...]` (one state
//!   reward per reward model; absent means zeros), then the state's labels, plain or in
//!   double quotes (`"a label"`). The label `init` marks the initial states.
//! - `action <k>` (k = 0, 1, ... within the state; exactly one in a DTMC or CTMC) or
//!   `action <name>` (named choice), optionally followed by `[g1, g2, ...]` (action
//!   rewards), then lines `<target> : <probability or rate>`. Targets may come in any
//!   order (they are sorted); one listed twice is an error.
//!
//! The model read has the labels `init` first, `deadlock` second (when some state has
//! them) and then the others alphabetically; a label that no state carries cannot appear
//! in DRN. A reward vector that is all zeros is read as absent (DRN writes `0` for both).
//! No state valuations (DRN has none), no parametric or interval models, no Markov
//! automata or POMDPs.
//!
//! The writer writes Storm's layout byte for byte (numbers as C's `%.17g`, which reads back
//! bit-exactly; labels of a state sorted; a label with white space quoted), except the
//! first comment line, which names warpcheck instead of Storm. It cannot write transition
//! rewards that differ within a row (DRN has action rewards only: equal ones are written
//! as the action reward), a label with a `"`, or an action name that is a number or has
//! white space or `[`.

mod read;
mod write;

pub use read::read;
pub use write::write;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{Error, Problem};
    use crate::sparse::{ModelType, RewardModel, SparseModel};

    fn read_str(text: &str) -> Result<SparseModel, Error> {
        read(text.as_bytes(), "t.drn")
    }

    /// The line, column and problem of a malformed file's error.
    fn malformed(text: &str) -> (u64, usize, Problem) {
        match read_str(text) {
            Err(Error::Malformed { line, column, problem, .. }) => (line, column, problem),
            other => panic!("expected a Malformed error, got {other:?}"),
        }
    }

    const HEADER: &str =
        "@type: MDP\n@value_type: double\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\n";

    fn mdp(body: &str) -> String {
        format!("{HEADER}{body}")
    }

    const GOOD: &str = "state 0 init\n\taction 0\n\t\t1 : 1\n\taction 1\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n";

    #[test]
    fn reads_a_small_mdp() {
        let m = read_str(&mdp(GOOD)).unwrap();
        assert_eq!((m.states(), m.choices(), m.transitions()), (2, 3, 4));
        assert_eq!(m.initial, [0]);
        assert_eq!(m.labelling.states("goal"), Some(&[1][..]));
        assert_eq!(m.row(1).collect::<Vec<_>>(), [(0, 0.5), (1, 0.5)]);
    }

    #[test]
    fn sorts_unsorted_targets() {
        let m = read_str(&mdp(&GOOD.replace("\t\t0 : 0.5\n\t\t1 : 0.5", "\t\t1 : 0.25\n\t\t0 : 0.75"))).unwrap();
        assert_eq!(m.row(1).collect::<Vec<_>>(), [(0, 0.75), (1, 0.25)]);
    }

    #[test]
    fn quoted_labels_and_comments() {
        let text = mdp(&GOOD.replace("state 1 goal", "// a comment\nstate 1 \"a goal\" \"b\"\n//[x=1]"));
        let m = read_str(&text).unwrap();
        assert_eq!(m.labelling.states("a goal"), Some(&[1][..]));
        assert_eq!(m.labelling.states("b"), Some(&[1][..]));
    }

    #[test]
    fn named_actions() {
        let text = mdp(&GOOD
            .replace("\taction 1", "\taction go")
            .replace("state 1 goal\n\taction 0", "state 1\n\taction stay"));
        let m = read_str(&text).unwrap();
        let names: Vec<&str> = m.row_actions.iter().map(|&a| m.action_names[a as usize].as_str()).collect();
        assert_eq!(names, ["", "go", "stay"]);
    }

    #[test]
    fn ctmc_exit_rates_and_rewards() {
        let text = "@type: CTMC\n@parameters\n\n@reward_models\nr q \n@nr_states\n2\n@nr_choices\n2\n@model\n\
                    state 0 !3 [1, 0] init\n\taction 0 [0, 2.5]\n\t\t1 : 3\nstate 1 !0.5 [2, 0]\n\taction 0 [0, 0]\n\t\t0 : 0.5\n";
        let m = read_str(text).unwrap();
        assert_eq!(m.model_type, ModelType::Ctmc);
        assert_eq!(m.rewards.len(), 2);
        assert_eq!(m.rewards[0].state.as_deref(), Some(&[1.0, 2.0][..]));
        assert_eq!(m.rewards[0].choice, None);
        assert_eq!(m.rewards[1].state, None);
        assert_eq!(m.rewards[1].choice.as_deref(), Some(&[2.5, 0.0][..]));
        let bad = text.replace("!0.5", "!0.6");
        assert!(matches!(malformed(&bad), (14, 10, Problem::ExitRate { .. })));
    }

    #[test]
    fn header_errors() {
        assert_eq!(malformed("@type: LTS\n").2, Problem::UnknownType("LTS".into()));
        assert_eq!(malformed("@type: LTS\n").0, 1);
        assert_eq!(malformed("@type: LTS\n").1, 8);
        assert!(matches!(malformed("@type: MA\n"), (1, 8, Problem::Unsupported(_))));
        assert!(matches!(malformed("@type: DTMC\n@value_type: rational\n"), (2, 14, Problem::Unsupported(_))));
        assert!(matches!(malformed("@type: DTMC\n@parameters\np q\n"), (3, 1, Problem::Unsupported(_))));
        assert!(matches!(malformed("@type: DTMC\n@nr_states\nmany\n"), (3, 1, Problem::BadInteger(_))));
        assert!(matches!(malformed("@type: DTMC\n@model\n"), (2, 1, Problem::Expected { .. })));
        assert!(matches!(malformed("@nr_states\n1\n@model\n"), (3, 1, Problem::Expected { .. })));
        assert!(matches!(malformed("@type: DTMC\n@type: DTMC\n"), (2, 1, Problem::Misplaced(_))));
        assert!(matches!(malformed("@type: DTMC\nstate 0\n"), (2, 1, Problem::Expected { .. })));
        assert!(matches!(malformed("@type: DTMC\n"), (2, 1, Problem::Expected { .. })));
    }

    #[test]
    fn body_errors_with_their_places() {
        // Line 12 is the first line after `@model`.
        let case = |from: &str, to: &str| malformed(&mdp(&GOOD.replacen(from, to, 1)));
        assert_eq!(case("1 : 1", "1 : x"), (14, 7, Problem::BadNumber("x".into())));
        assert_eq!(case("1 : 1", "1 : 0"), (14, 7, Problem::BadWeight(0.0)));
        assert_eq!(case("1 : 1", "1 : -1"), (14, 7, Problem::BadWeight(-1.0)));
        assert_eq!(case("1 : 1", "1 : inf"), (14, 7, Problem::BadWeight(f64::INFINITY)));
        assert_eq!(case("1 : 1", "-1 : 1"), (14, 3, Problem::BadInteger("-1".into())));
        assert!(matches!(case("1 : 1", "2 : 1"), (14, 3, Problem::OutOfRange { index: 2, .. })));
        assert!(matches!(case("1 : 1", "1 1"), (14, 3, Problem::Expected { .. })));
        assert!(matches!(case("1 : 1", "1 :"), (14, 6, Problem::Expected { .. })));
        assert_eq!(case("state 1", "state 2"), (18, 7, Problem::StateOutOfOrder { expected: 1, found: 2 }));
        assert_eq!(case("state 1", "state 0"), (18, 7, Problem::StateOutOfOrder { expected: 1, found: 0 }));
        assert_eq!(case("\taction 1", "\taction 2"), (15, 9, Problem::ChoiceOutOfOrder { expected: 1, found: 2 }));
        assert_eq!(case("\t\t0 : 0.5\n\t\t1 : 0.5", "\t\t1 : 0.5\n\t\t1 : 0.5"), (17, 3, Problem::DuplicateTarget(1)));
        assert_eq!(
            case("\t\t0 : 0.5\n\t\t1 : 0.5", "\t\t1 : 0.5\n\t\t0 : 0.25\n\t\t1 : 0.25"),
            (18, 3, Problem::DuplicateTarget(1))
        );
        assert_eq!(case("0 : 0.5", "0 : 0.4"), (15, 2, Problem::NotStochastic(0.9)));
        assert!(matches!(case("state 0 init", "state 0 !2 init"), (12, 9, Problem::Misplaced(_))));
        assert!(matches!(
            case("state 0 init", "state 0 [1] init"),
            (12, 9, Problem::RewardCount { expected: 0, found: 1 })
        ));
        assert!(matches!(case("state 0 init", "state 0 \"init"), (12, 14, Problem::Expected { .. })));
        assert!(matches!(case("state 0 init", "state 0 init \"\""), (12, 14, Problem::Expected { .. })));
        assert!(matches!(case("state 0 init", "state 0 in\"it"), (12, 9, Problem::Expected { .. })));
        assert!(matches!(case("\taction 1", "\taction go on"), (15, 9, Problem::Expected { .. })));
        assert!(matches!(case("state 0 init\n\taction 0", "state 0 init"), (13, 3, Problem::Misplaced(_))));
        assert!(matches!(case("\t\t1 : 1\n\taction 1", "\taction 1"), (13, 2, Problem::Misplaced(_))));
        assert_eq!(case("state 1 goal\n\taction 0\n\t\t1 : 1\n", "state 1 goal\n"), (18, 1, Problem::NoTransitions(1)));
        assert!(matches!(
            case("state 1 goal\n\taction 0\n\t\t1 : 1\n", ""),
            (8, 1, Problem::CountMismatch { header: 2, found: 1, .. })
        ));
        let extra_choice = malformed(&mdp(&format!("{GOOD}\taction 1\n\t\t0 : 1\n")));
        assert_eq!(extra_choice, (10, 1, Problem::CountMismatch { what: "choices", header: 3, found: 4 }));
        assert!(matches!(case("state 0", "action 0\nstate 0"), (12, 1, Problem::Misplaced(_))));
        assert!(matches!(case("state 0", "0 : 1\nstate 0"), (12, 1, Problem::Misplaced(_))));
        let mut bytes = mdp("state 0 init\n\taction 0\n\t\t1 : 1\n").into_bytes();
        bytes.extend_from_slice(b"ab\xff\n");
        assert!(matches!(
            read(&bytes[..], "t.drn"),
            Err(Error::Malformed { line: 15, column: 3, problem: Problem::NotUtf8, .. })
        ));
    }

    #[test]
    fn dtmc_has_one_action_per_state() {
        let text = "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n1\n@model\nstate 0 init\n\taction 0\n\t\t0 : 1\n\taction 1\n\t\t0 : 1\n";
        assert!(matches!(malformed(text), (12, 2, Problem::Misplaced(_))));
    }

    #[test]
    fn missing_initial_state_is_invalid() {
        let text = mdp(&GOOD.replace("state 0 init", "state 0"));
        assert!(matches!(read_str(&text), Err(Error::Invalid { source: crate::sparse::Invalid::NoInitial, .. })));
    }

    #[test]
    fn writes_storm_layout() {
        let text = "@type: CTMC\n@parameters\n\n@reward_models\nr \n@nr_states\n2\n@nr_choices\n2\n@model\n\
                    state 0 !0.30000000000000004 [1] init\n\taction 0 [0]\n\t\t1 : 0.10000000000000001\n\t\t0 : 0.20000000000000001\n\
                    state 1 !1 [0] \"two words\"\n\taction 0 [0.5]\n\t\t0 : 1\n";
        let m = read_str(text).unwrap();
        let mut out = Vec::new();
        write(&m, &mut out, "out.drn").unwrap();
        let expected = "// Exported by warpcheck\n// Original model type: CTMC\n@type: CTMC\n@value_type: double\n@parameters\n\n\
                        @reward_models\nr \n@nr_states\n2\n@nr_choices\n2\n@model\n\
                        state 0 !0.30000000000000004 [1] init\n\taction 0 [0]\n\t\t0 : 0.20000000000000001\n\t\t1 : 0.10000000000000001\n\
                        state 1 !1 [0] \"two words\"\n\taction 0 [0.5]\n\t\t0 : 1\n";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn writer_refuses_what_drn_cannot_hold() {
        let mut m = read_str(&mdp(GOOD)).unwrap();
        m.rewards.push(RewardModel {
            name: "t".into(),
            transition: Some(vec![1.0, 1.0, 2.0, 1.0]),
            ..Default::default()
        });
        let err = write(&m, Vec::new(), "x.drn").unwrap_err();
        assert!(matches!(err, Error::Unwritable { .. }), "{err}");
        m.rewards[0].transition = Some(vec![1.0, 2.0, 2.0, 3.0]);
        let mut out = Vec::new();
        write(&m, &mut out, "x.drn").unwrap();
        let back = read(&out[..], "x.drn").unwrap();
        assert_eq!(back.rewards[0].choice.as_deref(), Some(&[1.0, 2.0, 3.0][..]));
        m.labelling.set("a\"b", vec![0]);
        assert!(matches!(write(&m, Vec::new(), "x.drn"), Err(Error::Unwritable { .. })));
    }
}
