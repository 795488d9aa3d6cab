//! Bad input: every static error of a DVE model is a diagnostic with a message a user
//! understands, pointing at the right line and column, never a panic.

use warpcheck_dve::{load, Severity};

/// Loads `source`, expects a diagnostic with `message` at `line:column` (1-based),
/// and checks the rendered form shows the location and a caret.
fn rejects(source: &str, message: &str, line: usize, column: usize) {
    let d = match load(source) {
        Ok(_) => panic!("accepted a bad model, expected `{message}`:\n{source}"),
        Err(d) => d,
    };
    assert_eq!(d.message, message, "for:\n{source}");
    assert_eq!(d.line_column(source), (line, column), "location of `{message}`");
    let rendered = d.render("bad.dve", source);
    assert!(rendered.contains(&format!("bad.dve:{line}:{column}")), "{rendered}");
    assert!(rendered.contains('^'), "{rendered}");
}

const P: &str = "process P { state s, t; init s; trans s -> t {}; }\n";

#[test]
fn undefined_names() {
    rejects(
        "byte x;\nprocess P { state s; init s; trans s -> s { guard y > 0; }; }\nsystem async;",
        "undefined name `y`",
        2,
        51,
    );
    rejects(
        "process P { state s; init s; trans s -> s { effect z = 1; }; }\nsystem async;",
        "undefined name `z`",
        1,
        52,
    );
    rejects(
        "process P { state s; init s; trans s -> s { guard Q.s; }; }\nsystem async;",
        "undefined process `Q`",
        1,
        51,
    );
    rejects(
        "process P { state s; init s; trans s -> s { guard P.u; }; }\nsystem async;",
        "process `P` has no state `u`",
        1,
        53,
    );
    rejects(
        "process P { state s; init s; trans s -> s { guard P->v == 1; }; }\nsystem async;",
        "process `P` has no local variable `v`",
        1,
        54,
    );
    rejects("process P { state s; init s; trans s -> u {}; }\nsystem async;", "process `P` has no state `u`", 1, 41);
    rejects("process P { state s; init u; }\nsystem async;", "process `P` has no state `u`", 1, 27);
    rejects("process P { state s; init s; trans s -> s { sync c!; }; }\nsystem async;", "undefined channel `c`", 1, 50);
    rejects(&format!("{P}system async property Q;"), "undefined property process `Q`", 2, 23);
}

#[test]
fn duplicate_declarations() {
    rejects(&format!("byte x;\nint x;\n{P}system async;"), "duplicate name `x`", 2, 5);
    rejects(&format!("byte P;\n{P}system async;"), "duplicate name `P`", 2, 9);
    rejects(&format!("channel c;\nbyte c;\n{P}system async;"), "duplicate name `c`", 2, 6);
    rejects("process P { byte a; byte a; state s; init s; }\nsystem async;", "duplicate variable `a`", 1, 26);
    rejects("process P { state s, s; init s; }\nsystem async;", "duplicate state `s`", 1, 22);
    rejects(&format!("{P}{P}system async;"), "duplicate name `P`", 2, 9);
}

#[test]
fn constants_and_arrays() {
    rejects(
        "const byte N = 3;\nprocess P { state s; init s; trans s -> s { effect N = 1; }; }\nsystem async;",
        "cannot assign to constant `N`",
        2,
        52,
    );
    rejects(
        "byte n = 2;\nbyte a[n];\nprocess P { state s; init s; }\nsystem async;",
        "an array size must be a constant expression",
        2,
        8,
    );
    rejects("byte a[0];\nprocess P { state s; init s; }\nsystem async;", "invalid array size 0", 1, 8);
    rejects(
        "byte x = 256;\nprocess P { state s; init s; }\nsystem async;",
        "initial value 256 out of range for `byte`",
        1,
        10,
    );
    rejects(
        "int x = -32769;\nprocess P { state s; init s; }\nsystem async;",
        "initial value -32769 out of range for `int`",
        1,
        9,
    );
    rejects("const byte N;\nprocess P { state s; init s; }\nsystem async;", "constant `N` has no value", 1, 12);
    rejects(
        "byte x;\nprocess P { state s; init s; trans s -> s { guard x[0] == 0; }; }\nsystem async;",
        "`x` is not an array",
        2,
        51,
    );
    rejects(
        "byte a[2] = 1;\nprocess P { state s; init s; }\nsystem async;",
        "an array is initialised with a list",
        1,
        13,
    );
    rejects(
        "process P { state s; init s; trans s -> s { effect 3 = 1; }; }\nsystem async;",
        "cannot assign to this expression",
        1,
        52,
    );
    rejects(
        "byte x = 1 / 0;\nprocess P { state s; init s; }\nsystem async;",
        "division by zero in an initial value",
        1,
        10,
    );
}

#[test]
fn channels() {
    rejects(
        "channel {byte, byte} c[0];\nprocess P { state s; init s; trans s -> s { sync c!1; }; }\nsystem async;",
        "wrong number of values for channel `c`: 1 given, 2 expected",
        2,
        45,
    );
    rejects(
        "channel c;\nprocess P { byte x; state s; init s; trans s -> s { sync c!1; }; }\n\
         process Q { state s; init s; trans s -> s { sync c?; }; }\nsystem async;",
        "wrong number of values on channel `c`: sent 1, received 0",
        3,
        45,
    );
    rejects(
        "channel c;\nprocess P { state s; init s; trans s -> s { sync c?1; }; }\nsystem async;",
        "cannot assign to this expression",
        2,
        52,
    );
    rejects(
        "channel c;\nprocess P { state s; init s; trans s -> s { sync c!; }; }\nsystem sync;",
        "channels cannot be used in a `system sync` model",
        2,
        45,
    );
    rejects(
        "byte x;\nprocess P { state s; init s; }\nprocess LTL { state q; init q; trans q -> q { effect x = 1; }; }\nsystem async property LTL;",
        "a property process cannot synchronise or have effects",
        3,
        38,
    );
}

#[test]
fn syntax_errors() {
    rejects("byte x\nprocess P { state s; init s; }\nsystem async;", "expected `;`, found keyword `process`", 2, 1);
    rejects(
        "process P { state s; init s; trans s -> s { guard !x; }; }\nsystem async;",
        "`!` is not an operator in DVE",
        1,
        51,
    );
    rejects("process P { state s; init s; }\n/* never closed", "unterminated block comment", 2, 1);
    rejects("process P { state s; init s; } @\nsystem async;", "unexpected character `@`", 1, 32);
    rejects("process P { state s; init s; }\n", "expected `process` or `system`, found end of file", 2, 1);
    rejects("byte x;\nsystem async;", "expected a declaration or `process`, found keyword `system`", 2, 1);
    rejects(
        "process P { state s; init s; }\nsystem async; byte y;",
        "expected the end of the file after `system ...;`, found keyword `byte`",
        2,
        15,
    );
    rejects(
        "process P { state s; init s; trans -> s {}; }\nsystem async;",
        "the first transition must name its source state",
        1,
        36,
    );
    rejects("process P { init s; }\nsystem async;", "process `P` has no `state` list", 1, 9);
    rejects("process P { state s; }\nsystem async;", "process `P` has no `init` state", 1, 9);
    rejects(
        "process P { state s; init s; trans s -> s { effect x = 1; guard x; }; }\nsystem async;",
        "expected `guard`, `sync`, `effect` or `}` (in this order), found keyword `guard`",
        1,
        59,
    );
    rejects("byte x = 99999999999;\nprocess P { state s; init s; }\nsystem async;", "number literal too large", 1, 10);
    rejects(
        "byte int;\nprocess P { state s; init s; }\nsystem async;",
        "expected a variable name, found keyword `int`",
        1,
        6,
    );
    rejects("process P { state s; init s; }\nsystem;", "expected `async` or `sync`, found `;`", 2, 7);
}

#[test]
fn invariant_expressions_are_checked_in_the_model_scope() {
    let dve = load("byte x; process P { byte y; state s; init s; } system async;").unwrap();
    assert!(dve.expression("x == 1 && P.s && P->y < 2").is_ok());
    assert_eq!(dve.expression("y == 1").unwrap_err().message, "undefined name `y`");
    assert_eq!(dve.expression("x ==").unwrap_err().message, "expected an expression, found end of file");
}

/// Loads `source`, expects it accepted with exactly the warnings `expected` (message,
/// line, column), each rendered as a warning with its location and a caret.
fn warns(source: &str, expected: &[(&str, usize, usize)]) {
    let dve = load(source).unwrap_or_else(|d| panic!("refused: {}\n{source}", d.render("lenient.dve", source)));
    let got: Vec<(&str, usize, usize)> = dve
        .warnings
        .iter()
        .map(|w| {
            let (line, column) = w.line_column(source);
            (w.message.as_str(), line, column)
        })
        .collect();
    assert_eq!(got, expected, "for:\n{source}");
    for w in &dve.warnings {
        assert_eq!(w.severity, Severity::Warning);
        let (line, column) = w.line_column(source);
        let rendered = w.render("lenient.dve", source);
        assert!(rendered.starts_with("warning: "), "{rendered}");
        assert!(rendered.contains(&format!("lenient.dve:{line}:{column}")), "{rendered}");
        assert!(rendered.contains('^'), "{rendered}");
    }
}

#[test]
fn unindexed_arrays_are_their_first_element_with_a_warning() {
    let first = "array `a` used without an index: taken as `a[0]`, its first element";
    warns(
        "byte a[2];\nprocess P { state s; init s; trans s -> s { guard a == 0; effect a = 1; }; }\nsystem async;",
        &[(first, 2, 51), (first, 2, 66)],
    );
    // In a receive, a sent value, an assertion and a remote read `P->b`.
    warns(
        "channel c;\nbyte a[2];\n\
         process P { byte b[3]; state s; init s; assert s: b < 5; trans s -> s { sync c!a; }; }\n\
         process Q { state s; init s; trans s -> s { guard P->b == 0; sync c?a; }; }\nsystem async;",
        &[
            ("array `b` used without an index: taken as `b[0]`, its first element", 3, 51),
            (first, 3, 80),
            ("array `P->b` used without an index: taken as `P->b[0]`, its first element", 4, 54),
            (first, 4, 69),
        ],
    );
    // An indexed array and a scalar give no warning.
    warns("byte a[2]; byte x;\nprocess P { state s; init s; trans s -> s { guard a[1] == x; }; }\nsystem async;", &[]);
}

#[test]
fn initial_values_may_read_earlier_variables_with_a_warning() {
    warns(
        "byte a = 3;\nbyte b[2] = {a + 1, 7};\nint c = b[1] * 2;\nprocess P { state s; init s; }\nsystem async;",
        &[
            ("variable `a` read in an initial value: taken as its initial value 3", 2, 14),
            ("variable `b[1]` read in an initial value: taken as its initial value 7", 3, 9),
        ],
    );
    rejects(
        "byte a;\nbyte b = a;\nprocess P { state s; init s; }\nsystem async;",
        "`a` has no initial value to read in an initial value",
        2,
        10,
    );
    rejects(
        "byte a[2] = {1};\nbyte b = a[1];\nprocess P { state s; init s; }\nsystem async;",
        "`a[1]` has no initial value to read in an initial value",
        2,
        10,
    );
    rejects(
        "byte a = 200;\nbyte b = a + a;\nprocess P { state s; init s; }\nsystem async;",
        "initial value 400 out of range for `byte`",
        2,
        10,
    );
}
