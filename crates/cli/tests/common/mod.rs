//! Helpers shared by the end-to-end test files: run the binary from the repository
//! root and read its output.

use std::process::{Command, Output};

pub fn warpcheck(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpcheck"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .output()
        .expect("run warpcheck")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
