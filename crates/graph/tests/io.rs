//! Graph files: round trips through every format, and bad input reported with file and
//! line (text) or a clear message (binary), never a panic.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use warpcheck_graph::{io, Format, Graph, GraphError};

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("warpcheck-graph-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn graphs() -> impl Strategy<Value = (u64, Vec<(u32, u32)>)> {
    (1u64..40).prop_flat_map(|n| (Just(n), prop::collection::vec((0..n as u32, 0..n as u32), 0..120)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn every_format_round_trips((n, edges) in graphs()) {
        let g = Graph::from_edges(n, &edges).unwrap();
        for ext in ["aut", "edges", "txt", "wcg"] {
            let path = temp(&format!("rt-{}.{ext}", std::thread::current().name().unwrap_or("t").replace("::", "-")));
            io::write(&path, &g, None).unwrap();
            let back = io::read(&path, None).unwrap();
            prop_assert_eq!(back.forward(), g.forward(), "{}", ext);
        }
    }
}

fn parse_error(ext: &str, content: &[u8]) -> String {
    let path = temp(&format!("bad-{}.{ext}", content.len()));
    std::fs::write(&path, content).unwrap();
    let err = io::read(&path, None).expect_err("bad input must be an error");
    err.to_string().replace(&path.display().to_string(), "FILE")
}

#[test]
fn aut_reads_labels_with_commas_and_unquoted_labels() {
    let path = temp("ok.aut");
    std::fs::write(&path, "des (0, 3, 2)\n(0, \"a, b\", 1)\n\n(1, i, 0)\r\n(1,\"x\",1)\n").unwrap();
    let g = io::read(&path, None).unwrap();
    assert_eq!(g.forward().successors(1), &[0, 1]);
}

#[test]
fn bad_aut_files_name_the_line() {
    assert_eq!(parse_error("aut", b""), "FILE:1: empty file: expected `des (...)`");
    assert_eq!(
        parse_error("aut", b"des 0, 1, 2\n"),
        "FILE:1: expected the header `des (initial, transitions, states)`"
    );
    assert_eq!(
        parse_error("aut", b"des (0, 1, 2)\n(0, \"a\", 2)\n"),
        "FILE:2: vertex 2 is out of range (the graph has 2 vertices)"
    );
    assert_eq!(
        parse_error("aut", b"des (0, 1, 2)\n(0 \"a\" 1)\n"),
        "FILE:2: expected a transition `(source, \"label\", target)`"
    );
    assert_eq!(
        parse_error("aut", b"des (0, 1, 2)\n(x, \"a\", 1)\n"),
        "FILE:2: expected a source state (a non-negative integer), found `x`"
    );
    assert_eq!(
        parse_error("aut", b"des (0, 2, 2)\n(0, \"a\", 1)\n"),
        "FILE:2: the header announces 2 transitions, the file has 1"
    );
    assert_eq!(parse_error("aut", b"des (5, 0, 2)\n"), "FILE:1: initial state 5 is not one of the 2 states");
    assert_eq!(
        parse_error("aut", b"des (0, 1, 2)\n(0, a\"b, 1)\n"),
        "FILE:2: malformed label: expected `\"text\"` or a word"
    );
}

#[test]
fn edge_lists_skip_comments_and_honour_the_vertex_directive() {
    let path = temp("ok.edges");
    std::fs::write(&path, "# a comment\n0 1 # trailing\n\n1\t0\n# vertices 5\n").unwrap();
    let g = io::read(&path, None).unwrap();
    assert_eq!((g.vertices(), g.edges()), (5, 2));
}

#[test]
fn bad_edge_lists_name_the_line() {
    assert_eq!(parse_error("edges", b"0 1\n1\n"), "FILE:2: expected two vertex ids `u v`");
    assert_eq!(parse_error("edges", b"0 1 2\n"), "FILE:1: expected two vertex ids `u v`, found more fields");
    assert_eq!(parse_error("edges", b"0 -1\n"), "FILE:1: expected a vertex id (a non-negative integer), found `-1`");
    assert_eq!(
        parse_error("edges", b"# vertices 2\n0 1\n0 2\n"),
        "FILE:3: vertex 2 is out of range (the graph has 2 vertices)"
    );
    assert_eq!(
        parse_error("edges", b"0 1\n3 0\n# vertices 2\n"),
        "FILE:2: vertex 3 is out of range (the graph has 2 vertices)"
    );
    assert_eq!(
        parse_error("edges", b"0 99999999999\n"),
        "FILE:1: vertex 99999999999 is out of range (the graph has 4294967295 vertices)"
    );
}

fn binary_of(g: &Graph) -> Vec<u8> {
    let mut out = Vec::new();
    io::binary::write(&mut out, g.forward()).unwrap();
    out
}

#[test]
fn bad_binary_files_are_clear_errors() {
    let good = binary_of(&Graph::from_edges(3, &[(0, 1), (1, 2), (2, 0)]).unwrap());
    for cut in [0, 5, 31, 32, 40, good.len() - 1] {
        let msg = parse_error("wcg", &good[..cut]);
        assert!(msg.starts_with("FILE: truncated"), "{cut}: {msg}");
    }
    let mut extra = good.clone();
    extra.push(0);
    assert!(parse_error("wcg", &extra).starts_with("FILE: trailing bytes"));
    let mut magic = good.clone();
    magic[0] = b'X';
    assert_eq!(parse_error("wcg", &magic), "FILE: not a warpcheck binary graph (bad magic)");
    let mut version = good.clone();
    version[8] = 9;
    assert_eq!(parse_error("wcg", &version), "FILE: format version 9; this warpcheck reads version 1");
    let mut target = good.clone();
    let last = target.len() - 4;
    target[last] = 7;
    assert_eq!(parse_error("wcg", &target), "FILE: inconsistent CSR: edge 2 targets vertex 7 outside 0..3");
    let mut offsets = good.clone();
    offsets[32 + 8] = 3; // offsets[1] = 3 > offsets[2] = 2
    assert_eq!(parse_error("wcg", &offsets), "FILE: inconsistent CSR: offsets decrease at vertex 1");
}

#[test]
fn formats_come_from_extensions_or_names() {
    assert_eq!(Format::from_path(Path::new("a/b.aut")), Some(Format::Aut));
    assert_eq!(Format::from_path(Path::new("b.txt")), Some(Format::Edges));
    assert_eq!(Format::from_path(Path::new("b.wcg")), Some(Format::Binary));
    assert_eq!(Format::from_name("binary"), Some(Format::Binary));
    let err = io::read(Path::new("graph.xyz"), None).unwrap_err();
    assert!(matches!(err, GraphError::UnknownFormat { .. }));
    let missing = io::read(Path::new("no/such/file.aut"), None).unwrap_err();
    assert!(missing.to_string().starts_with("no/such/file.aut: "), "{missing}");
}
