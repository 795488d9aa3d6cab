//! Storm's DRN format ("direct encoding"), read and written, for DTMCs, CTMCs and MDPs.
//!
//! ```text
//! // Exported by storm
//! @type: CTMC
//! @value_type: double
//! @parameters
//!
//! @reward_models
//! customers
//! @nr_states
//! 66
//! @nr_choices
//! 66
//! @model
//! state 0 !12.5 [0] init minimum
//!     action 0 [0]
//!         1 : 10
//!         2 : 2.5
//! ```
//!
//! (Storm indents `action` lines with one tab and transitions with two; the reader takes
//! any white space.)
//!
//! What the reader takes:
//! - A header of `@type: DTMC|CTMC|MDP`, `@value_type: double` (optional), an empty
//!   `@parameters` line, `@reward_models` with the names on the next line (separated by
//!   white space; a line of white space only names one unnamed model, as Storm writes
//!   it), `@nr_states` and `@nr_choices` (optional) with their counts on the next line,
//!   then `@model`. Lines starting with `//` are comments anywhere (Storm writes state
//!   valuations as such comments).
//! - `state <i>` for i = 0, 1, ... in order, then in a CTMC optionally `!<exit rate>`
//!   (checked against the sum of the state's rates), optionally `[r1, r2, ...]` (one state
//!   reward per reward model; absent means zeros), then the state's labels, plain or in
//!   double quotes (`"a label"`). The label `init` marks the initial states.
//! - `action <k>` (k = 0, 1, ... within the state; exactly one in a DTMC or CTMC) or
//!   `action <name>` (named choice), optionally followed by `[g1, g2, ...]` (action
//!   rewards), then lines `<target> : <probability or rate>`. Targets may come in any
//!   order (they are sorted); one listed twice is an error.
//!
//! The model read has the labels `init` first, `deadlock` second (when some state has
//! them) and then the others alphabetically; a label that no state carries cannot appear
//! in DRN. A reward vector that is all zeros is read as absent (DRN writes `0` for both).
//! No state valuations (DRN has none), no parametric or interval models, no Markov
//! automata or POMDPs.
//!
//! The writer writes Storm's layout byte for byte (numbers as C's `%.17g`, which reads back
//! bit-exactly; labels of a state sorted; a label with white space quoted), except the
//! first comment line, which names warpcheck instead of Storm. It cannot write transition
//! rewards that differ within a row (DRN has action rewards only: equal ones are written
//! as the action reward), a label with a `"`, or an action name that is a number or has
//! white space or `[`.

use std::collections::HashMap;
use std::io::{BufRead, Write};

use crate::error::{Error, Problem};
use crate::number::push_g17;
use crate::rows::Rows;
use crate::sparse::{Labelling, ModelType, RewardModel, SparseModel, STOCHASTIC_TOLERANCE};
use crate::text::{error_at, Line, Lines, Pos, MAX_STATES};
use crate::writing::{self, itoa, Output, StateLabels};

const FORMAT: &str = "DRN";

/// Reads a DRN model from `input`, naming it `file` in errors.
pub fn read<R: BufRead>(input: R, file: &str) -> Result<SparseModel, Error> {
    let mut lines = Lines::new(input, file);
    let header = read_header(&mut lines)?;
    let mut body = Body::new(&header);
    while let Some(line) = lines.next_content("//")? {
        body.line(&line, file)?;
    }
    let end = lines.end();
    body.finish(file, end)
}

/// What the header says.
struct Header {
    model_type: ModelType,
    reward_names: Vec<String>,
    /// `@nr_states` and where its count is.
    states: (u64, Pos),
    /// `@nr_choices` and where its count is, if given.
    choices: Option<(u64, Pos)>,
}

/// A header section whose value is on the next line.
#[derive(Clone, Copy, PartialEq)]
enum Section {
    Parameters,
    RewardModels,
    States,
    Choices,
}

fn parse_type(line: &Line, name: &str) -> Result<ModelType, Error> {
    match name.to_ascii_uppercase().as_str() {
        "DTMC" => Ok(ModelType::Dtmc),
        "CTMC" => Ok(ModelType::Ctmc),
        "MDP" => Ok(ModelType::Mdp),
        "MA" | "MARKOV AUTOMATON" | "POMDP" | "SMG" | "S2PG" => {
            Err(line.error(name, Problem::Unsupported(format!("model type `{name}` (only DTMC, CTMC and MDP)"))))
        }
        _ => Err(line.error(name, Problem::UnknownType(name.to_string()))),
    }
}

fn read_header<R: BufRead>(lines: &mut Lines<R>) -> Result<Header, Error> {
    let mut model_type = None;
    let mut seen: Vec<Section> = Vec::new();
    let mut reward_names = Vec::new();
    let mut states = None;
    let mut choices = None;
    loop {
        let section = {
            let Some(line) = lines.next_content("//")? else {
                return Err(lines.end_error(Problem::Expected { expected: "`@model`", found: "end of file".into() }));
            };
            let t = line.text.trim();
            if let Some(rest) = t.strip_prefix("@type:") {
                if model_type.is_some() {
                    return Err(line.error(t, Problem::Misplaced("`@type` is given twice")));
                }
                model_type = Some(parse_type(&line, rest.trim())?);
                continue;
            }
            if let Some(rest) = t.strip_prefix("@value_type:") {
                let value_type = rest.trim();
                if value_type != "double" {
                    let what = format!("value type `{value_type}` (only `double`)");
                    return Err(line.error(value_type, Problem::Unsupported(what)));
                }
                continue;
            }
            let section = match t {
                "@parameters" => Section::Parameters,
                "@reward_models" => Section::RewardModels,
                "@nr_states" => Section::States,
                "@nr_choices" => Section::Choices,
                "@placeholders" => return Err(line.error(t, Problem::Unsupported("`@placeholders`".into()))),
                "@model" => {
                    let Some(model_type) = model_type else {
                        return Err(line.expected(t, "`@type:` before `@model`"));
                    };
                    let Some(states) = states else {
                        return Err(line.expected(t, "`@nr_states` before `@model`"));
                    };
                    return Ok(Header { model_type, reward_names, states, choices });
                }
                _ => {
                    return Err(line.expected(
                        t,
                        "a header line (`@type:`, `@value_type:`, `@parameters`, `@reward_models`, \
                         `@nr_states`, `@nr_choices`) or `@model`",
                    ))
                }
            };
            if seen.contains(&section) {
                return Err(line.error(t, Problem::Misplaced("this header section is given twice")));
            }
            seen.push(section);
            section
        };
        let Some(line) = lines.next_line()? else {
            return Err(
                lines.end_error(Problem::Expected { expected: "the section's value", found: "end of file".into() })
            );
        };
        let value = line.text.trim();
        match section {
            Section::Parameters => {
                if !value.is_empty() {
                    return Err(line.error(value, Problem::Unsupported("parametric models (`@parameters`)".into())));
                }
            }
            Section::RewardModels => {
                reward_names = value.split_ascii_whitespace().map(str::to_string).collect();
                if reward_names.is_empty() && !line.text.is_empty() {
                    // Storm writes each name followed by a space: one unnamed model.
                    reward_names.push(String::new());
                }
            }
            Section::States => {
                let n = line.index(value)?;
                if n > MAX_STATES {
                    let what = format!("{n} states (at most {MAX_STATES})");
                    return Err(line.error(value, Problem::Unsupported(what)));
                }
                states = Some((n, line.pos(value)));
            }
            Section::Choices => choices = Some((line.index(value)?, line.pos(value))),
        }
    }
}

/// Marks a row without an action name.
const UNNAMED: u32 = u32::MAX;

/// The state of the reader in the `@model` part.
struct Body {
    model_type: ModelType,
    states: (u64, Pos),
    choices: Option<(u64, Pos)>,
    reward_names: Vec<String>,
    rows: Rows,
    /// The state whose line comes next.
    next_state: u64,
    /// The open state (its line was read, not yet closed): where, and its exit rate.
    open_state: Option<(Pos, Option<(f64, Pos)>)>,
    /// Choices of the open state so far.
    local_choices: u64,
    labels: Vec<(String, Vec<u32>)>,
    label_index: HashMap<String, usize>,
    /// Per reward model: one reward per state, one per row.
    state_rewards: Vec<Vec<f64>>,
    choice_rewards: Vec<Vec<f64>>,
    /// Per row: its action name's index, or [`UNNAMED`].
    actions: Vec<u32>,
    action_names: Vec<String>,
    action_index: HashMap<String, u32>,
    /// Reused for the values of a bracket.
    scratch: Vec<f64>,
}

/// Splits `text` (without leading white space) into its first token and the rest.
fn split_token(text: &str) -> (&str, &str) {
    let end = text.find(|c: char| c.is_ascii_whitespace()).unwrap_or(text.len());
    text.split_at(end)
}

/// `text` after `word` when `text` starts with `word` followed by white space or nothing.
fn keyword<'a>(text: &'a str, word: &str) -> Option<&'a str> {
    let rest = text.strip_prefix(word)?;
    (rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_whitespace())).then_some(rest)
}

impl Body {
    fn new(header: &Header) -> Body {
        let reward_models = header.reward_names.len();
        let choices = header.choices.map_or(header.states.0, |c| c.0);
        Body {
            model_type: header.model_type,
            states: header.states,
            choices: header.choices,
            reward_names: header.reward_names.clone(),
            rows: Rows::new(header.model_type, header.states.0, choices, choices),
            next_state: 0,
            open_state: None,
            local_choices: 0,
            labels: Vec::new(),
            label_index: HashMap::new(),
            state_rewards: vec![Vec::new(); reward_models],
            choice_rewards: vec![Vec::new(); reward_models],
            actions: Vec::new(),
            action_names: Vec::new(),
            action_index: HashMap::new(),
            scratch: Vec::new(),
        }
    }

    fn line(&mut self, line: &Line, file: &str) -> Result<(), Error> {
        let t = line.text.trim_start();
        if let Some(rest) = keyword(t, "state") {
            self.state_line(line, t, rest, file)
        } else if let Some(rest) = keyword(t, "action") {
            self.action_line(line, t, rest, file)
        } else {
            self.entry_line(line, t)
        }
    }

    /// Parses `[v1, v2, ...]` at the start of `text` into `self.scratch`, one value
    /// per reward model; returns the text after `]`.
    fn bracket<'a>(&mut self, line: &Line, text: &'a str) -> Result<&'a str, Error> {
        let Some(close) = text.find(']') else {
            return Err(line.expected_at_end("`]`"));
        };
        self.scratch.clear();
        let inner = &text[1..close];
        if !inner.trim().is_empty() || !self.reward_names.is_empty() {
            for token in inner.split(',') {
                self.scratch.push(line.reward(token.trim())?);
            }
        }
        if self.scratch.len() != self.reward_names.len() {
            let problem = Problem::RewardCount { expected: self.reward_names.len(), found: self.scratch.len() };
            return Err(line.error(text, problem));
        }
        Ok(&text[close + 1..])
    }

    fn state_line(&mut self, line: &Line, keyword: &str, rest: &str, file: &str) -> Result<(), Error> {
        let (index_token, mut rest) = split_token(rest.trim_start());
        if index_token.is_empty() {
            return Err(line.expected_at_end("a state index"));
        }
        let index = line.index(index_token)?;
        self.close_state(file)?;
        if index != self.next_state {
            return Err(line.error(index_token, Problem::StateOutOfOrder { expected: self.next_state, found: index }));
        }
        if index >= self.states.0 {
            let bound = format!("{} states (`@nr_states`)", self.states.0);
            return Err(line.error(index_token, Problem::OutOfRange { what: "state", index, bound }));
        }
        let state = index as u32;
        let mut exit_rate = None;
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix('!') {
            if self.model_type != ModelType::Ctmc {
                return Err(line.error(rest, Problem::Misplaced("an exit rate (`!`) is only allowed in a CTMC")));
            }
            let (token, after) = split_token(after);
            exit_rate = Some((line.weight(token)?, line.pos(token)));
            rest = after.trim_start();
        }
        if rest.starts_with('[') {
            rest = self.bracket(line, rest)?;
        } else {
            self.scratch.clear();
            self.scratch.resize(self.reward_names.len(), 0.0);
        }
        for (k, &r) in self.scratch.iter().enumerate() {
            self.state_rewards[k].push(r);
        }
        loop {
            rest = rest.trim_start();
            if rest.is_empty() {
                break;
            }
            let label;
            if let Some(quoted) = rest.strip_prefix('"') {
                let Some(end) = quoted.find('"') else {
                    return Err(line.expected_at_end("the closing `\"` of the label"));
                };
                label = &quoted[..end];
                if label.is_empty() {
                    return Err(line.expected(rest, "a label name between the quotes"));
                }
                rest = &quoted[end + 1..];
            } else {
                (label, rest) = split_token(rest);
                if label.contains('"') {
                    return Err(line.expected(label, "a label without `\"` (or a whole label in quotes)"));
                }
            }
            self.add_label(label, state);
        }
        self.open_state = Some((line.pos(keyword), exit_rate));
        self.local_choices = 0;
        Ok(())
    }

    fn add_label(&mut self, label: &str, state: u32) {
        let i = match self.label_index.get(label) {
            Some(&i) => i,
            None => {
                self.labels.push((label.to_string(), Vec::new()));
                self.label_index.insert(label.to_string(), self.labels.len() - 1);
                self.labels.len() - 1
            }
        };
        let members = &mut self.labels[i].1;
        if members.last() != Some(&state) {
            members.push(state);
        }
    }

    fn action_line(&mut self, line: &Line, keyword: &str, rest: &str, file: &str) -> Result<(), Error> {
        if self.open_state.is_none() {
            return Err(line.error(keyword, Problem::Misplaced("`action` before the first `state`")));
        }
        self.rows.end_row(file)?;
        if self.model_type != ModelType::Mdp && self.local_choices >= 1 {
            return Err(line.error(keyword, Problem::Misplaced("a DTMC or CTMC state has exactly one `action`")));
        }
        let body = rest.trim();
        let (name, bracket) = match body.find('[') {
            Some(i) => (body[..i].trim_end(), Some(&body[i..])),
            None => (body, None),
        };
        if name.is_empty() {
            return Err(line.error(
                name,
                Problem::Expected { expected: "an action index or name", found: crate::text::found(name) },
            ));
        }
        let action = if name.bytes().all(|b| b.is_ascii_digit()) {
            let k = line.index(name)?;
            if k != self.local_choices {
                return Err(line.error(name, Problem::ChoiceOutOfOrder { expected: self.local_choices, found: k }));
            }
            UNNAMED
        } else if name.contains(|c: char| c.is_ascii_whitespace()) {
            return Err(line.expected(name, "an action index or a name without white space"));
        } else {
            self.action(name)
        };
        match bracket {
            Some(bracket) => {
                let after = self.bracket(line, bracket)?;
                if !after.trim().is_empty() {
                    return Err(line.expected(after.trim(), "end of line after the rewards"));
                }
            }
            None => {
                self.scratch.clear();
                self.scratch.resize(self.reward_names.len(), 0.0);
            }
        }
        for (k, &r) in self.scratch.iter().enumerate() {
            self.choice_rewards[k].push(r);
        }
        self.actions.push(action);
        self.rows.start_row(None, line.pos(keyword));
        self.local_choices += 1;
        Ok(())
    }

    fn action(&mut self, name: &str) -> u32 {
        if let Some(&a) = self.action_index.get(name) {
            return a;
        }
        let a = self.action_names.len() as u32;
        self.action_names.push(name.to_string());
        self.action_index.insert(name.to_string(), a);
        a
    }

    fn entry_line(&mut self, line: &Line, t: &str) -> Result<(), Error> {
        if !self.rows.is_open() {
            let (token, _) = split_token(t);
            let problem = if self.open_state.is_some() {
                "a transition before the state's first `action`"
            } else {
                "a transition before the first `state`"
            };
            return Err(line.error(token, Problem::Misplaced(problem)));
        }
        let Some(colon) = t.find(':') else {
            return Err(line.expected(t.trim_end(), "`<target> : <value>`, `action` or `state`"));
        };
        let target_token = t[..colon].trim();
        let value_token = t[colon + 1..].trim();
        let target = line.state(target_token, "target state", self.states.0)?;
        if value_token.is_empty() {
            return Err(line.expected_at_end("a probability or rate after `:`"));
        }
        let value = line.weight(value_token)?;
        self.rows.entry(target, value, line.pos(target_token));
        Ok(())
    }

    /// Closes the open state, if any: its last row, its exit rate, its group of rows.
    fn close_state(&mut self, file: &str) -> Result<(), Error> {
        let Some((pos, exit_rate)) = self.open_state.take() else {
            return Ok(());
        };
        self.rows.end_row(file)?;
        if self.local_choices == 0 {
            return Err(error_at(file, pos, Problem::NoTransitions(self.next_state)));
        }
        if let Some((stated, at)) = exit_rate {
            let sum = self.rows.last_row_sum();
            if (stated - sum).abs() > STOCHASTIC_TOLERANCE * stated.abs().max(sum.abs()) {
                return Err(error_at(file, at, Problem::ExitRate { stated, sum }));
            }
        }
        self.rows.end_state();
        self.next_state += 1;
        Ok(())
    }

    fn finish(mut self, file: &str, end: Pos) -> Result<SparseModel, Error> {
        self.close_state(file)?;
        let (states, at) = self.states;
        if self.next_state != states {
            if self.next_state == 0 {
                return Err(error_at(
                    file,
                    end,
                    Problem::Expected { expected: "`state 0`", found: "end of file".into() },
                ));
            }
            return Err(error_at(
                file,
                at,
                Problem::CountMismatch { what: "states", header: states, found: self.next_state },
            ));
        }
        let mut model = self.rows.model;
        if let Some((choices, at)) = self.choices {
            if choices != model.choices() {
                let problem = Problem::CountMismatch { what: "choices", header: choices, found: model.choices() };
                return Err(error_at(file, at, problem));
            }
        }
        self.labels.sort_by(|a, b| label_rank(&a.0).cmp(&label_rank(&b.0)).then_with(|| a.0.cmp(&b.0)));
        model.initial = self.labels.iter().find(|(name, _)| name == "init").map(|(_, s)| s.clone()).unwrap_or_default();
        model.labelling = Labelling { labels: self.labels };
        let nonzero = |v: Vec<f64>| v.iter().any(|&x| x != 0.0).then_some(v);
        model.rewards = self
            .reward_names
            .into_iter()
            .zip(self.state_rewards.into_iter().zip(self.choice_rewards))
            .map(|(name, (state, choice))| RewardModel {
                name,
                state: nonzero(state),
                choice: nonzero(choice),
                transition: None,
            })
            .collect();
        if !self.action_names.is_empty() {
            if self.actions.contains(&UNNAMED) {
                let unnamed = self.action_names.len() as u32;
                self.action_names.push(String::new());
                self.actions.iter_mut().filter(|a| **a == UNNAMED).for_each(|a| *a = unnamed);
            }
            model.row_actions = self.actions;
            model.action_names = self.action_names;
        }
        model.validate().map_err(|source| Error::Invalid { file: file.to_string(), source })?;
        Ok(model)
    }
}

/// Orders `init` first and `deadlock` second, as Storm and PRISM list them.
fn label_rank(name: &str) -> u8 {
    match name {
        "init" => 0,
        "deadlock" => 1,
        _ => 2,
    }
}

/// Writes `model` in Storm's DRN layout to `out`, naming it `file` in errors.
pub fn write<W: Write>(model: &SparseModel, out: W, file: &str) -> Result<(), Error> {
    writing::check(model, file, FORMAT)?;
    let unwritable = |reason: String| Error::Unwritable { file: file.to_string(), format: FORMAT, reason };
    let states = model.states();

    // Labels: `init` from the initial states, the others sorted by name as Storm does.
    let mut labels: Vec<(&str, &[u32])> = vec![("init", &model.initial)];
    labels.extend(model.labelling.labels.iter().filter(|(n, _)| n != "init").map(|(n, s)| (n.as_str(), s.as_slice())));
    labels.sort_by(|a, b| a.0.cmp(b.0));
    for (name, _) in &labels {
        if name.is_empty() || name.contains(['"', '\n']) {
            return Err(unwritable(format!("the label {name:?} (empty or with a quote or line break)")));
        }
    }
    let state_labels = StateLabels::new(&labels, states);

    // Reward models: names, and one action reward per row (transition rewards that are
    // equal within each row are action rewards).
    if model.rewards.len() > 1 && model.rewards.iter().any(|r| r.name.is_empty()) {
        return Err(unwritable("an unnamed reward model beside others (DRN names them on one line)".into()));
    }
    let mut action_rewards: Vec<Option<Vec<f64>>> = Vec::with_capacity(model.rewards.len());
    for r in &model.rewards {
        if r.name.contains(|c: char| c.is_ascii_whitespace()) {
            return Err(unwritable(format!("the reward model name {:?} has white space", r.name)));
        }
        action_rewards.push(action_rewards_of(model, r).map_err(&unwritable)?);
    }
    for name in &model.action_names {
        if !name.is_empty()
            && (name.bytes().all(|b| b.is_ascii_digit())
                || name.contains(|c: char| c.is_ascii_whitespace() || c == '['))
        {
            return Err(unwritable(format!("the action name {name:?} (a number, or with white space or `[`)")));
        }
    }

    let mut out = Output::new(out, file);
    let type_name = match model.model_type {
        ModelType::Dtmc => "DTMC",
        ModelType::Ctmc => "CTMC",
        ModelType::Mdp => "MDP",
    };
    let t = &mut out.text;
    t.push_str("// Exported by warpcheck\n// Original model type: ");
    t.push_str(type_name);
    t.push_str("\n@type: ");
    t.push_str(type_name);
    t.push_str("\n@value_type: double\n@parameters\n\n@reward_models\n");
    for r in &model.rewards {
        t.push_str(&r.name);
        t.push(' ');
    }
    t.push_str(&format!("\n@nr_states\n{states}\n@nr_choices\n{}\n@model\n", model.choices()));
    for s in 0..states {
        let t = &mut out.text;
        t.push_str("state ");
        t.push_str(itoa(s as u64, &mut [0; 20]));
        if model.model_type == ModelType::Ctmc {
            t.push_str(" !");
            let rows = model.rows(s as u32);
            let exit = model.values[model.entries(rows.start)].iter().fold(0.0, |sum, v| sum + v);
            push_g17(t, exit);
        }
        push_bracket(t, model.rewards.iter().map(|r| r.state.as_ref().map_or(0.0, |v| v[s])));
        for &l in state_labels.of(s) {
            let name = labels[l].0;
            t.push(' ');
            if name.contains(|c: char| c.is_ascii_whitespace()) || name.starts_with(['!', '[']) {
                t.push('"');
                t.push_str(name);
                t.push('"');
            } else {
                t.push_str(name);
            }
        }
        t.push('\n');
        let rows = model.rows(s as u32);
        for row in rows.clone() {
            let t = &mut out.text;
            t.push_str("\taction ");
            let name = model.row_actions.get(row as usize).map_or("", |&a| model.action_names[a as usize].as_str());
            if name.is_empty() {
                t.push_str(itoa(row - rows.start, &mut [0; 20]));
            } else {
                t.push_str(name);
            }
            push_bracket(t, action_rewards.iter().map(|a| a.as_ref().map_or(0.0, |v| v[row as usize])));
            t.push('\n');
            for (target, value) in model.row(row) {
                t.push_str("\t\t");
                t.push_str(itoa(target as u64, &mut [0; 20]));
                t.push_str(" : ");
                push_g17(t, value);
                t.push('\n');
            }
            out.flush_if_full()?;
        }
    }
    out.finish()
}

/// The action rewards of `r` (its choice rewards plus its transition rewards, which must
/// be equal within each row), or `None` when it has neither.
fn action_rewards_of(model: &SparseModel, r: &RewardModel) -> Result<Option<Vec<f64>>, String> {
    let Some(transition) = &r.transition else {
        return Ok(r.choice.clone());
    };
    let mut rewards = r.choice.clone().unwrap_or_else(|| vec![0.0; model.choices() as usize]);
    for (row, reward) in rewards.iter_mut().enumerate() {
        let entries = &transition[model.entries(row as u64)];
        let first = entries.first().copied().unwrap_or(0.0);
        if entries.iter().any(|&x| x.to_bits() != first.to_bits()) {
            return Err(format!(
                "reward model `{}` has transition rewards that differ within row {row} (DRN has action rewards only)",
                r.name
            ));
        }
        *reward += first;
    }
    Ok(Some(rewards))
}

/// Appends ` [v1, v2, ...]`, or nothing for no values.
fn push_bracket(t: &mut String, values: impl Iterator<Item = f64>) {
    let mut first = true;
    for v in values {
        t.push_str(if first { " [" } else { ", " });
        first = false;
        push_g17(t, v);
    }
    if !first {
        t.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> Result<SparseModel, Error> {
        read(text.as_bytes(), "t.drn")
    }

    /// The line, column and problem of a malformed file's error.
    fn malformed(text: &str) -> (u64, usize, Problem) {
        match read_str(text) {
            Err(Error::Malformed { line, column, problem, .. }) => (line, column, problem),
            other => panic!("expected a Malformed error, got {other:?}"),
        }
    }

    const HEADER: &str =
        "@type: MDP\n@value_type: double\n@parameters\n\n@reward_models\n\n@nr_states\n2\n@nr_choices\n3\n@model\n";

    fn mdp(body: &str) -> String {
        format!("{HEADER}{body}")
    }

    const GOOD: &str = "state 0 init\n\taction 0\n\t\t1 : 1\n\taction 1\n\t\t0 : 0.5\n\t\t1 : 0.5\nstate 1 goal\n\taction 0\n\t\t1 : 1\n";

    #[test]
    fn reads_a_small_mdp() {
        let m = read_str(&mdp(GOOD)).unwrap();
        assert_eq!((m.states(), m.choices(), m.transitions()), (2, 3, 4));
        assert_eq!(m.initial, [0]);
        assert_eq!(m.labelling.states("goal"), Some(&[1][..]));
        assert_eq!(m.row(1).collect::<Vec<_>>(), [(0, 0.5), (1, 0.5)]);
    }

    #[test]
    fn sorts_unsorted_targets() {
        let m = read_str(&mdp(&GOOD.replace("\t\t0 : 0.5\n\t\t1 : 0.5", "\t\t1 : 0.25\n\t\t0 : 0.75"))).unwrap();
        assert_eq!(m.row(1).collect::<Vec<_>>(), [(0, 0.75), (1, 0.25)]);
    }

    #[test]
    fn quoted_labels_and_comments() {
        let text = mdp(&GOOD.replace("state 1 goal", "// a comment\nstate 1 \"a goal\" \"b\"\n//[x=1]"));
        let m = read_str(&text).unwrap();
        assert_eq!(m.labelling.states("a goal"), Some(&[1][..]));
        assert_eq!(m.labelling.states("b"), Some(&[1][..]));
    }

    #[test]
    fn named_actions() {
        let text = mdp(&GOOD
            .replace("\taction 1", "\taction go")
            .replace("state 1 goal\n\taction 0", "state 1\n\taction stay"));
        let m = read_str(&text).unwrap();
        let names: Vec<&str> = m.row_actions.iter().map(|&a| m.action_names[a as usize].as_str()).collect();
        assert_eq!(names, ["", "go", "stay"]);
    }

    #[test]
    fn ctmc_exit_rates_and_rewards() {
        let text = "@type: CTMC\n@parameters\n\n@reward_models\nr q \n@nr_states\n2\n@nr_choices\n2\n@model\n\
                    state 0 !3 [1, 0] init\n\taction 0 [0, 2.5]\n\t\t1 : 3\nstate 1 !0.5 [2, 0]\n\taction 0 [0, 0]\n\t\t0 : 0.5\n";
        let m = read_str(text).unwrap();
        assert_eq!(m.model_type, ModelType::Ctmc);
        assert_eq!(m.rewards.len(), 2);
        assert_eq!(m.rewards[0].state.as_deref(), Some(&[1.0, 2.0][..]));
        assert_eq!(m.rewards[0].choice, None);
        assert_eq!(m.rewards[1].state, None);
        assert_eq!(m.rewards[1].choice.as_deref(), Some(&[2.5, 0.0][..]));
        let bad = text.replace("!0.5", "!0.6");
        assert!(matches!(malformed(&bad), (14, 10, Problem::ExitRate { .. })));
    }

    #[test]
    fn header_errors() {
        assert_eq!(malformed("@type: LTS\n").2, Problem::UnknownType("LTS".into()));
        assert_eq!(malformed("@type: LTS\n").0, 1);
        assert_eq!(malformed("@type: LTS\n").1, 8);
        assert!(matches!(malformed("@type: MA\n"), (1, 8, Problem::Unsupported(_))));
        assert!(matches!(malformed("@type: DTMC\n@value_type: rational\n"), (2, 14, Problem::Unsupported(_))));
        assert!(matches!(malformed("@type: DTMC\n@parameters\np q\n"), (3, 1, Problem::Unsupported(_))));
        assert!(matches!(malformed("@type: DTMC\n@nr_states\nmany\n"), (3, 1, Problem::BadInteger(_))));
        assert!(matches!(malformed("@type: DTMC\n@model\n"), (2, 1, Problem::Expected { .. })));
        assert!(matches!(malformed("@nr_states\n1\n@model\n"), (3, 1, Problem::Expected { .. })));
        assert!(matches!(malformed("@type: DTMC\n@type: DTMC\n"), (2, 1, Problem::Misplaced(_))));
        assert!(matches!(malformed("@type: DTMC\nstate 0\n"), (2, 1, Problem::Expected { .. })));
        assert!(matches!(malformed("@type: DTMC\n"), (2, 1, Problem::Expected { .. })));
    }

    #[test]
    fn body_errors_with_their_places() {
        // Line 12 is the first line after `@model`.
        let case = |from: &str, to: &str| malformed(&mdp(&GOOD.replacen(from, to, 1)));
        assert_eq!(case("1 : 1", "1 : x"), (14, 7, Problem::BadNumber("x".into())));
        assert_eq!(case("1 : 1", "1 : 0"), (14, 7, Problem::BadWeight(0.0)));
        assert_eq!(case("1 : 1", "1 : -1"), (14, 7, Problem::BadWeight(-1.0)));
        assert_eq!(case("1 : 1", "1 : inf"), (14, 7, Problem::BadWeight(f64::INFINITY)));
        assert_eq!(case("1 : 1", "-1 : 1"), (14, 3, Problem::BadInteger("-1".into())));
        assert!(matches!(case("1 : 1", "2 : 1"), (14, 3, Problem::OutOfRange { index: 2, .. })));
        assert!(matches!(case("1 : 1", "1 1"), (14, 3, Problem::Expected { .. })));
        assert!(matches!(case("1 : 1", "1 :"), (14, 6, Problem::Expected { .. })));
        assert_eq!(case("state 1", "state 2"), (18, 7, Problem::StateOutOfOrder { expected: 1, found: 2 }));
        assert_eq!(case("state 1", "state 0"), (18, 7, Problem::StateOutOfOrder { expected: 1, found: 0 }));
        assert_eq!(case("\taction 1", "\taction 2"), (15, 9, Problem::ChoiceOutOfOrder { expected: 1, found: 2 }));
        assert_eq!(case("\t\t0 : 0.5\n\t\t1 : 0.5", "\t\t1 : 0.5\n\t\t1 : 0.5"), (17, 3, Problem::DuplicateTarget(1)));
        assert_eq!(
            case("\t\t0 : 0.5\n\t\t1 : 0.5", "\t\t1 : 0.5\n\t\t0 : 0.25\n\t\t1 : 0.25"),
            (18, 3, Problem::DuplicateTarget(1))
        );
        assert_eq!(case("0 : 0.5", "0 : 0.4"), (15, 2, Problem::NotStochastic(0.9)));
        assert!(matches!(case("state 0 init", "state 0 !2 init"), (12, 9, Problem::Misplaced(_))));
        assert!(matches!(
            case("state 0 init", "state 0 [1] init"),
            (12, 9, Problem::RewardCount { expected: 0, found: 1 })
        ));
        assert!(matches!(case("state 0 init", "state 0 \"init"), (12, 14, Problem::Expected { .. })));
        assert!(matches!(case("state 0 init", "state 0 init \"\""), (12, 14, Problem::Expected { .. })));
        assert!(matches!(case("state 0 init", "state 0 in\"it"), (12, 9, Problem::Expected { .. })));
        assert!(matches!(case("\taction 1", "\taction go on"), (15, 9, Problem::Expected { .. })));
        assert!(matches!(case("state 0 init\n\taction 0", "state 0 init"), (13, 3, Problem::Misplaced(_))));
        assert!(matches!(case("\t\t1 : 1\n\taction 1", "\taction 1"), (13, 2, Problem::Misplaced(_))));
        assert_eq!(case("state 1 goal\n\taction 0\n\t\t1 : 1\n", "state 1 goal\n"), (18, 1, Problem::NoTransitions(1)));
        assert!(matches!(
            case("state 1 goal\n\taction 0\n\t\t1 : 1\n", ""),
            (8, 1, Problem::CountMismatch { header: 2, found: 1, .. })
        ));
        let extra_choice = malformed(&mdp(&format!("{GOOD}\taction 1\n\t\t0 : 1\n")));
        assert_eq!(extra_choice, (10, 1, Problem::CountMismatch { what: "choices", header: 3, found: 4 }));
        assert!(matches!(case("state 0", "action 0\nstate 0"), (12, 1, Problem::Misplaced(_))));
        assert!(matches!(case("state 0", "0 : 1\nstate 0"), (12, 1, Problem::Misplaced(_))));
        let mut bytes = mdp("state 0 init\n\taction 0\n\t\t1 : 1\n").into_bytes();
        bytes.extend_from_slice(b"ab\xff\n");
        assert!(matches!(
            read(&bytes[..], "t.drn"),
            Err(Error::Malformed { line: 15, column: 3, problem: Problem::NotUtf8, .. })
        ));
    }

    #[test]
    fn dtmc_has_one_action_per_state() {
        let text = "@type: DTMC\n@parameters\n\n@reward_models\n\n@nr_states\n1\n@model\nstate 0 init\n\taction 0\n\t\t0 : 1\n\taction 1\n\t\t0 : 1\n";
        assert!(matches!(malformed(text), (12, 2, Problem::Misplaced(_))));
    }

    #[test]
    fn missing_initial_state_is_invalid() {
        let text = mdp(&GOOD.replace("state 0 init", "state 0"));
        assert!(matches!(read_str(&text), Err(Error::Invalid { source: crate::sparse::Invalid::NoInitial, .. })));
    }

    #[test]
    fn writes_storm_layout() {
        let text = "@type: CTMC\n@parameters\n\n@reward_models\nr \n@nr_states\n2\n@nr_choices\n2\n@model\n\
                    state 0 !0.30000000000000004 [1] init\n\taction 0 [0]\n\t\t1 : 0.10000000000000001\n\t\t0 : 0.20000000000000001\n\
                    state 1 !1 [0] \"two words\"\n\taction 0 [0.5]\n\t\t0 : 1\n";
        let m = read_str(text).unwrap();
        let mut out = Vec::new();
        write(&m, &mut out, "out.drn").unwrap();
        let expected = "// Exported by warpcheck\n// Original model type: CTMC\n@type: CTMC\n@value_type: double\n@parameters\n\n\
                        @reward_models\nr \n@nr_states\n2\n@nr_choices\n2\n@model\n\
                        state 0 !0.30000000000000004 [1] init\n\taction 0 [0]\n\t\t0 : 0.20000000000000001\n\t\t1 : 0.10000000000000001\n\
                        state 1 !1 [0] \"two words\"\n\taction 0 [0.5]\n\t\t0 : 1\n";
        assert_eq!(String::from_utf8(out).unwrap(), expected);
    }

    #[test]
    fn writer_refuses_what_drn_cannot_hold() {
        let mut m = read_str(&mdp(GOOD)).unwrap();
        m.rewards.push(RewardModel {
            name: "t".into(),
            transition: Some(vec![1.0, 1.0, 2.0, 1.0]),
            ..Default::default()
        });
        let err = write(&m, Vec::new(), "x.drn").unwrap_err();
        assert!(matches!(err, Error::Unwritable { .. }), "{err}");
        m.rewards[0].transition = Some(vec![1.0, 2.0, 2.0, 3.0]);
        let mut out = Vec::new();
        write(&m, &mut out, "x.drn").unwrap();
        let back = read(&out[..], "x.drn").unwrap();
        assert_eq!(back.rewards[0].choice.as_deref(), Some(&[1.0, 2.0, 3.0][..]));
        m.labelling.set("a\"b", vec![0]);
        assert!(matches!(write(&m, Vec::new(), "x.drn"), Err(Error::Unwritable { .. })));
    }
}
