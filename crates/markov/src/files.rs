//! Loading and saving models by file name: the format from the extension (`.drn`, or
//! `.tra` with its sibling `.lab`, `.sta`, `.srew`, `.trew` files), and gzip compression,
//! read and written transparently, for names ending in `.gz`.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::drn;
use crate::error::Error;
use crate::explicit::ExplicitFiles;
use crate::sparse::{ModelType, SparseModel};

/// The file formats of a whole model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Storm's DRN (`.drn`, `.drn.gz`).
    Drn,
    /// PRISM's explicit files, named by the `.tra` (or `.tra.gz`) file.
    Explicit,
}

impl Format {
    /// The format of `path` by its extension (after a `.gz`), if it names one.
    pub fn of(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?;
        let name = name.strip_suffix(".gz").unwrap_or(name);
        if name.ends_with(".drn") {
            Some(Format::Drn)
        } else if name.ends_with(".tra") {
            Some(Format::Explicit)
        } else {
            None
        }
    }

    fn of_or_error(path: &Path) -> Result<Format, Error> {
        Format::of(path).ok_or_else(|| Error::Files {
            file: path.display().to_string(),
            reason: "unknown model file: expected a name ending in .drn or .tra (optionally followed by .gz)".into(),
        })
    }
}

/// Whether `path` is read and written gzip-compressed (its name ends in `.gz`).
pub fn is_gzip(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "gz")
}

const BUFFER: usize = 1 << 16;

/// Opens `path` for reading, decompressing it if its name ends in `.gz`.
pub fn open(path: &Path) -> Result<Box<dyn BufRead>, Error> {
    let file = File::open(path).map_err(|source| Error::Io { file: path.display().to_string(), source })?;
    if is_gzip(path) {
        Ok(Box::new(BufReader::with_capacity(BUFFER, MultiGzDecoder::new(BufReader::with_capacity(BUFFER, file)))))
    } else {
        Ok(Box::new(BufReader::with_capacity(BUFFER, file)))
    }
}

/// A file being written, compressed or not.
enum Sink {
    Plain(BufWriter<File>),
    Gzip(GzEncoder<BufWriter<File>>),
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Sink::Plain(w) => w.write(buf),
            Sink::Gzip(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Sink::Plain(w) => w.flush(),
            Sink::Gzip(w) => w.flush(),
        }
    }
}

/// Creates `path` and lets `write` fill it (compressed if its name ends in `.gz`),
/// naming it in errors as `path` shows.
pub(crate) fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write, &str) -> Result<(), Error>,
) -> Result<(), Error> {
    let name = path.display().to_string();
    let io = |source| Error::Io { file: name.clone(), source };
    let file = BufWriter::with_capacity(BUFFER, File::create(path).map_err(io)?);
    let mut sink =
        if is_gzip(path) { Sink::Gzip(GzEncoder::new(file, Compression::default())) } else { Sink::Plain(file) };
    write(&mut sink, &name)?;
    match sink {
        Sink::Plain(mut w) => w.flush().map_err(io),
        Sink::Gzip(w) => w.finish().map_err(io)?.flush().map_err(io),
    }
}

/// Opens `path` (decompressing a `.gz`) and lets `read` parse it, naming it in errors as
/// `path` shows.
pub(crate) fn read_file<T>(
    path: &Path,
    read: impl FnOnce(&mut dyn BufRead, &str) -> Result<T, Error>,
) -> Result<T, Error> {
    let mut input = open(path)?;
    read(&mut input, &path.display().to_string())
}

/// Loads the model of `path`: a DRN file (`.drn`), or PRISM's explicit files named by
/// their `.tra` file (with the `.lab`, `.sta`, `.srew` and `.trew` files beside it that
/// share its stem; see [`ExplicitFiles::find`]); `.gz` files are decompressed.
///
/// `model_type` is what a `.tra` file with a two-number header holds (DTMC if `None`; a
/// three-number header is an MDP); for DRN files, which name their type, it is checked
/// if given.
pub fn load(path: &Path, model_type: Option<ModelType>) -> Result<SparseModel, Error> {
    match Format::of_or_error(path)? {
        Format::Drn => {
            let model = read_file(path, |input, name| drn::read(input, name))?;
            if let Some(asked) = model_type.filter(|&t| t != model.model_type) {
                let reason =
                    format!("the file holds a {}, not the {} asked for", model.model_type.name(), asked.name());
                return Err(Error::Files { file: path.display().to_string(), reason });
            }
            Ok(model)
        }
        Format::Explicit => ExplicitFiles::find(path)?.read(model_type),
    }
}

/// Saves `model` to `path`: a DRN file (`.drn`), or PRISM's explicit files named by
/// their `.tra` file (see [`ExplicitFiles::for_model`] for the other names); compressed
/// if `path` ends in `.gz`.
pub fn save(path: &Path, model: &SparseModel) -> Result<(), Error> {
    match Format::of_or_error(path)? {
        Format::Drn => write_file(path, |out, name| drn::write(model, out, name)),
        Format::Explicit => ExplicitFiles::for_model(path, model)?.write(model),
    }
}
