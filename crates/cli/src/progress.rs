//! The progress shown during long runs (states, level, rate, memory): a line on a
//! terminal that updates in place, nothing when standard error is not a terminal, or,
//! with `--progress-every`, plain lines at that interval wherever standard error goes
//! (logs of batch jobs).

use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};
use warpcheck_explore::Progress;

/// Where progress goes.
enum Sink {
    None,
    /// A spinner on a terminal.
    Bar(Mutex<ProgressBar>),
    /// A line per interval, the first at the first update; the last line's time.
    Lines {
        every: Duration,
        last: Mutex<Option<Instant>>,
    },
}

/// A spinner on standard error, plain lines, or nothing.
pub struct ProgressLine {
    sink: Sink,
}

impl ProgressLine {
    /// The spinner on a terminal unless `quiet`; plain lines every `every` seconds when
    /// given (even when `quiet`: `--json` runs ask for them).
    pub fn new(quiet: bool, every: Option<f64>) -> Self {
        let sink = if let Some(seconds) = every {
            Sink::Lines { every: Duration::from_secs_f64(seconds.max(0.0)), last: Mutex::new(None) }
        } else if !quiet && std::io::stderr().is_terminal() {
            let bar = ProgressBar::new_spinner();
            bar.set_style(ProgressStyle::with_template("{spinner} {msg}").expect("valid template"));
            Sink::Bar(Mutex::new(bar))
        } else {
            Sink::None
        };
        ProgressLine { sink }
    }

    /// Shows `text`.
    pub fn message(&self, text: String) {
        match &self.sink {
            Sink::None => {}
            Sink::Bar(bar) => bar.lock().unwrap().set_message(text),
            Sink::Lines { .. } => eprintln!("{text}"),
        }
    }

    /// Updates the line (or writes one, if the interval has passed).
    pub fn update(&self, p: &Progress) {
        let text = || {
            let memory = crate::memory::peak_resident().map_or(String::new(), |b| format!(", {} MiB", b >> 20));
            let rate = p.states as f64 / p.seconds.max(1e-9);
            let level = if p.depth_first { "depth" } else { "level" };
            format!(
                "{} states, {} transitions, {level} {}, {:.2} M states/s{memory}",
                p.states,
                p.transitions,
                p.level,
                rate / 1e6
            )
        };
        match &self.sink {
            Sink::None => {}
            Sink::Bar(bar) => bar.lock().unwrap().set_message(text()),
            Sink::Lines { every, last } => {
                let mut last = last.lock().unwrap();
                if last.is_none_or(|t| t.elapsed() >= *every) {
                    *last = Some(Instant::now());
                    eprintln!("{:.1} s: {}", p.seconds, text());
                }
            }
        }
    }

    /// Removes the line.
    pub fn finish(&self) {
        if let Sink::Bar(bar) = &self.sink {
            bar.lock().unwrap().finish_and_clear();
        }
    }
}
