//! `load` and `save` by file name: formats from extensions, gzip, the sibling files of a
//! `.tra`, and the errors for names and files that do not fit.

mod common;

use std::path::Path;

use common::{assert_same, scratch_dir, Compare, EVERYTHING};
use warpcheck_markov::{load, save, Error, ExplicitFiles, Format, ModelType, Problem, RewardModel, SparseModel};

/// A two-state CTMC with a label, rewards and valuations.
fn ctmc() -> SparseModel {
    let mut m = SparseModel::new(ModelType::Ctmc);
    m.push_row(None);
    m.push_entry(1, 2.5);
    m.end_state();
    m.push_row(None);
    m.push_entry(0, 0.1);
    m.push_entry(1, 3.0);
    m.end_state();
    m.initial = vec![0];
    m.labelling.set("up", vec![1]);
    m.rewards.push(RewardModel { name: "cost".into(), state: Some(vec![1.0, 0.0]), ..Default::default() });
    m.rewards.push(RewardModel { name: "jumps".into(), choice: Some(vec![1.0, 2.0]), ..Default::default() });
    m.valuations =
        Some(warpcheck_markov::Valuations { names: vec!["x".into()], booleans: vec![false], values: vec![0, 7] });
    m
}

fn write(path: &Path, text: &str) {
    std::fs::write(path, text).unwrap();
}

#[test]
fn formats_from_names() {
    assert_eq!(Format::of(Path::new("a/b.drn")), Some(Format::Drn));
    assert_eq!(Format::of(Path::new("b.drn.gz")), Some(Format::Drn));
    assert_eq!(Format::of(Path::new("b.tra.gz")), Some(Format::Explicit));
    assert_eq!(Format::of(Path::new("b.lab")), None);
    assert!(matches!(load(Path::new("model.prism"), None), Err(Error::Files { .. })));
    assert!(matches!(save(Path::new("model.lab"), &ctmc()), Err(Error::Files { .. })));
}

#[test]
fn explicit_files_written_and_found() {
    let dir = scratch_dir("files-explicit");
    let tra = dir.join("m.tra.gz");
    let m = ctmc();
    let files = ExplicitFiles::for_model(&tra, &m).unwrap();
    assert_eq!(files.lab, Some(dir.join("m.lab.gz")));
    assert_eq!(files.sta, Some(dir.join("m.sta.gz")));
    assert_eq!(files.state_rewards, [("cost".to_string(), dir.join("m.cost.srew.gz"))]);
    assert_eq!(files.transition_rewards, [("jumps".to_string(), dir.join("m.jumps.trew.gz"))]);
    save(&tra, &m).unwrap();
    assert_eq!(ExplicitFiles::find(&tra).unwrap(), files);
    // Really gzip.
    assert_eq!(&std::fs::read(&tra).unwrap()[..2], [0x1f, 0x8b]);
    let back = load(&tra, Some(ModelType::Ctmc)).unwrap();
    assert_same(&m, &back, "explicit", EVERYTHING);
    // The choice rewards come back as transition rewards.
    assert_eq!(back.rewards[1].transition.as_deref(), Some(&[1.0, 2.0, 2.0][..]));
    // A two-number header is a DTMC unless told otherwise: these rates do not sum to 1.
    assert!(matches!(
        load(&tra, None),
        Err(Error::Malformed { line: 2, column: 1, problem: Problem::NotStochastic(_), .. })
    ));
    assert!(matches!(
        load(&tra, Some(ModelType::Mdp)),
        Err(Error::Malformed { problem: Problem::TypeMismatch { .. }, .. })
    ));
    // Two .lab files for one model.
    write(&dir.join("m.lab"), "0=\"init\"\n0: 0\n");
    assert!(matches!(ExplicitFiles::find(&tra), Err(Error::Files { .. })));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn drn_file_round_trip_and_type_check() {
    let dir = scratch_dir("files-drn");
    let m = ctmc();
    for name in ["m.drn", "m.drn.gz"] {
        let path = dir.join(name);
        save(&path, &m).unwrap();
        let back = load(&path, Some(ModelType::Ctmc)).unwrap();
        assert_same(&m, &back, name, Compare { valuations: false, ..EVERYTHING });
        assert!(matches!(load(&path, Some(ModelType::Dtmc)), Err(Error::Files { .. })));
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn without_lab_state_zero_is_initial() {
    let dir = scratch_dir("files-nolab");
    let tra = dir.join("c.tra");
    write(&tra, "2 2\n0 1 1\n1 0 1\n");
    let m = load(&tra, None).unwrap();
    assert_eq!(m.initial, [0]);
    assert_eq!(m.labelling.states("init"), Some(&[0][..]));
    assert_eq!(m.model_type, ModelType::Dtmc);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn errors_name_the_file_line_and_column() {
    let dir = scratch_dir("files-errors");
    let tra = dir.join("e.tra");
    write(&tra, "2 2\n0 1 1\n1 0 x\n");
    let err = load(&tra, None).unwrap_err();
    assert_eq!(err.to_string(), format!("{}:3:5: `x` is not a number", tra.display()));
    write(&tra, "2 2\n0 1 1\n1 0 1\n");
    write(&dir.join("e.lab"), "0=\"init\" 1=\"deadlock\"\n0: 0\n5: 1\n");
    let err = load(&tra, None).unwrap_err();
    let lab = dir.join("e.lab");
    assert_eq!(err.to_string(), format!("{}:3:1: state 5 is out of range: the model has 2 states", lab.display()));
    let missing = dir.join("missing.drn");
    assert!(matches!(load(&missing, None), Err(Error::Io { file, .. }) if file == missing.display().to_string()));
    let gz = dir.join("bad.drn.gz");
    write(&gz, "not gzip");
    assert!(matches!(load(&gz, None), Err(Error::Io { .. })));
    std::fs::remove_dir_all(&dir).ok();
}
