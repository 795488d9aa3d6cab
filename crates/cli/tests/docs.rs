//! The documentation cannot drift from the product:
//!
//! - every ```` ```console ```` block of `README.md` and of the user guide
//!   (`docs/guide/src/**/*.md`) is run (`$ warpcheck ...` lines, with the repository
//!   root as working directory) and its output and exit status compared with the
//!   block, by `trycmd`. Varying output is elided there: `[..]` for the rest of a line,
//!   `...` on its own line for any lines. GPU examples are ```` ```text ```` blocks
//!   and are not run; the runs see no CUDA device (`CUDA_VISIBLE_DEVICES` empty), so
//!   `--backend auto` means the CPU on every machine.
//! - README.md, the guide and ARCHITECTURE.md describe the product as it is: no
//!   development history, session talk, dated narrative or paths outside the
//!   repository (`describes_the_product_not_its_history`).
//!
//! After a deliberate change of the output, rewrite the blocks with
//! `TRYCMD=overwrite cargo test -p warpcheck --test docs` and review the diff.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().expect("the repository root")
}

#[test]
fn documented_commands_print_what_the_documentation_shows() {
    let root = root();
    assert!(root.join("docs/guide/src/SUMMARY.md").is_file(), "the user guide is missing");
    // The blocks name files relative to the repository root; this test is alone in
    // its binary, so changing the working directory affects nothing else.
    std::env::set_current_dir(&root).expect("enter the repository root");
    // Examples that write files write them under `target/` (ignored by git).
    std::fs::create_dir_all(root.join("target")).expect("create target/");
    trycmd::TestCases::new()
        .register_bin("warpcheck", Path::new(env!("CARGO_BIN_EXE_warpcheck")))
        .env("CUDA_VISIBLE_DEVICES", "")
        .case("README.md")
        .case("docs/guide/src/**/*.md");
}

/// The Markdown files that describe the product.
fn product_documents(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut dirs = vec![root.join("docs/guide/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("read {}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// Phrases of development history and of the circumstances a text was written in
/// (matched case-insensitively), each with why it has no place in product documents.
const FORBIDDEN: &[(&str, &str)] = &[
    ("session", "talk of the working session that wrote it"),
    ("borrowed", "talk of borrowed machines"),
    ("lent ", "talk of lent machines"),
    ("lease", "talk of leased machines"),
    ("device tool", "talk of the tools of the development environment"),
    ("we measured", "narrative of how a number was reached"),
    ("we found", "narrative of how a fact was reached"),
    ("yesterday", "narrative with a relative date"),
    ("last week", "narrative with a relative date"),
    ("earlier today", "narrative with a relative date"),
    ("this run", "narrative of one run"),
    ("../shared", "a path outside the repository"),
    ("/work/", "a path of the development machine"),
    ("/tmp/", "a path of the development machine"),
    ("/root/", "a path of the development machine"),
    ("/home/", "a path of the development machine"),
];

/// Whether `phrase` occurs in `text` at the start of a word (so `lease` does not
/// match `release`).
fn starts_a_word(text: &str, phrase: &str) -> bool {
    text.match_indices(phrase).any(|(i, _)| !text[..i].chars().next_back().is_some_and(char::is_alphanumeric))
}

/// A date written into running text ("on 2026-11-22", "measured 2026-..."): dates
/// belong in the Date column of a table (a line starting with `|`) or in CHANGELOG.md.
fn narrative_date(line: &str) -> Option<&str> {
    if line.trim_start().starts_with('|') {
        return None;
    }
    let bytes = line.as_bytes();
    (0..bytes.len().saturating_sub(9)).find_map(|i| {
        let d = &bytes[i..i + 10];
        let digits = |r: std::ops::Range<usize>| d[r].iter().all(u8::is_ascii_digit);
        let is_date = digits(0..4) && d[4] == b'-' && digits(5..7) && d[7] == b'-' && digits(8..10);
        let starts_word = i == 0 || !bytes[i - 1].is_ascii_alphanumeric();
        (is_date && starts_word && d.starts_with(b"20")).then(|| &line[i..i + 10])
    })
}

/// The history findings of one document's text: `line: phrase (why)`.
fn history_findings(text: &str) -> Vec<String> {
    let mut findings = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let lower = line.to_lowercase();
        for (phrase, why) in FORBIDDEN {
            if starts_a_word(&lower, phrase) {
                findings.push(format!("line {}: `{phrase}` ({why}): {line}", n + 1));
            }
        }
        if let Some(date) = narrative_date(line) {
            findings.push(format!("line {}: the date {date} in running text (dates go in tables): {line}", n + 1));
        }
    }
    findings
}

#[test]
fn describes_the_product_not_its_history() {
    let root = root();
    let mut findings = Vec::new();
    for file in product_documents(&root) {
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
        for f in history_findings(&text) {
            findings.push(format!("{}: {f}", file.strip_prefix(&root).unwrap_or(&file).display()));
        }
    }
    assert!(
        findings.is_empty(),
        "development history in the product documents (move it to CHANGELOG.md):\n{}",
        findings.join("\n")
    );
}

#[test]
fn the_history_check_catches_narrative_and_spares_tables() {
    assert!(history_findings("| cpu set | 2026-11-22 | 2 cores |").is_empty());
    assert!(history_findings("Counts are exact on every BEEM instance.").is_empty());
    assert!(history_findings("cargo build --release; a silent run").is_empty());
    for bad in [
        "On 2026-11-22 the GPU set ran at 1.4 G states/s.",
        "This session measured the table growth.",
        "The tests read `../shared/beem`.",
        "Run on a borrowed H100.",
        "We measured it yesterday.",
        "see /work/main/target",
    ] {
        assert!(!history_findings(bad).is_empty(), "not caught: {bad}");
    }
}
