//! Bad domains and problems: each refused with its message at its line and column,
//! never a panic.

use warpcheck_pddl::{parse_domain, parse_problem, FileKind};

const PROBLEM: &str = "(define (problem p) (:domain d)\n  (:objects a - place)\n  (:init (at a))\n  (:goal (at a)))";

fn domain_error(source: &str) -> (String, usize, usize) {
    let e = parse_domain(source).unwrap_err();
    assert_eq!(e.file, FileKind::Domain);
    let (line, column) = e.line_column(source);
    (e.message, line, column)
}

#[test]
fn domain_errors_name_what_and_where() {
    let cases: &[(&str, &str, usize, usize)] = &[
        ("(define (domain d)\n  (:predicates (at ?x))", "unbalanced `(`: the input ends before its `)`", 1, 1),
        ("(define (domain d))\n)", "unbalanced `)`", 2, 1),
        ("(define (domain d)\n (:types place)\n (:predicates (at ?x - place))\n (:action a :parameters (?x - place)\n  :precondition (on ?x) :effect (at ?x)))", "unknown predicate `on`", 5, 18),
        ("(define (domain d)\n (:predicates (at ?x))\n (:action a :parameters (?x)\n  :effect (at ?x ?x)))", "wrong number of arguments: `at` takes 1, given 2", 4, 11),
        ("(define (domain d)\n (:predicates (at ?x - place)))", "undefined type `place`", 2, 24),
        ("(define (domain d)\n (:predicates (at ?x))\n (:action a :parameters ()\n  :effect (at ?y)))", "unknown variable `?y`", 4, 15),
        ("(define (domain d)\n (:predicates (at ?x))\n (:action a :parameters (?x)\n  :effect (increase (fuel) 1)))", "unknown function `fuel`", 4, 22),
        ("(define (domain d)\n (:requirements :strips :durative-actions))", "requirement `:durative-actions` is not supported yet", 2, 25),
        ("(define (domain d)\n (:requirements :magic))", "unknown requirement `:magic`", 2, 17),
        ("(define (domain d)\n (:predicates (at ?x))\n (:action a :parameters (?x)\n  :precondition (> (fuel) 1) :effect (at ?x)))", "unknown function `fuel`", 4, 21),
        ("(define (domain d) (:derived (p) (q)))", "derived predicates are not supported yet", 1, 20),
        ("(define (domain d) (:predicates (p) (p)))", "predicate `p` declared twice", 1, 37),
    ];
    for &(source, message, line, column) in cases {
        assert_eq!(domain_error(source), (message.to_string(), line, column), "{source}");
    }
    assert_eq!(domain_error("(define (domain d)\n  ())"), ("unknown domain section".to_string(), 2, 3));
    let deep = format!("(define (domain d) {}", "(".repeat(1000));
    assert!(domain_error(&deep).0.contains("nested deeper than"));
}

#[test]
fn problem_errors_point_into_the_problem() {
    let d = parse_domain("(define (domain d) (:types place) (:predicates (at ?x - place)))").unwrap();
    assert!(parse_problem(PROBLEM, &d).is_ok());
    let cases: &[(&str, &str, usize, usize)] = &[
        (&PROBLEM.replace("(at a))\n  (:goal", "(at b))\n  (:goal"), "unknown object or constant `b`", 3, 14),
        (&PROBLEM.replace("- place", "- town"), "undefined type `town`", 2, 17),
        (&PROBLEM.replace("(:domain d)", "(:domain e)"), "the problem is for domain `e`, not `d`", 1, 21),
        (
            &PROBLEM.replace("(:goal (at a))", "(:goal (at a))\n (:metric minimize (fuel))"),
            "metrics other than `minimize (total-cost)` and `maximize (- C (+ (total-cost) (* (is-violated p) w) ...))` are not supported yet",
            5,
            2,
        ),
        (
            &PROBLEM.replace("(:goal (at a))", "(:goal (at a))\n (:metric maximize (total-cost))"),
            "expected `(- C (+ (total-cost) (* (is-violated NAME) W) ...))`",
            5,
            20,
        ),
        (
            &PROBLEM.replace("(:goal (at a))", "(:goal (preference p (at a)))"),
            "goal preferences need a net-benefit metric",
            4,
            10,
        ),
        (
            &PROBLEM.replace("(:goal (at a))", "(:goal (preference p (at a)))\n (:metric maximize (- 5 (is-violated q)))"),
            "no goal preference is named `q`",
            5,
            38,
        ),
        (
            &PROBLEM.replace("(:goal (at a))", "(:goal (and (preference p (at a)) (preference p (at a))))\n (:metric maximize (- 5 (is-violated p)))"),
            "the preference `p` is named twice",
            4,
            49,
        ),
        (
            &PROBLEM.replace("(:goal (at a))", "(:goal (preference p (at a)))\n (:metric maximize (- 5 (* (is-violated p) x)))"),
            "expected a non-negative integer weight",
            5,
            44,
        ),
        (&PROBLEM.replace("  (:goal (at a)))", ")"), "the problem has no `:goal`", 1, 1),
    ];
    for &(source, message, line, column) in cases {
        let e = parse_problem(source, &d).unwrap_err();
        assert_eq!(e.file, FileKind::Problem);
        assert_eq!((e.message.as_str(), e.line_column(source)), (message, (line, column)), "{source}");
    }
}

#[test]
fn arbitrary_bytes_never_panic() {
    let domain = "(define (domain d) (:types t) (:predicates (p ?x - t) (q)) (:action a :parameters (?x - t) :precondition (and (p ?x) (not (q))) :effect (and (q) (not (p ?x)))))";
    // Every prefix of valid input: an error, not a panic.
    for end in 0..domain.len() {
        let _ = parse_domain(&domain[..end]);
    }
    let d = parse_domain(domain).unwrap();
    let problem = "(define (problem p) (:domain d) (:objects o - t) (:init (p o)) (:goal (q)))";
    for end in 0..problem.len() {
        let _ = parse_problem(&problem[..end], &d);
    }
    assert!(parse_problem(problem, &d).is_ok());
}
