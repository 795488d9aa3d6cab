//! The DRN reader: the header, then the states with their labels, rewards, choices and
//! transitions, streamed line by line into a model.

use std::collections::HashMap;
use std::io::BufRead;

use crate::error::{Error, Problem};
use crate::rows::Rows;
use crate::sparse::{Labelling, ModelType, RewardModel, SparseModel, STOCHASTIC_TOLERANCE};
use crate::text::{error_at, found, Line, Lines, Pos, MAX_STATES};

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
            return Err(line.error(name, Problem::Expected { expected: "an action index or name", found: found(name) }));
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
