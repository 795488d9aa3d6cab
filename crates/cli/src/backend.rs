//! `--backend cpu|gpu|auto`: one meaning on every command with a GPU path.
//!
//! - `cpu`: the CPU.
//! - `gpu`: the GPU of `--device N`; an error (exit 2) when the command, as asked,
//!   has no GPU version (the message says why) or when there is no CUDA device.
//! - `auto`: the GPU when one is present and the command, as asked, runs there; else
//!   the CPU, with a one-line note on standard error when a GPU is present but cannot
//!   be used (an algorithm or option without a GPU version, a `--device` that does
//!   not exist, a model the GPU code generator cannot take). No note when there is
//!   no GPU at all.
//!
//! Each command states its GPU path as a `Result<(), String>` (the reason when there
//! is none) and asks [`Backend::place`]; the defaults differ (the commands' help says
//! which), the meaning does not.

use clap::ValueEnum;
use warpcheck_explore::gpu::GpuError;

use crate::error::CliError;

/// Where a command may run, as asked on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Backend {
    /// The CPU.
    Cpu,
    /// A CUDA GPU (an error without one).
    Gpu,
    /// The GPU when one is present and the command runs there, else the CPU.
    Auto,
}

/// Where a command runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    Cpu,
    Gpu,
}

impl Placement {
    /// The name reports use (`"cpu"`, `"gpu"`).
    pub fn name(self) -> &'static str {
        match self {
            Placement::Cpu => "cpu",
            Placement::Gpu => "gpu",
        }
    }
}

/// Why device `--device N` cannot be used.
enum Absent {
    /// No driver or no device at all.
    NoGpu(String),
    /// Devices exist, but not this one.
    NoSuchDevice(String),
}

/// Whether CUDA device `device` exists.
fn probe(device: usize) -> Result<(), Absent> {
    match warpcheck_explore::gpu::device_count() {
        Err(GpuError::NoDevice(why)) => Err(Absent::NoGpu(why)),
        Err(e) => Err(Absent::NoGpu(e.to_string())),
        Ok(count) if count <= 0 => Err(Absent::NoGpu("the CUDA driver reports no device".into())),
        Ok(count) if device >= count as usize => {
            Err(Absent::NoSuchDevice(format!("device {device} requested, {count} present")))
        }
        Ok(_) => Ok(()),
    }
}

/// Prints a one-line note on standard error.
pub fn note(text: impl std::fmt::Display) {
    eprintln!("note: {text}");
}

impl Backend {
    /// Where to run. `gpu_path`: `Ok` when the command, as asked, runs on the GPU, or
    /// the reason it does not (a clause such as "ndfs runs on the CPU only").
    pub fn place(self, device: usize, gpu_path: Result<(), String>) -> Result<Placement, CliError> {
        match self {
            Backend::Cpu => Ok(Placement::Cpu),
            Backend::Gpu => {
                gpu_path.map_err(|why| CliError::Input(format!("{why}; use --backend cpu or auto")))?;
                match probe(device) {
                    Ok(()) => Ok(Placement::Gpu),
                    Err(Absent::NoGpu(why) | Absent::NoSuchDevice(why)) => Err(CliError::NoGpu(format!(
                        "{why} (--backend gpu needs one; --backend auto runs on the CPU without)"
                    ))),
                }
            }
            Backend::Auto => match (probe(device), gpu_path) {
                (Err(Absent::NoGpu(_)), _) => Ok(Placement::Cpu),
                (Err(Absent::NoSuchDevice(why)), _) => {
                    note(format!("{why}; running on the CPU"));
                    Ok(Placement::Cpu)
                }
                (Ok(()), Err(why)) => {
                    note(format!("{why}; running on the CPU"));
                    Ok(Placement::Cpu)
                }
                (Ok(()), Ok(())) => Ok(Placement::Gpu),
            },
        }
    }

    /// Under `auto`, whether a GPU run that failed with `e` is tried again on the CPU
    /// (after a note): when the GPU cannot take the model at all, never when it ran
    /// out of room or failed.
    pub fn falls_back(self, e: &GpuError) -> bool {
        let retry = self == Backend::Auto
            && matches!(e, GpuError::Unsupported(_) | GpuError::Compile(_) | GpuError::NoDevice(_));
        if retry {
            note(format!("{e}; running on the CPU"));
        }
        retry
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_is_always_the_cpu_and_gpu_explains_why_not() {
        assert_eq!(Backend::Cpu.place(0, Err("no".into())).unwrap(), Placement::Cpu);
        let e = Backend::Gpu.place(0, Err("tarjan does not run on the GPU".into())).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert!(e.to_string().starts_with("tarjan does not run on the GPU; use --backend cpu"), "{e}");
    }

    #[test]
    fn without_a_gpu() {
        if warpcheck_explore::gpu::device_available() {
            return;
        }
        assert_eq!(Backend::Auto.place(0, Ok(())).unwrap(), Placement::Cpu);
        let e = Backend::Gpu.place(0, Ok(())).unwrap_err();
        assert!(matches!(e, CliError::NoGpu(_)) && e.exit_code() == 2, "{e}");
    }
}
