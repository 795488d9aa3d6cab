//! Every kind of bad input ends in a diagnostic at the right line and column (never a
//! panic): syntax, names, types, duplicates, renamings, updates of other modules'
//! variables, bounds and initial values, constants from outside.

/// The error's message and 1-based line and column, after rendering it (which must
/// name the file and position).
fn error(source: &str, constants: &str) -> (String, usize, usize) {
    let constants = warpcheck_prism::parse_constants(constants).expect("constants");
    let d = match warpcheck_prism::load(source, &constants) {
        Ok(_) => panic!("no error for:\n{source}"),
        Err(d) => d,
    };
    let (line, column) = d.line_column(source);
    let text = d.render("m.prism", source);
    assert!(text.contains(&format!("m.prism:{line}:{column}")), "{text}");
    assert!(text.starts_with("error: "), "{text}");
    (d.message, line, column)
}

fn assert_error(source: &str, constants: &str, message: &str, line: usize, column: usize) {
    let (m, l, c) = error(source, constants);
    assert!(m.contains(message), "expected `{message}`, got `{m}`");
    assert_eq!((l, c), (line, column), "position of `{m}`");
}

const MODEL: &str = "dtmc\nmodule m\n  x : [0..3];\n  [] x<3 -> (x'=x+1);\nendmodule\n";

#[test]
fn syntax_errors() {
    assert_error("dtmc\nmodule m\n  x : [0..3]\n  [] true -> true;\nendmodule", "", "expected `;`", 4, 3);
    assert_error("dtmc\nmodule m\n  [] x=0 -> (x'=1) + ;\nendmodule", "", "expected an expression", 3, 22);
    assert_error("dtmc\nfoo", "", "expected a declaration", 2, 1);
    assert_error("dtmc\nconst int min = 1;", "", "`min` is a reserved word", 2, 11);
    assert_error("dtmc\nlabel goal = true;", "", "expected a label name", 2, 7);
    assert_error("dtmc\nmdp", "", "model type is given twice", 2, 1);
    assert_error("dtmc\nmodule m\n x : int;\nendmodule", "", "unbounded variables", 3, 6);
    assert_error("dtmc\n\n  @", "", "unexpected character `@`", 3, 3);
    let deep = format!("dtmc\nconst int x = {}1{};", "(".repeat(5000), ")".repeat(5000));
    let (m, line, _) = error(&deep, "");
    assert!(m.contains("nested too deeply") && line == 2, "{m}");
}

#[test]
fn unknown_and_duplicate_names() {
    assert_error("dtmc\nmodule m\n  x : [0..1];\n  [] y=0 -> true;\nendmodule", "", "unknown name `y`", 4, 6);
    assert_error("dtmc\nconst int N = 1;\nconst int N = 2;", "", "duplicate name `N`", 3, 11);
    assert_error("dtmc\nconst int x = 1;\nmodule m\n  x : [0..1];\nendmodule", "", "duplicate name `x`", 4, 3);
    assert_error("dtmc\nmodule m\nendmodule\nmodule m\nendmodule", "", "duplicate module `m`", 4, 8);
    assert_error("dtmc\nlabel \"a\" = true;\nlabel \"a\" = false;", "", "duplicate label \"a\"", 3, 7);
    assert_error("dtmc\nlabel \"init\" = true;", "", "reserved", 2, 7);
    assert_error("dtmc\nformula f = g;\nformula g = f + 1;\nconst int c = f;", "", "uses itself", 3, 13);
    assert_error("dtmc\nconst int a = b;\nconst int b = a;", "", "depends on itself", 2, 11);
    assert_error(
        &format!("{MODEL}rewards \"r\"\n  [go] true : 1;\nendrewards"),
        "",
        "no command has the action `go`",
        7,
        4,
    );
}

#[test]
fn type_errors() {
    assert_error(
        "dtmc\nmodule m\n  x : [0..1];\n  [] x+true=1 -> true;\nendmodule",
        "",
        "expected a number, found bool",
        4,
        8,
    );
    assert_error("dtmc\nmodule m\n  x : [0..1];\n  [] x -> true;\nendmodule", "", "expected a bool, found int", 4, 6);
    assert_error(
        "dtmc\nmodule m\n  x : [0..1];\n  [] true -> (x'=0.5);\nendmodule",
        "",
        "expected an int for `x`",
        4,
        18,
    );
    assert_error("dtmc\nmodule m\n  b : bool;\n  [] true -> (b'=1);\nendmodule", "", "expected a bool for `b`", 4, 18);
    assert_error("dtmc\nconst int n = 1.5;", "", "expected an int, found double", 2, 15);
    assert_error("dtmc\nconst double p = true;", "", "expected a number, found bool", 2, 18);
    assert_error("dtmc\nmodule m\n  x : [0..1];\n  [] true -> true : (x'=1);\nendmodule", "", "probability", 4, 14);
    assert_error("dtmc\nconst int c = mod(1, 2.0);", "", "expected an int, found double", 2, 22);
    assert_error("dtmc\nconst int c = floor(1, 2);", "", "takes 1 argument", 2, 15);
    assert_error("dtmc\nconst bool c = true = 1;", "", "expected a bool to compare with", 2, 23);
    assert_error("dtmc\nconst int c = mod(1, 0);", "", "modulo by zero", 2, 15);
}

#[test]
fn variables_bounds_and_updates() {
    assert_error("dtmc\nmodule m\n  x : [0..3] init 5;\nendmodule", "", "initial value 5 of `x` is outside", 3, 19);
    assert_error("dtmc\nmodule m\n  x : [3..1];\nendmodule", "", "empty range [3..1]", 3, 8);
    assert_error(
        "dtmc\nmodule m\n  x : [0..y];\nendmodule\nmodule n\n  y : [0..1];\nendmodule",
        "",
        "`y` is a variable",
        3,
        11,
    );
    assert_error(
        "dtmc\nmodule m\n  x : [0..1];\nendmodule\nmodule n\n  y : [0..1];\n  [] true -> (x'=1);\nendmodule",
        "",
        "module `n` cannot update variable `x` of another module",
        7,
        15,
    );
    assert_error(
        "dtmc\nmodule m\n  x : [0..1];\n  [] true -> (x'=1) & (x'=0);\nendmodule",
        "",
        "assigned twice",
        4,
        24,
    );
    assert_error(
        "dtmc\nmodule m\n  x : [0..1] init 1;\nendmodule\ninit x=0 endinit",
        "",
        "has an initial value, but the model has an `init ... endinit` block",
        3,
        3,
    );
    assert_error(
        "mdp\nglobal g : [0..2];\nmodule a\n  [s] true -> (g'=1);\nendmodule\nmodule b\n  [s] true -> (g'=2);\nendmodule",
        "",
        "global variable `g` is updated by modules `a` and `b`, which synchronise on `s`",
        7,
        3,
    );
    assert_error("dtmc\nmodule m\n  x : [0..1];\nendmodule\ninit x=5 & false endinit", "", "no state satisfies", 5, 6);
}

#[test]
fn renaming_errors() {
    assert_error("dtmc\nmodule m2 = m [x=y] endmodule", "", "no module `m`", 2, 13);
    assert_error(
        &format!("{MODEL}module n = m [y=z] endmodule"),
        "",
        "variable `x` of module `m` is not renamed",
        6,
        8,
    );
    assert_error(&format!("{MODEL}module n = m [x=y, x=z] endmodule"), "", "`x` is renamed twice", 6, 20);
    assert_error(
        &format!("{MODEL}module n = m [x=y] endmodule\nmodule o = n [y=z] endmodule"),
        "",
        "is itself a renaming",
        7,
        12,
    );
    // An error inside a renamed module's command points into the base module, with a note.
    let source = format!("{MODEL}const int k = 1;\nmodule n = m [x=k] endmodule");
    let (m, line, column) = error(&source, "");
    assert!(m.contains("duplicate name `k`"), "{m}");
    assert_eq!((line, column), (7, 17));
}

#[test]
fn constants_from_outside() {
    let source = "dtmc\nconst int N;\nconst bool b;\nconst double p = 0.5;\n";
    assert_error(source, "", "constant `N` has no value", 2, 11);
    assert_error(source, "N=2", "constant `b` has no value", 3, 12);
    assert_error(source, "N=abc,b=true", "`abc` is not an int", 2, 11);
    assert_error(source, "N=1,b=yes", "`yes` is not a bool", 3, 12);
    assert_error(source, "N=1,b=true,p=0.1", "already has a value", 4, 14);
    let (m, _, _) = error(source, "N=1,b=true,Q=3");
    assert!(m.contains("the model has no constant `Q`"), "{m}");
}
