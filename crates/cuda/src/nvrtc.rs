//! Run-time compilation of CUDA C with NVRTC, straight to a cubin for the device's
//! architecture, cached on disk per source text (a model explored twice, or the SCC
//! kernels of every run, are compiled once).
//!
//! The cache lives in `$WARPCHECK_CACHE`, else `$XDG_CACHE_HOME/warpcheck`, else
//! `~/.cache/warpcheck`: `<key>.cu` (the source) and `<key>.cubin`, where the key hashes
//! the source, the architecture, the NVRTC version and the options; a hit also compares
//! the source. A cache that cannot be read or written only costs a compilation.
//!
//! NVRTC is loaded dynamically: without `libnvrtc` every function here returns
//! [`CudaError::Compile`] saying so, never panics.

use std::ffi::{CStr, CString, OsString};
use std::path::PathBuf;
use std::time::Instant;

use cudarc::nvrtc::{result, sys};

use crate::CudaError;

/// A compiled module image and how it was obtained.
pub struct Compiled {
    pub cubin: Vec<u8>,
    pub seconds: f64,
    /// Found in the on-disk cache (no compilation).
    pub cached: bool,
}

fn nvrtc_error(e: impl std::fmt::Debug) -> CudaError {
    CudaError::Compile(format!("NVRTC: {e:?}"))
}

/// Whether the NVRTC library can be loaded.
pub fn available() -> bool {
    // SAFETY: this only tries to open the shared library by its candidate names
    // (`libloading`), which runs no code of ours and touches no shared state.
    unsafe { sys::is_culib_present() }
}

/// NVRTC's version, e.g. (13, 0).
pub fn version() -> Result<(i32, i32), CudaError> {
    // Dynamic loading panics on first use when the library is missing: ask first.
    if !available() {
        return Err(CudaError::Compile("NVRTC (libnvrtc) is not installed: CUDA C cannot be compiled".into()));
    }
    let (mut major, mut minor) = (0, 0);
    // SAFETY: the library is present (checked above); both out-pointers are live locals.
    unsafe { sys::nvrtcVersion(&mut major, &mut minor) }.result().map_err(nvrtc_error)?;
    Ok((major, minor))
}

/// 64-bit FNV-1a, for cache keys (also of the host-compiled model code).
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// The cache key of `source` compiled for `sm_<arch>` by NVRTC `version` with `extra`:
/// 16 hexadecimal digits.
pub fn cache_key(source: &str, arch: u32, version: (i32, i32), extra: &[String]) -> String {
    let (major, minor) = version;
    format!("{:016x}", fnv(format!("{source}\0sm_{arch}\0{major}.{minor}\0{extra:?}").as_bytes()))
}

/// The cache directory from the values of `WARPCHECK_CACHE`, `XDG_CACHE_HOME` and
/// `HOME`, in that order of preference; `None` without any of them.
fn cache_dir_from(cache: Option<OsString>, xdg: Option<OsString>, home: Option<OsString>) -> Option<PathBuf> {
    if let Some(dir) = cache {
        return Some(PathBuf::from(dir));
    }
    if let Some(dir) = xdg {
        return Some(PathBuf::from(dir).join("warpcheck"));
    }
    home.map(|h| PathBuf::from(h).join(".cache").join("warpcheck"))
}

/// The directory of the compilation cache (see the module documentation).
pub fn cache_dir() -> Option<PathBuf> {
    let var = std::env::var_os;
    cache_dir_from(var("WARPCHECK_CACHE"), var("XDG_CACHE_HOME"), var("HOME"))
}

/// Compiles `source` for `sm_<arch>` (e.g. 90) with NVRTC options `extra`, or takes
/// it from the cache.
pub fn compile(source: &str, arch: u32, extra: &[String]) -> Result<Compiled, CudaError> {
    let start = Instant::now();
    let key = cache_key(source, arch, version()?, extra);
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

fn compile_uncached(source: &str, arch: u32, extra: &[String]) -> Result<Vec<u8>, CudaError> {
    let (image, log) = compile_with_log(source, arch, extra)?;
    image.map_err(|e| CudaError::Compile(format!("NVRTC failed to compile the generated code ({e}):\n{log}")))
}

/// ptxas's report of what every kernel of `source` uses (registers, stack frame,
/// spills, constant memory): the compilation log with `--ptxas-options=-v`.
pub fn resource_report(source: &str, arch: u32, extra: &[String]) -> Result<String, CudaError> {
    let mut options = extra.to_vec();
    options.push("--ptxas-options=-v".to_string());
    let (image, log) = compile_with_log(source, arch, &options)?;
    match image {
        Ok(_) => Ok(log),
        Err(e) => Err(CudaError::Compile(format!("NVRTC failed to compile the generated code ({e}):\n{log}"))),
    }
}

/// Compiles `source`; returns the image (or NVRTC's error) and the program log.
fn compile_with_log(source: &str, arch: u32, extra: &[String]) -> Result<(Result<Vec<u8>, String>, String), CudaError> {
    version()?; // NVRTC is present
    let src = CString::new(source).map_err(|_| CudaError::Compile("the CUDA source contains a NUL byte".into()))?;
    // `src` and the name outlive `prog` (destroyed below), as NVRTC requires.
    let prog = result::create_program(&src, Some(c"warpcheck_model.cu")).map_err(nvrtc_error)?;
    let mut options = vec![format!("--gpu-architecture=sm_{arch}"), "--std=c++17".to_string(), "-w".to_string()];
    options.extend(extra.iter().cloned());
    // SAFETY: `prog` was created above and is destroyed only at the end of this function;
    // no option contains a NUL byte (they are ours, or the caller's NVRTC flags).
    let compiled = unsafe { result::compile_program(prog, &options) };
    // SAFETY: as above, `prog` is live.
    let log = unsafe { result::get_program_log(prog) }
        .map(|raw| {
            let bytes: Vec<u8> = raw.iter().map(|&c| c as u8).collect();
            CStr::from_bytes_until_nul(&bytes)
                .map_or_else(|_| String::from_utf8_lossy(&bytes).into_owned(), |log| log.to_string_lossy().into_owned())
        })
        .unwrap_or_default();
    let image = match compiled {
        Err(e) => Err(format!("{e:?}")),
        Ok(()) => cubin(prog),
    };
    // SAFETY: `prog` is live and not used after this call.
    unsafe { result::destroy_program(prog) }.map_err(nvrtc_error)?;
    Ok((image, log))
}

/// The cubin of the compiled program `prog`.
fn cubin(prog: sys::nvrtcProgram) -> Result<Vec<u8>, String> {
    let mut size = 0usize;
    // SAFETY: `prog` is a live, successfully compiled program (see `compile_with_log`);
    // `size` is a live local.
    unsafe { sys::nvrtcGetCUBINSize(prog, &mut size) }.result().map_err(|e| format!("NVRTC: {e:?}"))?;
    let mut image = vec![0u8; size];
    // SAFETY: `image` has the `size` bytes NVRTC just reported for this program's cubin.
    unsafe { sys::nvrtcGetCUBIN(prog, image.as_mut_ptr().cast()) }.result().map_err(|e| format!("NVRTC: {e:?}"))?;
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_where_the_environment_says() {
        let os = |s: &str| Some(OsString::from(s));
        assert_eq!(cache_dir_from(os("/c"), os("/x"), os("/h")), Some(PathBuf::from("/c")));
        assert_eq!(cache_dir_from(None, os("/x"), os("/h")), Some(PathBuf::from("/x/warpcheck")));
        assert_eq!(cache_dir_from(None, None, os("/h")), Some(PathBuf::from("/h/.cache/warpcheck")));
        assert_eq!(cache_dir_from(None, None, None), None);
    }

    #[test]
    fn the_key_changes_with_everything_the_cubin_depends_on() {
        let key = cache_key("src", 90, (13, 0), &[]);
        assert_eq!(key.len(), 16);
        assert!(key.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(key, cache_key("src", 90, (13, 0), &[]));
        for other in [
            cache_key("src ", 90, (13, 0), &[]),
            cache_key("src", 80, (13, 0), &[]),
            cache_key("src", 90, (13, 1), &[]),
            cache_key("src", 90, (13, 0), &["--maxrregcount=64".to_string()]),
        ] {
            assert_ne!(key, other);
        }
    }

    #[test]
    fn fnv_is_the_reference_fnv1a() {
        // The published FNV-1a 64 test vectors.
        assert_eq!(fnv(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn without_nvrtc_compiling_is_an_error_not_a_panic() {
        if available() {
            return;
        }
        let e = compile("extern \"C\" __global__ void k() {}", 90, &[]).err().expect("no NVRTC, no cubin");
        assert!(matches!(e, CudaError::Compile(_)), "{e}");
        assert!(e.to_string().contains("libnvrtc"), "{e}");
        assert!(resource_report("", 90, &[]).is_err());
    }
}
