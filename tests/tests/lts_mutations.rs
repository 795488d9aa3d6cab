//! Mutated `.aut`, `.exp`, `.gpf` and regular-formula text (the tiny files with bytes deleted,
//! inserted, duplicated or truncated; 300 to 4,000 variants per file) is an error or a
//! parse, never a panic; what loads is explored (bounded). The fuzz target
//! `fuzz/fuzz_targets/lts.rs` does the same without a bound on the variants.

use std::path::Path;

use warpcheck_conformance::lts_dir;
use warpcheck_lts::{aut, build, exp, formula, gpf, labelled, AutOptions, Counting};

/// Bytes that matter to the three grammars.
const SIGNIFICANT: &[u8] = b"(),\"*_-> |\n\r\t0123456789des ihide par in end cut rename 1/2[]'.+not and or";

struct Rng(u64);
impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}

fn mutate(text: &[u8], r: &mut Rng) -> Vec<u8> {
    let mut t = text.to_vec();
    for _ in 0..1 + r.below(3) {
        let at = r.below(t.len() + 1).min(t.len());
        match r.below(5) {
            0 if !t.is_empty() => {
                t.remove(at.min(t.len() - 1));
            }
            1 => t.insert(at, SIGNIFICANT[r.below(SIGNIFICANT.len())]),
            2 => {
                let end = (at + r.below(20)).min(t.len());
                let piece = t[at..end].to_vec();
                t.splice(at..at, piece);
            }
            3 => t.truncate(at),
            _ => {
                if let Some(b) = t.get_mut(at) {
                    *b = SIGNIFICANT[r.below(SIGNIFICANT.len())];
                }
            }
        }
    }
    t
}

#[test]
fn mutated_inputs_never_panic() {
    let dir = lts_dir().join("tiny");
    let work = std::env::temp_dir().join(format!("warpcheck-lts-mutations-{}", std::process::id()));
    std::fs::create_dir_all(&work).unwrap();
    // Components for the mutated .exp files to name.
    for f in ["t2-traffic/light.aut", "t2-traffic/pedestrian.aut", "t8-hide-rename/pedestrian.aut"] {
        std::fs::copy(dir.join(f), work.join(Path::new(f).file_name().unwrap())).unwrap();
    }
    let files = [
        "t9-aut-edge/e1-quoting.aut",
        "t9-aut-edge/e2-inner-quote.aut",
        "t9-aut-edge/e3-crlf.aut",
        "t2-traffic/traffic.exp",
        "t8-hide-rename/traffic-hidden.exp",
        "t8-hide-rename/traffic-allbut.exp",
        "t2-traffic/traffic-gpusem.gpf",
        "t10-wide/wide.gpf",
        "t6-mutex/mutex.rf",
    ];
    let mutex = build::load(&dir.join("t6-mutex/broken.exp"), &build::Options::default()).unwrap();
    // Another seed explores other variants: WARPCHECK_MUTATION_SEED=n.
    let seed =
        std::env::var("WARPCHECK_MUTATION_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x9E37_79B9_7F4A_7C15);
    let mut rng = Rng(seed);
    let (mut parsed, mut errors) = (0, 0);
    for file in files {
        let original = std::fs::read(dir.join(file)).unwrap();
        // Reading an .exp writes a file and reads its components: fewer variants.
        let variants = if file.ends_with(".aut") {
            4000
        } else if file.ends_with(".exp") {
            500
        } else {
            1000
        };
        for _ in 0..variants {
            let bytes = mutate(&original, &mut rng);
            let Ok(text) = String::from_utf8(bytes) else { continue };
            let ok = if file.ends_with(".aut") {
                aut::parse(&text, "m.aut", &AutOptions::default())
                    .map(|lts| {
                        let net = build::single("m".into(), &lts, Counting::Distinct);
                        labelled::explore(&net, 1000).ok();
                    })
                    .map_err(|e| e.to_string())
                    .is_ok()
            } else if file.ends_with(".exp") {
                let _ = exp::parse(&text, "m.exp").map_err(|e| e.to_string());
                let path = work.join("m.exp");
                std::fs::write(&path, &text).unwrap();
                build::load(&path, &build::Options::default())
                    .map(|net| labelled::explore(&net, 1000).ok())
                    .map_err(|e| e.to_string())
                    .is_ok()
            } else if file.ends_with(".rf") {
                formula::compile(&text, "m.rf", &mutex).map_err(|e| e.to_string()).is_ok()
            } else {
                gpf::parse(&text, None, gpf::Dialect::Gpf2016, Counting::Distinct)
                    .map(|net| {
                        labelled::explore(&net, 1000).ok();
                        let _ = gpf::write(&net);
                    })
                    .map_err(|e| e.to_string())
                    .is_ok()
            };
            if ok {
                parsed += 1;
            } else {
                errors += 1;
            }
        }
    }
    std::fs::remove_dir_all(&work).ok();
    // Both outcomes occur: the mutations are neither all harmless nor all fatal.
    assert!(parsed > 300 && errors > 300, "{parsed} parsed, {errors} errors");
}
