//! Fuzz target for the PRISM front end: lexer, parser, checker (names, types,
//! constants, formulas, renaming), the diagnostic renderer, and, for inputs that
//! load, the successor generator and the Markov builder (at most 2000 states), whose
//! errors are rendered too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpcheck_markov::BuildOptions;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = std::str::from_utf8(data) else {
        return;
    };
    // Open constants get small values when the input's first line says so.
    let constants = source
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("// const "))
        .and_then(|c| warpcheck_prism::parse_constants(c).ok())
        .unwrap_or_default();
    match warpcheck_prism::load(source, &constants) {
        Ok(model) => {
            if let Ok(built) = model.build(&BuildOptions { max_states: Some(2000), valuations: true }) {
                let _ = built.validate();
            }
        }
        Err(diagnostic) => {
            let _ = diagnostic.render("fuzz.prism", source);
        }
    }
});
