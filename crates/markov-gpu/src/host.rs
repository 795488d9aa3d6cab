//! sweeps.cu and mec.cu on the host: the source compiled as C++ with one-thread
//! stand-ins for the CUDA built-ins (`MK_FOR` a plain loop from the last unknown down,
//! `MK_RAISE` a plain store, `ME_MAX` a plain maximum) into a shared library and called through `libloading`, so that the tests run the GPU engine's
//! whole logic (batches, flags, buffer parity) without a GPU. Built with `$CXX` (else
//! `c++`) and `-ffp-contract=off`, the rounding of the CPU and of the device kernels.

use std::path::PathBuf;
use std::process::Command;

use crate::lanes::{Kernel, Lanes, MeArgs, MecKernel, MkIter, MkSystem, SOURCE};

/// The stand-ins, before the source.
const PRELUDE: &str = r#"
#include <math.h>
#define MK_FOR(i, n) for (mk_u64 t_ = 0, i = (n) - 1 - t_; t_ < (n); t_++, i = (n) - 1 - t_)
#define MK_RAISE(flag, bad) do { if (bad) *(flag) = 1; } while (0)
#define MK_DEVICE static inline
#define MK_KERNEL extern "C" void
static inline unsigned me_host_max(unsigned *p, unsigned v) { unsigned o = *p; if (v > o) *p = v; return o; }
#define ME_MAX(p, v) me_host_max((unsigned *)(p), (v))
static inline unsigned me_host_add(unsigned *p, unsigned v) { unsigned o = *p; *p = o + v; return o; }
#define ME_ADD(p, v) me_host_add((p), (v))
#define ME_FENCE() do {} while (0)
"#;

type KernelFn = unsafe extern "C" fn(MkSystem, MkIter);
type MecKernelFn = unsafe extern "C" fn(MeArgs);

/// The kernels as host functions.
pub struct Host {
    _library: libloading::Library,
    kernels: Vec<KernelFn>,
    mec_kernels: Vec<MecKernelFn>,
}

/// A host buffer: 8-byte words (every kernel vector is of `f64`, `u64` or `u32`), owned
/// through a raw pointer since the kernels write through its address.
pub struct HostBuf {
    ptr: *mut u64,
    words: usize,
    bytes: usize,
}

impl Drop for HostBuf {
    fn drop(&mut self) {
        // SAFETY: `ptr` and `words` come from `Box::into_raw` of a boxed slice of that
        // length in `Host::zeros`, and are freed only here.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(self.ptr, self.words)) });
    }
}

impl Host {
    /// Compiles sweeps.cu and mec.cu for the host into the temporary directory and
    /// loads them.
    pub fn compile() -> Result<Host, String> {
        let dir = std::env::temp_dir();
        let stamp = format!(
            "{}-{}",
            std::process::id(),
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos())
        );
        let source: PathBuf = dir.join(format!("warpcheck-sweeps-{stamp}.cpp"));
        let library: PathBuf = dir.join(format!("warpcheck-sweeps-{stamp}.so"));
        std::fs::write(&source, format!("{PRELUDE}\n{SOURCE}")).map_err(|e| e.to_string())?;
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        let out = Command::new(&cxx)
            .args(["-x", "c++", "-std=c++17", "-O2", "-fPIC", "-shared", "-ffp-contract=off", "-Wall", "-Werror"])
            .arg(&source)
            .arg("-o")
            .arg(&library)
            .output()
            .map_err(|e| format!("cannot run {cxx}: {e}"))?;
        let _ = std::fs::remove_file(&source);
        if !out.status.success() {
            return Err(format!("{cxx} failed: {}", String::from_utf8_lossy(&out.stderr)));
        }
        // SAFETY: the library is ours, just built from sweeps.cu; loading it runs no
        // initialisers beyond the C++ runtime's.
        let lib = unsafe { libloading::Library::new(&library) }.map_err(|e| e.to_string());
        let _ = std::fs::remove_file(&library);
        let lib = lib?;
        let mut kernels = Vec::new();
        for k in Kernel::ALL {
            // SAFETY: every kernel of sweeps.cu is `extern "C" void f(MkSystem, MkIter)`
            // with the stand-ins, which `KernelFn` is (the structs are `#[repr(C)]`
            // copies of the C ones).
            let f: libloading::Symbol<KernelFn> = unsafe { lib.get(k.name().as_bytes()) }.map_err(|e| e.to_string())?;
            kernels.push(*f);
        }
        let mut mec_kernels = Vec::new();
        for k in MecKernel::ALL {
            // SAFETY: every kernel of mec.cu is `extern "C" void f(MeArgs)` with the
            // stand-ins, which `MecKernelFn` is (`MeArgs` is a `#[repr(C)]` copy).
            let f: libloading::Symbol<MecKernelFn> =
                unsafe { lib.get(k.name().as_bytes()) }.map_err(|e| e.to_string())?;
            mec_kernels.push(*f);
        }
        Ok(Host { _library: lib, kernels, mec_kernels })
    }
}

impl Lanes for Host {
    type Buf = HostBuf;

    fn name(&self) -> &'static str {
        "host"
    }

    fn upload(&self, bytes: &[u8]) -> Result<HostBuf, String> {
        let mut buf = self.zeros(bytes.len())?;
        self.write(&mut buf, 0, bytes)?;
        Ok(buf)
    }

    fn zeros(&self, bytes: usize) -> Result<HostBuf, String> {
        let words = bytes.div_ceil(8).max(1);
        let ptr = Box::into_raw(vec![0u64; words].into_boxed_slice()) as *mut u64;
        Ok(HostBuf { ptr, words, bytes })
    }

    fn download(&self, buf: &HostBuf, out: &mut [u8]) -> Result<(), String> {
        assert!(out.len() <= buf.bytes);
        // SAFETY: `buf` owns `words * 8 >= bytes >= out.len()` bytes at `ptr`, and no
        // kernel runs (launches return when done).
        unsafe { std::ptr::copy_nonoverlapping(buf.ptr as *const u8, out.as_mut_ptr(), out.len()) };
        Ok(())
    }

    fn write(&self, buf: &mut HostBuf, offset: usize, bytes: &[u8]) -> Result<(), String> {
        assert!(offset + bytes.len() <= buf.bytes);
        // SAFETY: as in `download`, the range is inside the buffer.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), (buf.ptr as *mut u8).add(offset), bytes.len()) };
        Ok(())
    }

    fn addr(&self, buf: &HostBuf) -> u64 {
        buf.ptr as u64
    }

    unsafe fn launch(&self, kernel: Kernel, _n: u64, sys: &MkSystem, it: &MkIter) -> Result<(), String> {
        // SAFETY: the caller guarantees that the addresses are of live buffers of these
        // lanes, large enough for the kernel (this function's contract); the kernel is
        // the host build of sweeps.cu with the signature `KernelFn`.
        unsafe { (self.kernels[kernel as usize])(*sys, *it) };
        Ok(())
    }

    unsafe fn launch_mec(&self, kernel: MecKernel, args: &MeArgs) -> Result<(), String> {
        // SAFETY: the caller guarantees that the addresses are of live buffers of these
        // lanes, large enough for the kernel (this function's contract); the kernel is
        // the host build of mec.cu with the signature `MecKernelFn`.
        unsafe { (self.mec_kernels[kernel as usize])(*args) };
        Ok(())
    }
}
