//! Running one warpcheck process: its whole wall time, its output, and a time limit
//! after which it is killed (what it printed until then is kept).

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{Context as _, Result};

/// How one process ended.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The exit status; `None` when it was killed (by us at the time limit, or by a signal).
    pub code: Option<i32>,
    pub timed_out: bool,
    /// Seconds from the start of the process to its end (or to its kill).
    pub wall: f64,
    pub stdout: String,
    pub stderr: String,
}

/// Reads a pipe to its end on a thread of its own (so a full pipe never blocks the child).
fn drain(pipe: Option<impl Read + Send + 'static>) -> thread::JoinHandle<String> {
    thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// Runs `program args` with the extra environment `env`; kills it after `timeout`.
/// An error only when it cannot be started.
pub fn run(program: &Path, args: &[String], env: &[(String, String)], timeout: Option<Duration>) -> Result<Outcome> {
    let mut command = Command::new(program);
    command.args(args).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let start = Instant::now();
    let mut child = command.spawn().with_context(|| format!("cannot start `{}`", program.display()))?;
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().context("waiting for a warpcheck process")? {
            break status;
        }
        let elapsed = start.elapsed();
        if timeout.is_some_and(|t| elapsed >= t) {
            let _ = child.kill();
            timed_out = true;
            break child.wait().context("waiting for a killed warpcheck process")?;
        }
        // Poll often at first (start-up costs of a few milliseconds are measured), then
        // at most every 5 ms: the error stays under 0.5% of the wall time or 50 us.
        let nap = (elapsed / 200).clamp(Duration::from_micros(50), Duration::from_millis(5));
        thread::sleep(nap);
    };
    let wall = start.elapsed().as_secs_f64();
    Ok(Outcome {
        code: if timed_out { None } else { status.code() },
        timed_out,
        wall,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// `args` as one shell line (arguments with spaces or quotes single-quoted).
pub fn shell_line(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            let plain = !a.is_empty() && a.chars().all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
            if plain {
                a.clone()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_quoting() {
        let args: Vec<String> = ["explore", "a b.dve", "--weight", "x[0] + 1", "it's", ""].map(String::from).into();
        assert_eq!(shell_line(&args), "explore 'a b.dve' --weight 'x[0] + 1' 'it'\\''s' ''");
    }

    #[test]
    fn output_and_exit_status() {
        let sh = Path::new("/bin/sh");
        let o = run(sh, &["-c".into(), "echo out; echo err >&2; exit 3".into()], &[], None).unwrap();
        assert_eq!((o.code, o.timed_out, o.stdout.as_str(), o.stderr.as_str()), (Some(3), false, "out\n", "err\n"));
        let env = [("WB_TEST".to_string(), "v".to_string())];
        let o = run(sh, &["-c".into(), "echo $WB_TEST".into()], &env, None).unwrap();
        assert_eq!(o.stdout, "v\n");
    }

    #[test]
    fn time_limit_kills_and_keeps_output() {
        let sh = Path::new("/bin/sh");
        let o =
            run(sh, &["-c".into(), "echo early; exec sleep 5".into()], &[], Some(Duration::from_millis(300))).unwrap();
        assert!(o.timed_out);
        assert_eq!(o.code, None);
        assert_eq!(o.stdout, "early\n");
        assert!(o.wall < 4.0, "{}", o.wall);
    }

    #[test]
    fn missing_program_is_an_error() {
        assert!(run(Path::new("/nonexistent/warpcheck"), &[], &[], None).is_err());
    }
}
