//! Solved databases on disk, so that a solve can resume and a position can be looked up
//! without solving again: one file `nmm-A-B.db` per database, a 32-byte header (magic,
//! the piece counts, the slot count, an FNV-1a checksum of the values), then one byte
//! per slot. A file is written under a temporary name and renamed when complete; a file
//! whose header or checksum does not match is an error, never a silent re-solve.

use crate::Error;
use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"WCNMM01\n";

fn path(dir: &Path, a: u32, b: u32) -> PathBuf {
    dir.join(format!("nmm-{a}-{b}.db"))
}

fn checksum(values: &[u8]) -> u64 {
    values.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &v| (h ^ u64::from(v)).wrapping_mul(0x0100_0000_01b3))
}

fn io(what: &Path, e: std::io::Error) -> Error {
    Error::Io(format!("{}: {e}", what.display()))
}

/// Writes the database `(a, b)` into `dir` (created if missing).
pub fn save(dir: &Path, a: u32, b: u32, values: &[u8]) -> Result<(), Error> {
    fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let target = path(dir, a, b);
    let partial = target.with_extension("db.partial");
    let mut header = Vec::with_capacity(32);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&a.to_le_bytes());
    header.extend_from_slice(&b.to_le_bytes());
    header.extend_from_slice(&(values.len() as u64).to_le_bytes());
    header.extend_from_slice(&checksum(values).to_le_bytes());
    let mut f = fs::File::create(&partial).map_err(|e| io(&partial, e))?;
    f.write_all(&header).and_then(|()| f.write_all(values)).and_then(|()| f.sync_all()).map_err(|e| io(&partial, e))?;
    fs::rename(&partial, &target).map_err(|e| io(&target, e))
}

/// The database `(a, b)` of `slots` slots from `dir`, if its file is there.
pub fn load(dir: &Path, a: u32, b: u32, slots: u64) -> Result<Option<Vec<u8>>, Error> {
    let file = path(dir, a, b);
    let mut f = match fs::File::open(&file) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(&file, e)),
    };
    let mut header = [0u8; 32];
    f.read_exact(&mut header).map_err(|e| io(&file, e))?;
    let word = |i: usize| u64::from_le_bytes(header[i..i + 8].try_into().expect("8 bytes"));
    let bad = |why: &str| Error::Io(format!("{}: {why}; delete it to solve the database again", file.display()));
    if &header[..8] != MAGIC || header[8..12] != a.to_le_bytes() || header[12..16] != b.to_le_bytes() {
        return Err(bad("not a database of this version and piece count"));
    }
    if word(16) != slots {
        return Err(bad("the wrong number of slots"));
    }
    let mut values = Vec::new();
    f.read_to_end(&mut values).map_err(|e| io(&file, e))?;
    if values.len() as u64 != slots || checksum(&values) != word(24) {
        return Err(bad("truncated or damaged (the checksum does not match)"));
    }
    Ok(Some(values))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn databases_round_trip_and_damage_is_an_error() {
        let dir = std::env::temp_dir().join(format!("warpcheck-nmm-{}", std::process::id()));
        let values: Vec<u8> = (0..1000u32).map(|i| (i * 7 % 251) as u8).collect();
        assert_eq!(load(&dir, 3, 4, 1000).unwrap(), None);
        save(&dir, 3, 4, &values).unwrap();
        assert_eq!(load(&dir, 3, 4, 1000).unwrap(), Some(values.clone()));
        assert!(load(&dir, 3, 4, 999).is_err());
        let file = path(&dir, 3, 4);
        let mut bytes = fs::read(&file).unwrap();
        bytes[100] ^= 1;
        fs::write(&file, &bytes).unwrap();
        assert!(matches!(load(&dir, 3, 4, 1000), Err(Error::Io(_))));
        fs::remove_dir_all(&dir).unwrap();
    }
}
