//! Fuzz target for the networks-of-LTSs front end: the input is read as an `.aut`
//! file, as `.exp` text, as a regular formula and as a `.gpf` file (both dialects); what loads is explored
//! (a bounded breadth-first exploration of the labelled product) and written back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use warpcheck_lts::{aut, build, exp, formula, gpf, labelled, AutOptions, Counting};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match aut::parse(text, "fuzz.aut", &AutOptions::default()) {
        Ok(lts) => {
            let _ = lts.to_aut("i");
            let net = build::single("fuzz".into(), &lts, Counting::Distinct);
            if let Ok(g) = labelled::explore(&net, 2000) {
                let _ = g.to_aut(&net, "tau");
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    if let Err(e) = exp::parse(text, "fuzz.exp") {
        let _ = e.to_string();
    }
    if let Err(e) = formula::parse(text, "fuzz.rf") {
        let _ = e.to_string();
    }
    for dialect in [gpf::Dialect::Gpf2016, gpf::Dialect::Gpf2015] {
        if let Ok(net) = gpf::parse(text, None, dialect, Counting::Distinct) {
            let _ = labelled::explore(&net, 2000);
            let _ = gpf::write(&net);
        }
    }
});
