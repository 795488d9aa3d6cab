//! `warpcheck export INPUT`: a DVE model (channel-only, spec §6.4) or a network
//! (`.exp`, `.gpf`, `.aut`) written as a network: `--network DIR` (an `.exp` and one
//! `.aut` per component) or `--gpf FILE` (GPUexplore's format and its `.labels`).

use std::path::{Path, PathBuf};

use clap::Args;
use warpcheck_lts::{from_dve, gpf, write_exp, Network};

use crate::error::{CliError, Verdict};
use crate::frontend::network::NetworkArgs;

/// Arguments of `export`.
#[derive(Args)]
pub struct ExportArgs {
    /// A DVE model whose processes share no variable and talk through rendezvous
    /// channels, or a network (`.exp`, `.gpf`, `.aut`).
    input: PathBuf,
    /// Write the network into DIR: `NAME.exp` and one `.aut` per component.
    #[arg(long, value_name = "DIR", required_unless_present = "gpf")]
    network: Option<PathBuf>,
    /// Write the network as a GPUexplore `.gpf` file (and FILE.labels).
    #[arg(long, value_name = "FILE")]
    gpf: Option<PathBuf>,
    #[command(flatten)]
    options: NetworkArgs,
}

fn write(path: &Path, text: &str) -> Result<(), CliError> {
    std::fs::write(path, text).map_err(|e| CliError::Input(format!("cannot write `{}`: {e}", path.display())))
}

fn invalid(e: warpcheck_lts::Error) -> CliError {
    CliError::Input(e.to_string())
}

/// Runs `export`.
pub fn run(args: ExportArgs) -> Result<Verdict, CliError> {
    let net: Network = if args.input.extension().is_some_and(|e| e == "dve") {
        let options = crate::frontend::LoadOptions::default();
        let dve = crate::frontend::load_dve(&args.input, &options)?;
        from_dve::network(&dve.model).map_err(invalid)?
    } else {
        crate::frontend::network::load(&args.input, &args.options)?
    };
    let name = args.input.file_stem().map_or_else(|| "network".into(), |s| s.to_string_lossy().into_owned());
    if let Some(dir) = &args.network {
        std::fs::create_dir_all(dir).map_err(|e| CliError::Input(format!("cannot create `{}`: {e}", dir.display())))?;
        let files = write_exp::files(&net, &name).map_err(invalid)?;
        for (file, text) in &files {
            write(&dir.join(file), text)?;
        }
        let states: u64 = net.components.iter().map(|c| c.states() as u64).sum();
        println!(
            "{} components ({states} local states), {} vectors: {}",
            net.components.len(),
            net.groups.len(),
            dir.join(&files[0].0).display()
        );
    }
    if let Some(file) = &args.gpf {
        let (text, labels) = gpf::write(&net).map_err(invalid)?;
        write(file, &text)?;
        let mut side = file.as_os_str().to_owned();
        side.push(".labels");
        write(Path::new(&side), &labels)?;
        println!("{}: {} components, GPUexplore gpf-2016", file.display(), net.components.len());
    }
    Ok(Verdict::Holds)
}
