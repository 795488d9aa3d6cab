//! The progress line shown on a terminal during long runs (states, level, rate,
//! memory); nothing when standard error is not a terminal.

use std::io::IsTerminal;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};
use warpcheck_explore::Progress;

/// A spinner on standard error, or nothing when piped.
pub struct ProgressLine {
    bar: Option<Mutex<ProgressBar>>,
}

impl ProgressLine {
    pub fn new(quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
            Mutex::new(bar)
        });
        ProgressLine { bar }
    }

    /// Shows `text` on the line.
    pub fn message(&self, text: String) {
        if let Some(bar) = &self.bar {
            bar.lock().unwrap().set_message(text);
        }
    }

    /// Updates the line.
    pub fn update(&self, p: &Progress) {
        if let Some(bar) = &self.bar {
            let memory = crate::memory::peak_resident().map_or(String::new(), |b| format!(", {} MiB", b >> 20));
            let rate = p.states as f64 / p.seconds.max(1e-9);
            bar.lock().unwrap().set_message(format!(
                "{} states, {} transitions, level {}, {:.2} M states/s{memory}",
                p.states,
                p.transitions,
                p.level,
                rate / 1e6
            ));
        }
    }

    /// Removes the line.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.lock().unwrap().finish_and_clear();
        }
    }
}
