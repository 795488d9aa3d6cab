//! PRISM's explicit model files, read and written: the transition matrix (`.tra`), the
//! labels (`.lab`), the variable values (`.sta`) and the reward structures (`.srew` state
//! rewards, `.trew` transition rewards), as described in the PRISM manual's appendix
//! "Explicit Model Files". Each file has its module; [`ExplicitFiles`] names the files
//! of one model and reads or writes them together.
//!
//! The files of a model share a stem: `m.tra`, `m.lab`, `m.sta`, and for each reward
//! structure `m.<name>.srew` / `m.<name>.trew` (`m.srew` / `m.trew` for an unnamed one);
//! each may be gzip-compressed (`m.tra.gz`, ...).
//!
//! How a model maps to the files:
//! - The model type is not in the `.tra` file: a three-number header is an MDP, a
//!   two-number one a DTMC unless the caller says CTMC.
//! - Initial states are the `init` label of the `.lab` file; without a `.lab` file, or
//!   without an `init` label in it, state 0 is initial (PRISM's rule). The model's
//!   labelling always has `init`; labels declared in the `.lab` file are kept even when
//!   no state carries them (PRISM declares `deadlock` always).
//! - A reward structure's state rewards come from its `.srew` file, its transition
//!   rewards from its `.trew` file. Written files hold a structure's choice (action)
//!   rewards as transition rewards: every transition of the choice carries the choice's
//!   reward (added to its own transition reward), which earns the same reward on every
//!   step; read back, they are transition rewards.
//! - DTMC and CTMC rows carry no action names in the files.

mod lab;
mod rewards;
mod sta;
mod tra;

pub use lab::{read_lab, write_lab};
pub use rewards::{read_srew, read_trew, write_srew, write_trew};
pub use sta::{read_sta, write_sta};
pub use tra::{read_tra, write_tra};

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::files::{read_file, write_file};
use crate::sparse::{ModelType, RewardModel, SparseModel};

/// The format's name in errors.
const FORMAT: &str = "PRISM explicit";

/// The files of one model in PRISM's explicit format.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExplicitFiles {
    /// The transition matrix (`.tra` or `.tra.gz`).
    pub tra: PathBuf,
    /// The labels, if any.
    pub lab: Option<PathBuf>,
    /// The variable values of the states, if any.
    pub sta: Option<PathBuf>,
    /// State reward files, each with the name of its reward structure (`""` for
    /// `<stem>.srew`), sorted by name.
    pub state_rewards: Vec<(String, PathBuf)>,
    /// Transition reward files, each with the name of its reward structure, sorted by
    /// name.
    pub transition_rewards: Vec<(String, PathBuf)>,
}

/// The stem of a `.tra` or `.tra.gz` path and whether it is compressed.
fn stem(tra: &Path) -> Result<(String, bool), Error> {
    let bad = || Error::Files {
        file: tra.display().to_string(),
        reason: "the transitions file's name must end in .tra or .tra.gz".into(),
    };
    let name = tra.file_name().and_then(|n| n.to_str()).ok_or_else(bad)?;
    let (name, gz) = match name.strip_suffix(".gz") {
        Some(n) => (n, true),
        None => (name, false),
    };
    let stem = name.strip_suffix(".tra").filter(|s| !s.is_empty()).ok_or_else(bad)?;
    Ok((stem.to_string(), gz))
}

/// Adds `path` as the `what` file, unless another one (compressed or not) is there.
fn add_once(slot: &mut Option<PathBuf>, path: PathBuf, what: &str) -> Result<(), Error> {
    if let Some(other) = slot {
        let reason = format!("two {what} files for one model: {} and {}", other.display(), path.display());
        return Err(Error::Files { file: path.display().to_string(), reason });
    }
    *slot = Some(path);
    Ok(())
}

/// Adds the reward file `path` of structure `name` (sorted by name), unless the
/// structure has one already.
fn add_reward(list: &mut Vec<(String, PathBuf)>, name: &str, path: PathBuf) -> Result<(), Error> {
    let at = list.partition_point(|(n, _)| n.as_str() < name);
    if list.get(at).is_some_and(|(n, _)| n == name) {
        let reason = format!(
            "two reward files for the reward structure \"{name}\": {} and {}",
            list[at].1.display(),
            path.display()
        );
        return Err(Error::Files { file: path.display().to_string(), reason });
    }
    list.insert(at, (name.to_string(), path));
    Ok(())
}

impl ExplicitFiles {
    /// The files of the model whose transitions are in `tra`: the files beside it whose
    /// names are its stem followed by `.lab`, `.sta`, `.srew`, `.<name>.srew`, `.trew` or
    /// `.<name>.trew`, each optionally followed by `.gz`. (A file of another model whose
    /// stem starts with this stem and a dot, e.g. `m.x.srew` of `m.x.tra`, is taken for
    /// a reward structure `x` of `m`: keep such models in separate folders.)
    pub fn find(tra: &Path) -> Result<ExplicitFiles, Error> {
        let (stem, _) = stem(tra)?;
        let dir = match tra.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let listing =
            std::fs::read_dir(&dir).map_err(|source| Error::Io { file: dir.display().to_string(), source })?;
        let mut files = ExplicitFiles { tra: tra.to_path_buf(), ..ExplicitFiles::default() };
        for entry in listing {
            let entry = entry.map_err(|source| Error::Io { file: dir.display().to_string(), source })?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let Some(rest) = name.strip_prefix(stem.as_str()).and_then(|r| r.strip_prefix('.')) else { continue };
            let rest = rest.strip_suffix(".gz").unwrap_or(rest);
            let path = tra.with_file_name(name);
            match rest {
                "lab" => add_once(&mut files.lab, path, ".lab")?,
                "sta" => add_once(&mut files.sta, path, ".sta")?,
                "srew" => add_reward(&mut files.state_rewards, "", path)?,
                "trew" => add_reward(&mut files.transition_rewards, "", path)?,
                _ => {
                    if let Some(reward) = rest.strip_suffix(".srew") {
                        add_reward(&mut files.state_rewards, reward, path)?;
                    } else if let Some(reward) = rest.strip_suffix(".trew") {
                        add_reward(&mut files.transition_rewards, reward, path)?;
                    }
                }
            }
        }
        Ok(files)
    }

    /// The files that [`ExplicitFiles::write`] writes for `model` with its transitions in
    /// `tra`: `.lab` always, `.sta` if the model has valuations, a `.srew` file for each
    /// reward structure with state rewards and a `.trew` file for each with choice or
    /// transition rewards; all compressed if `tra` ends in `.gz`.
    pub fn for_model(tra: &Path, model: &SparseModel) -> Result<ExplicitFiles, Error> {
        let (stem, gz) = stem(tra)?;
        let gz = if gz { ".gz" } else { "" };
        let sibling = |suffix: &str| tra.with_file_name(format!("{stem}{suffix}{gz}"));
        let reward_file = |name: &str, ext: &str| {
            if name.contains(['/', '\\']) || name.starts_with('.') {
                let reason = format!("the reward structure name {name:?} cannot be part of a file name");
                return Err(Error::Unwritable { file: tra.display().to_string(), format: FORMAT, reason });
            }
            Ok(if name.is_empty() { sibling(&format!(".{ext}")) } else { sibling(&format!(".{name}.{ext}")) })
        };
        let mut files = ExplicitFiles {
            tra: tra.to_path_buf(),
            lab: Some(sibling(".lab")),
            sta: model.valuations.as_ref().map(|_| sibling(".sta")),
            ..ExplicitFiles::default()
        };
        for r in &model.rewards {
            if r.state.is_some() {
                add_reward(&mut files.state_rewards, &r.name, reward_file(&r.name, "srew")?)?;
            }
            if r.choice.is_some() || r.transition.is_some() {
                add_reward(&mut files.transition_rewards, &r.name, reward_file(&r.name, "trew")?)?;
            }
        }
        Ok(files)
    }

    /// Reads the model. `model_type` is what a two-number `.tra` header holds (DTMC if
    /// `None`); a three-number header is an MDP.
    pub fn read(&self, model_type: Option<ModelType>) -> Result<SparseModel, Error> {
        let mut model = read_file(&self.tra, |input, name| read_tra(input, name, model_type))?;
        let states = model.states();
        if let Some(lab) = &self.lab {
            model.labelling = read_file(lab, |input, name| read_lab(input, name, states))?;
        }
        match model.labelling.states("init") {
            Some(init) => model.initial = init.to_vec(),
            None => {
                model.initial = vec![0];
                model.labelling.labels.insert(0, ("init".to_string(), vec![0]));
            }
        }
        if let Some(sta) = &self.sta {
            model.valuations = Some(read_file(sta, |input, name| read_sta(input, name, states))?);
        }
        let names: BTreeSet<&str> =
            self.state_rewards.iter().chain(&self.transition_rewards).map(|(n, _)| n.as_str()).collect();
        for name in names {
            let mut reward = RewardModel { name: name.to_string(), ..RewardModel::default() };
            if let Some((_, path)) = self.state_rewards.iter().find(|(n, _)| n == name) {
                reward.state = Some(read_file(path, |input, file| read_srew(input, file, states))?);
            }
            if let Some((_, path)) = self.transition_rewards.iter().find(|(n, _)| n == name) {
                reward.transition = Some(read_file(path, |input, file| read_trew(input, file, &model))?);
            }
            model.rewards.push(reward);
        }
        model.validate().map_err(|source| Error::Invalid { file: self.tra.display().to_string(), source })?;
        Ok(model)
    }

    /// Writes `model` to these files. Each reward file must belong to a reward structure
    /// of the model with rewards of its kind; a `.sta` file needs valuations.
    pub fn write(&self, model: &SparseModel) -> Result<(), Error> {
        let unwritable = |path: &Path, reason: String| Error::Unwritable {
            file: path.display().to_string(),
            format: FORMAT,
            reason,
        };
        crate::writing::check(model, &self.tra.display().to_string(), FORMAT)?;
        write_file(&self.tra, |out, name| write_tra(model, out, name))?;
        if let Some(lab) = &self.lab {
            write_file(lab, |out, name| write_lab(model, out, name))?;
        }
        if let Some(sta) = &self.sta {
            let Some(valuations) = &model.valuations else {
                return Err(unwritable(sta, "the model has no variable values".into()));
            };
            write_file(sta, |out, name| write_sta(valuations, model.states(), out, name))?;
        }
        for (name, path) in &self.state_rewards {
            let Some(state) = model.rewards.iter().find(|r| &r.name == name).and_then(|r| r.state.as_ref()) else {
                return Err(unwritable(path, format!("the model has no state rewards named \"{name}\"")));
            };
            write_file(path, |out, file| write_srew(state, out, file))?;
        }
        for (name, path) in &self.transition_rewards {
            let Some(r) = model.rewards.iter().find(|r| &r.name == name) else {
                return Err(unwritable(path, format!("the model has no reward structure named \"{name}\"")));
            };
            let per_entry = entry_rewards(model, r);
            write_file(path, |out, file| write_trew(model, &per_entry, out, file))?;
        }
        Ok(())
    }
}

/// The reward of every matrix entry under `r`: its transition reward plus its row's
/// choice reward (the form in which `.trew` files hold choice rewards). Rewards beyond
/// the model's rows or entries are ignored.
pub fn entry_rewards(model: &SparseModel, r: &RewardModel) -> Vec<f64> {
    let mut rewards = r.transition.clone().unwrap_or_default();
    rewards.resize(model.columns.len(), 0.0);
    if let Some(choice) = &r.choice {
        for (&c, range) in choice.iter().zip(model.row_starts.windows(2)) {
            for reward in rewards.get_mut(range[0] as usize..range[1] as usize).unwrap_or(&mut []) {
                *reward += c;
            }
        }
    }
    rewards
}
