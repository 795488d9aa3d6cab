//! ARCHITECTURE.md stays the map of the code: every workspace crate is named there by
//! its folder and its package name, and the document stays short enough to read.

use std::path::Path;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// The workspace members listed in the root `Cargo.toml`.
fn members() -> Vec<String> {
    let manifest = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    let line = manifest.lines().find(|l| l.trim_start().starts_with("members")).expect("a members line");
    line.split('"').skip(1).step_by(2).map(str::to_string).collect()
}

/// The `name = "..."` of a member's `Cargo.toml`.
fn package_name(member: &str) -> String {
    let manifest = std::fs::read_to_string(root().join(member).join("Cargo.toml")).unwrap();
    let line = manifest.lines().find(|l| l.starts_with("name")).expect("a package name");
    line.split('"').nth(1).unwrap().to_string()
}

#[test]
fn every_workspace_crate_is_in_architecture_md() {
    let doc = std::fs::read_to_string(root().join("ARCHITECTURE.md")).unwrap();
    let members = members();
    assert!(members.len() >= 10, "expected the workspace members, found {members:?}");
    let missing: Vec<String> = members
        .iter()
        .map(|m| (m, package_name(m)))
        .filter(|(m, name)| !doc.contains(&format!("`{m}`")) || !doc.contains(name.as_str()))
        .map(|(m, name)| format!("{m} ({name})"))
        .collect();
    assert!(missing.is_empty(), "ARCHITECTURE.md does not describe: {}", missing.join(", "));
}

#[test]
fn architecture_md_stays_short() {
    let size = std::fs::metadata(root().join("ARCHITECTURE.md")).unwrap().len();
    assert!(size <= 16 * 1024, "ARCHITECTURE.md has {size} bytes; keep it to about 15 KB");
}
