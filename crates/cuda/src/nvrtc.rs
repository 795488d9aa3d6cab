//! Run-time compilation of the generated CUDA C with NVRTC, straight to a cubin for the
//! device's architecture, cached on disk per source text (a model explored twice is
//! compiled once).
//!
//! The cache lives in `$WARPCHECK_CACHE`, else `$XDG_CACHE_HOME/warpcheck`, else
//! `~/.cache/warpcheck`: `<key>.cu` (the source) and `<key>.cubin`, where the key hashes
//! the source, the architecture and the NVRTC version; a hit also compares the source.

use std::ffi::{CStr, CString};
use std::path::PathBuf;
use std::time::Instant;

use cudarc::nvrtc::{result, sys};

/// A compiled module image and how it was obtained.
pub struct Compiled {
    pub cubin: Vec<u8>,
    pub seconds: f64,
    /// Found in the on-disk cache (no compilation).
    pub cached: bool,
}

/// NVRTC's version, e.g. (13, 0).
pub fn version() -> Result<(i32, i32), String> {
    let (mut major, mut minor) = (0, 0);
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }.result().map_err(|e| format!("NVRTC: {e:?}"))?;
    Ok((major, minor))
}

/// 64-bit FNV-1a, for cache keys.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("WARPCHECK_CACHE") {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(dir).join("warpcheck"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("warpcheck"))
}

/// Compiles `source` for `sm_<arch>` (e.g. 90) with NVRTC options `extra`, or takes
/// it from the cache.
pub fn compile(source: &str, arch: u32, extra: &[String]) -> Result<Compiled, String> {
    let start = Instant::now();
    let (major, minor) = version()?;
    let key = format!("{:016x}", fnv(format!("{source}\0sm_{arch}\0{major}.{minor}\0{extra:?}").as_bytes()));
    let dir = cache_dir();
    if let Some(dir) = &dir {
        let (cu, cubin) = (dir.join(format!("{key}.cu")), dir.join(format!("{key}.cubin")));
        if std::fs::read_to_string(&cu).is_ok_and(|s| s == source) {
            if let Ok(image) = std::fs::read(&cubin) {
                return Ok(Compiled { cubin: image, seconds: start.elapsed().as_secs_f64(), cached: true });
            }
        }
    }
    let image = compile_uncached(source, arch, extra)?;
    if let Some(dir) = &dir {
        // A cache that cannot be written only costs a compilation next time.
        let _ = std::fs::create_dir_all(dir)
            .and_then(|_| std::fs::write(dir.join(format!("{key}.cubin")), &image))
            .and_then(|_| std::fs::write(dir.join(format!("{key}.cu")), source));
    }
    Ok(Compiled { cubin: image, seconds: start.elapsed().as_secs_f64(), cached: false })
}

fn compile_uncached(source: &str, arch: u32, extra: &[String]) -> Result<Vec<u8>, String> {
    let (image, log) = compile_with_log(source, arch, extra)?;
    image.map_err(|e| format!("NVRTC failed to compile the generated code ({e}):\n{log}"))
}

/// ptxas's report of what every kernel of `source` uses (registers, stack frame,
/// spills, constant memory): the compilation log with `--ptxas-options=-v`.
pub fn resource_report(source: &str, arch: u32, extra: &[String]) -> Result<String, String> {
    let mut options = extra.to_vec();
    options.push("--ptxas-options=-v".to_string());
    let (image, log) = compile_with_log(source, arch, &options)?;
    match image {
        Ok(_) => Ok(log),
        Err(e) => Err(format!("NVRTC failed to compile the generated code ({e}):\n{log}")),
    }
}

/// Compiles `source`; returns the image (or NVRTC's error) and the program log.
fn compile_with_log(source: &str, arch: u32, extra: &[String]) -> Result<(Result<Vec<u8>, String>, String), String> {
    let src = CString::new(source).map_err(|_| "generated source contains a NUL byte".to_string())?;
    let name = CString::new("warpcheck_model.cu").unwrap();
    let prog = result::create_program(&src, Some(&name)).map_err(|e| format!("NVRTC: {e:?}"))?;
    let mut options = vec![format!("--gpu-architecture=sm_{arch}"), "--std=c++17".to_string(), "-w".to_string()];
    options.extend(extra.iter().cloned());
    let compiled = unsafe { result::compile_program(prog, &options) };
    let log = unsafe { result::get_program_log(prog) }
        .map(|raw| unsafe { CStr::from_ptr(raw.as_ptr()) }.to_string_lossy().into_owned())
        .unwrap_or_default();
    let image = match compiled {
        Err(e) => Err(format!("{e:?}")),
        Ok(()) => cubin(prog),
    };
    unsafe { result::destroy_program(prog) }.map_err(|e| format!("NVRTC: {e:?}"))?;
    Ok((image, log))
}

fn cubin(prog: sys::nvrtcProgram) -> Result<Vec<u8>, String> {
    let mut size = 0usize;
    unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) }.result().map_err(|e| format!("NVRTC: {e:?}"))?;
    let mut image = vec![0u8; size];
    unsafe { sys::nvrtcGetCUBIN(prog, image.as_mut_ptr().cast()) }.result().map_err(|e| format!("NVRTC: {e:?}"))?;
    Ok(image)
}
