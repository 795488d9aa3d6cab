//! Regression inputs for the DVE front end, from fuzzing it (`fuzz/`, target `dve`)
//! and from reviewing the code the fuzzer exercises: `load` must return on each of
//! them, either with a model or with a diagnostic whose message makes sense and whose
//! rendering does not panic.
//!
//! A stack overflow aborts the whole process and not just the test thread. So each
//! input is loaded in a child process: this test binary, run again on the one test
//! with `WARPCHECK_FUZZ_CHILD` set. The parent checks how the child ended, so an input
//! that overflows the stack fails only its own test. In the child the input is loaded on
//! the test harness's thread, with its default 2 MiB stack (unless `RUST_MIN_STACK` is
//! set).

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const CHILD: &str = "WARPCHECK_FUZZ_CHILD";

/// The end of a model whose first global is being declared.
const TAIL: &str = ";\nprocess P { state s; init s; }\nsystem async;\n";

/// Loads `source` and checks that it gives a model or a sensible diagnostic.
fn check_load(source: &str) {
    match warpcheck_dve::load(source) {
        Ok(_) => {}
        Err(d) => {
            assert!(!d.message.trim().is_empty(), "diagnostic without a message: {d:?}");
            assert!(
                d.span.start <= d.span.end && d.span.end as usize <= source.len(),
                "diagnostic `{}` has span {:?} outside the source ({} bytes)",
                d.message,
                d.span,
                source.len()
            );
            let rendered = d.render("fuzz.dve", source);
            assert!(rendered.contains(&d.message), "{rendered}");
            eprintln!("rejected with: {}", d.message);
        }
    }
}

/// Runs `body` in a child process (this binary, filtered to test `name`) and fails if
/// the child does not finish within `limit` or does not exit successfully (a panic, a
/// stack overflow, an abort or a kill).
fn isolated(name: &str, limit: Duration, body: impl FnOnce()) {
    if std::env::var_os(CHILD).is_some() {
        let start = Instant::now();
        body();
        let took = start.elapsed();
        assert!(took <= limit, "`{name}` took {took:?}, more than {limit:?}");
        return;
    }
    let exe = std::env::current_exe().expect("path of the test binary");
    let mut child = Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1", "--include-ignored"])
        .env(CHILD, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the child test process");
    let drain = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = pipe.read_to_string(&mut text);
            text
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    // The child checks `limit` itself; this is a backstop for hangs.
    let backstop = limit * 3 + Duration::from_secs(30);
    let deadline = Instant::now() + backstop;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for the child test process") {
            break Some(status);
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let output = format!("{}{}", stdout.join().unwrap(), stderr.join().unwrap());
    let tail: String = {
        let lines: Vec<&str> = output.lines().collect();
        lines[lines.len().saturating_sub(30)..].join("\n")
    };
    match status {
        None => panic!("`{name}` did not finish within {backstop:?} (killed)\n{tail}"),
        Some(status) if status.success() => {}
        Some(status) => {
            #[cfg(unix)]
            let how = match std::os::unix::process::ExitStatusExt::signal(&status) {
                Some(6) if output.contains("overflowed its stack") => "a stack overflow (SIGABRT)".to_string(),
                Some(signal) => format!("signal {signal}"),
                None => format!("{status}"),
            };
            #[cfg(not(unix))]
            let how = format!("{status}");
            panic!("loading the input of `{name}` ended with {how}\n{tail}");
        }
    }
}

/// Every regression input loads in well under this.
const QUICK: Duration = Duration::from_secs(10);

/// `cargo fuzz tmin` output for a stack overflow: `(` nested 1,088 deep in a global's
/// initialiser. The descent `expr` -> `binary_level` (x9) -> `unary` -> `atom` ->
/// `expr` in `parser.rs` takes about 11 frames per `(`; it overflows 2 MiB at about
/// 500 levels and the 8 MiB main thread at about 2,000.
#[test]
fn deep_parentheses_minimized() {
    isolated("deep_parentheses_minimized", QUICK, || {
        check_load(&format!("byte x = {}{}s; }} system async;", "(".repeat(1088), ")".repeat(65)));
    });
}

/// A well-formed initialiser of 100,000 nested parentheses.
#[test]
fn deep_parentheses() {
    isolated("deep_parentheses", QUICK, || {
        let n = 100_000;
        check_load(&format!("byte x = {}1{}{TAIL}", "(".repeat(n), ")".repeat(n)));
    });
}

/// Array indices nested 100,000 deep in a guard (`a[a[a[...]]]`): the same recursion
/// through `atom`'s index case.
#[test]
fn deep_array_index() {
    isolated("deep_array_index", QUICK, || {
        let n = 100_000;
        check_load(&format!(
            "byte a[1];\nprocess P {{ state s; init s; trans s -> s {{ guard {}0{} == 0; }}; }}\nsystem async;\n",
            "a[".repeat(n),
            "]".repeat(n)
        ));
    });
}

/// About 100,000 prefix operators (`- ~ not`): `Parser::unary` recurses once per operator
/// (about 13,000 fit in 8 MiB, 3,300 in 2 MiB).
#[test]
fn long_unary_chain() {
    isolated("long_unary_chain", QUICK, || {
        check_load(&format!("byte x = {}1{TAIL}", "- ~ not ".repeat(34_000)));
    });
}

/// `1+1+...+1` with 100,000 operators: parsed by a loop, but into a left-deep tree that
/// `Names::lower_expr` (`names.rs`) walks recursively, one frame per operator (about
/// 13,000 fit in 8 MiB, 3,300 in 2 MiB); dropping such a tree recurses too.
#[test]
fn long_binary_chain_constant() {
    isolated("long_binary_chain_constant", QUICK, || {
        check_load(&format!("byte x = {}1{TAIL}", "1+".repeat(100_000)));
    });
}

/// The same left-deep chain over a variable in a guard (`x+x+...+x == 0`): not folded
/// to a constant, so the IR tree is as deep and the executor (`Evaluator::eval`) would
/// recurse on it at every state.
#[test]
fn long_binary_chain_guard() {
    isolated("long_binary_chain_guard", QUICK, || {
        check_load(&format!(
            "byte x;\nprocess P {{ state s; init s; trans s -> s {{ guard {}x == 0; }}; }}\nsystem async;\n",
            "x+".repeat(100_000)
        ));
    });
}

/// A command-line expression (`DveModel::expression`, the same parser) nested 100,000
/// deep.
#[test]
fn deep_parentheses_in_expression() {
    isolated("deep_parentheses_in_expression", QUICK, || {
        let dve = warpcheck_dve::load("byte x; process P { state s; init s; } system async;").unwrap();
        let n = 100_000;
        if let Err(d) = dve.expression(&format!("{}x{}", "(".repeat(n), ")".repeat(n))) {
            assert!(!d.message.trim().is_empty());
        }
    });
}

/// A 5.6 KB model that made `load` take about 19 s and 6.6 GB: 100 receives from a
/// buffered channel of 65,535 items of 16 bytes (exactly `MAX_SLOTS` cells), when each
/// receive was lowered to one assignment per buffer cell. Receives now shift the
/// buffer with one `ShiftDown` statement.
#[test]
fn buffered_channel_receives_blow_up() {
    isolated("buffered_channel_receives_blow_up", QUICK, || {
        let types = vec!["byte"; 16].join(",");
        let values = vec!["x"; 16].join(",");
        let receive = format!("s -> s {{ sync c?{{{values}}}; }}");
        let transitions = vec![receive.as_str(); 100].join(", ");
        check_load(&format!(
            "byte x;\nchannel {{{types}}} c[65535];\nprocess P {{ state s; init s; trans {transitions}; }}\nsystem async;\n"
        ));
    });
}
