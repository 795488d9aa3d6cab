//! The generated C as a host shared library: the glue around the model's source, the
//! compiler call and the on-disk cache.
//!
//! The library is cached beside the GPU's cubins (`warpcheck_cuda::nvrtc::cache_dir`):
//! `<key>-native.cpp` (the whole translation unit) and `<key>-native.so`, where the key
//! hashes the unit, the flags and the compiler's version line; a hit also compares the
//! unit. A cache that cannot be written only costs a compilation.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};

use warpcheck_cuda::nvrtc::{cache_dir, fnv};
use warpcheck_model::cuda::host::{host_tables, HOST_DEFINES};
use warpcheck_model::cuda::CudaSource;

use crate::NativeError;

/// Flags of every compilation: optimised, position independent, no warnings (the
/// generated code is also compiled by NVRTC, where its style is chosen).
const FLAGS: [&str; 7] = ["-x", "c++", "-std=c++17", "-O2", "-fPIC", "-shared", "-w"];

/// The sink the generated source emits into (after `HOST_DEFINES`): successors are
/// written up to `cap`.
const HEAD: &str = r#"
typedef struct { u32 *buf; u32 n; u32 cap; u32 errors; } WcSink;
static inline void wc_emit(WcSink *k, const u32 *t);
static inline void wc_emit_error(WcSink *k) { k->errors++; }
"#;

/// The sink (successors past `cap` are counted, not written) and the exported entry
/// points.
const TAIL: &str = r#"
static inline void wc_emit(WcSink *k, const u32 *t) {
  if (k->n < k->cap) {
    u32 *out = k->buf + (u64)k->n * WC_WORDS;
    for (int i = 0; i < WC_WORDS; i++) out[i] = t[i];
  }
  k->n++;
}
extern "C" u32 wc_native_words(void) { return WC_WORDS; }
extern "C" int wc_native_successors(const u32 *s, u32 *buf, u32 cap, u32 *n, u32 *errors) {
  WcSink k = { buf, 0, cap, 0 };
  int deadlock = wc_successors(s, &k);
  *n = k.n;
  *errors = k.errors;
  return deadlock;
}
"#;

/// The whole translation unit for `generated`.
pub fn unit(generated: &CudaSource) -> String {
    format!("{HOST_DEFINES}{HEAD}{}{}{TAIL}", host_tables(generated), generated.source)
}

/// A compiled library.
pub struct Library {
    pub path: PathBuf,
    /// A file to remove once loaded (compiled outside any cache).
    pub temporary: bool,
}

/// The compiler: `$CXX`, else `c++`.
fn compiler() -> String {
    std::env::var("CXX").ok().filter(|c| !c.trim().is_empty()).unwrap_or_else(|| "c++".to_string())
}

/// The compiler's first `--version` line, or why it cannot be run.
fn compiler_version(cxx: &str) -> Result<String, NativeError> {
    let out = Command::new(cxx)
        .arg("--version")
        .output()
        .map_err(|e| NativeError::NoCompiler(format!("cannot run the C++ compiler `{cxx}`: {e}")))?;
    if !out.status.success() {
        return Err(NativeError::NoCompiler(format!("`{cxx} --version` failed: {}", out.status)));
    }
    Ok(String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_string())
}

/// Compiles `unit` to a shared library, or finds it in the cache.
pub fn build(unit: &str) -> Result<Library, NativeError> {
    let cxx = compiler();
    let version = compiler_version(&cxx)?;
    let key = format!("{:016x}", fnv(format!("{unit}\0{FLAGS:?}\0{version}").as_bytes()));
    let (dir, temporary) = match cache_dir().filter(|d| std::fs::create_dir_all(d).is_ok()) {
        Some(d) => (d, false),
        None => (std::env::temp_dir(), true),
    };
    let (source, library) = (dir.join(format!("{key}-native.cpp")), dir.join(format!("{key}-native.so")));
    if !temporary && library.exists() && std::fs::read_to_string(&source).is_ok_and(|s| s == unit) {
        return Ok(Library { path: library, temporary });
    }
    // Written under names of this build, then renamed: concurrent runs never see a
    // half-written library.
    static BUILDS: AtomicU64 = AtomicU64::new(0);
    let tag = format!("{key}-{}-{}", std::process::id(), BUILDS.fetch_add(1, Ordering::Relaxed));
    let (tmp_source, tmp_library) = (dir.join(format!("{tag}.cpp")), dir.join(format!("{tag}.so")));
    std::fs::write(&tmp_source, unit).map_err(|e| io_error(&tmp_source, e))?;
    let out = Command::new(&cxx).args(FLAGS).arg("-o").arg(&tmp_library).arg(&tmp_source).output();
    let out = out.map_err(|e| NativeError::NoCompiler(format!("cannot run the C++ compiler `{cxx}`: {e}")))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp_library);
        return Err(NativeError::Compile(format!(
            "`{cxx}` failed on {}:\n{}",
            tmp_source.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    if temporary {
        let _ = std::fs::remove_file(&tmp_source);
        return Ok(Library { path: tmp_library, temporary });
    }
    std::fs::rename(&tmp_library, &library).map_err(|e| io_error(&library, e))?;
    // The source last: its presence marks a complete entry.
    std::fs::rename(&tmp_source, &source).map_err(|e| io_error(&source, e))?;
    Ok(Library { path: library, temporary })
}

fn io_error(path: &Path, e: std::io::Error) -> NativeError {
    NativeError::Compile(format!("cannot write {}: {e}", path.display()))
}
