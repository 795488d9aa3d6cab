//! Fuzz target for the DVE front end (lexer, parser, checker, lowering), the
//! diagnostic renderer, and, for inputs that load, the executor and successor
//! generator (a bounded breadth-first exploration).
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpcheck_explore::{explore, BfsOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    match warpcheck_dve::load(source) {
        Ok(dve) => {
            let _ = explore(&dve.model, &BfsOptions { max_states: Some(2000) });
        }
        Err(diagnostic) => {
            let _ = diagnostic.render("fuzz.dve", source);
        }
    }
});
