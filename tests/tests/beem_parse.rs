//! Every `.dve` file under `shared/beem` (instances and `.propN.dve` property files)
//! parses, checks and lowers, and a property file's automaton is found.

use warpcheck_conformance::*;

#[test]
fn every_beem_file_loads() {
    let beem = beem_dir();
    let mut files = Vec::new();
    for model in std::fs::read_dir(&beem).unwrap() {
        let model = model.unwrap().path();
        if !model.is_dir() {
            continue;
        }
        for f in std::fs::read_dir(&model).unwrap() {
            let f = f.unwrap().path();
            if f.extension().is_some_and(|e| e == "dve") {
                files.push(f);
            }
        }
    }
    files.sort();
    let failures = parallel_failures(&files, |path| {
        let source = std::fs::read_to_string(path).map_err(|e| e.to_string())?;
        let dve = warpcheck_dve::load(&source).map_err(|d| d.render(&path.display().to_string(), &source))?;
        let is_property_file = path.to_string_lossy().contains(".prop");
        if dve.model.property.is_some() != is_property_file {
            return Err(format!("{}: property automaton found: {}", path.display(), dve.model.property.is_some()));
        }
        Ok(())
    });
    assert!(failures.is_empty(), "{} of {} files fail:\n{}", failures.len(), files.len(), failures.join("\n"));
    assert_eq!(files.len(), 625, "the BEEM folder changed: update the expected number of files");
}
