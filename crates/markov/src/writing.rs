//! What the writers share: the check before writing (the model is valid, and its
//! labels, rewards, actions and valuations fit its size, so that a writer never panics
//! on a model built by hand), each state's labels, and text written out in large pieces.

use std::io::Write;

use crate::error::Error;
use crate::sparse::SparseModel;

/// Checks that `model` can be written to `file` (in `format`, for the error).
pub(crate) fn check(model: &SparseModel, file: &str, format: &'static str) -> Result<(), Error> {
    model.validate().map_err(|source| Error::Invalid { file: file.to_string(), source })?;
    let unwritable = |reason: String| Error::Unwritable { file: file.to_string(), format, reason };
    let states = model.states();
    let choices = model.choices() as usize;
    let transitions = model.transitions() as usize;
    for (i, (name, members)) in model.labelling.labels.iter().enumerate() {
        if model.labelling.labels[..i].iter().any(|(other, _)| other == name) {
            return Err(unwritable(format!("label `{name}` is defined twice")));
        }
        if !members.windows(2).all(|w| w[0] < w[1]) {
            return Err(unwritable(format!("the states of label `{name}` are not strictly ascending")));
        }
        if let Some(&s) = members.iter().find(|&&s| s as usize >= states) {
            return Err(unwritable(format!("label `{name}` has state {s}, but the model has {states} states")));
        }
    }
    for (i, r) in model.rewards.iter().enumerate() {
        if model.rewards[..i].iter().any(|other| other.name == r.name) {
            return Err(unwritable(format!("reward model `{}` is defined twice", r.name)));
        }
        for (what, vector, len) in
            [("state", &r.state, states), ("choice", &r.choice, choices), ("transition", &r.transition, transitions)]
        {
            if let Some(v) = vector {
                if v.len() != len {
                    return Err(unwritable(format!(
                        "reward model `{}` has {} {what} rewards for {len} {what}s",
                        r.name,
                        v.len()
                    )));
                }
            }
        }
    }
    if !model.row_actions.is_empty() {
        if model.row_actions.len() != choices {
            return Err(unwritable(format!("{} row actions for {choices} rows", model.row_actions.len())));
        }
        if let Some(&a) = model.row_actions.iter().find(|&&a| a as usize >= model.action_names.len()) {
            return Err(unwritable(format!("action {a}, but the model names {} actions", model.action_names.len())));
        }
    }
    if let Some(v) = &model.valuations {
        if v.booleans.len() != v.names.len() || v.values.len() != v.names.len() * states {
            return Err(unwritable(format!(
                "the valuations have {} names, {} Boolean flags and {} values for {states} states",
                v.names.len(),
                v.booleans.len(),
                v.values.len()
            )));
        }
    }
    Ok(())
}

/// `n` in decimal, formatted into `buf`.
pub(crate) fn itoa(mut n: u64, buf: &mut [u8; 20]) -> &str {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    std::str::from_utf8(&buf[i..]).unwrap_or("")
}

/// Text collected in memory and written out in large pieces.
pub(crate) struct Output<'a, W: Write> {
    pub out: W,
    pub file: &'a str,
    pub text: String,
}

impl<'a, W: Write> Output<'a, W> {
    /// Collects text for `out`, naming it `file` in errors.
    pub fn new(out: W, file: &'a str) -> Output<'a, W> {
        Output { out, file, text: String::with_capacity(1 << 17) }
    }

    /// Writes the collected text out once there is enough of it.
    pub fn flush_if_full(&mut self) -> Result<(), Error> {
        if self.text.len() >= 1 << 16 {
            self.out.write_all(self.text.as_bytes()).map_err(|source| Error::Io { file: self.file.into(), source })?;
            self.text.clear();
        }
        Ok(())
    }

    /// Writes the rest out and flushes.
    pub fn finish(mut self) -> Result<(), Error> {
        let file = self.file;
        let io = |source| Error::Io { file: file.into(), source };
        self.out.write_all(self.text.as_bytes()).map_err(io)?;
        self.out.flush().map_err(io)
    }
}

/// The labels of every state, as indices into `labels`, in the order of `labels`: the
/// labels of state `s` are `of_state[first[s]..first[s + 1]]`.
pub(crate) struct StateLabels {
    pub first: Vec<usize>,
    pub of_state: Vec<usize>,
}

impl StateLabels {
    /// Inverts `labels` (name, ascending states below `states`).
    pub fn new(labels: &[(&str, &[u32])], states: usize) -> StateLabels {
        let mut first = vec![0usize; states + 1];
        for (_, members) in labels {
            for &s in *members {
                first[s as usize + 1] += 1;
            }
        }
        for s in 0..states {
            first[s + 1] += first[s];
        }
        let mut of_state = vec![0usize; first[states]];
        let mut next = first.clone();
        for (l, (_, members)) in labels.iter().enumerate() {
            for &s in *members {
                of_state[next[s as usize]] = l;
                next[s as usize] += 1;
            }
        }
        StateLabels { first, of_state }
    }

    /// The labels of state `s`.
    pub fn of(&self, s: usize) -> &[usize] {
        &self.of_state[self.first[s]..self.first[s + 1]]
    }
}
