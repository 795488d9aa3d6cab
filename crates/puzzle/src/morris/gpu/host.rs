//! [`Host`]: morris.cu compiled with `MM_HOST` by the system C++ compiler into a
//! shared library and loaded, its kernels run on a grid of one thread over buffers in
//! host memory. The tests solve the small games with it and compare every byte with
//! the CPU's solve: the host loop of [`super`] and the kernels, checked without a GPU.

use super::{Args, Kernel, Machine, SOURCE};
use crate::Error;
use libloading::Library;
use std::alloc::{alloc_zeroed, dealloc, Layout};
use std::cell::Cell;
use std::path::Path;
use std::process::Command;

/// A zeroed allocation of whole words in host memory, written by the kernels through
/// its address.
pub struct HostBuf {
    ptr: *mut u8,
    layout: Layout,
}

impl HostBuf {
    fn new(bytes: u64) -> Option<HostBuf> {
        let size = usize::try_from(bytes.div_ceil(4).max(1) * 4).ok()?;
        let layout = Layout::from_size_align(size, 8).ok()?;
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { alloc_zeroed(layout) };
        (!ptr.is_null()).then_some(HostBuf { ptr, layout })
    }
}

impl Drop for HostBuf {
    fn drop(&mut self) {
        // SAFETY: `ptr` was allocated by `alloc_zeroed` with `layout` and is freed once.
        unsafe { dealloc(self.ptr, self.layout) }
    }
}

/// The kernels loaded from a shared library.
pub struct Host {
    library: Library,
    counters: HostBuf,
    /// Launches made, for the tests.
    launches: Cell<u64>,
}

impl Host {
    /// Compiles morris.cu into `dir` (`g++ -std=c++17 -O2 -Wall -Werror -shared`) and
    /// loads it. Errors say when the compiler is missing or refuses the source.
    pub fn compile(dir: &Path) -> Result<Host, Error> {
        let source = dir.join("morris_host.cpp");
        let library = dir.join("libmorris_host.so");
        std::fs::write(&source, SOURCE).map_err(|e| Error::Io(format!("{}: {e}", source.display())))?;
        let out = Command::new("g++")
            .args(["-std=c++17", "-O2", "-Wall", "-Werror", "-DMM_HOST", "-shared", "-fPIC", "-o"])
            .arg(&library)
            .arg(&source)
            .output()
            .map_err(|e| Error::Gpu(format!("the host build of morris.cu needs g++: {e}")))?;
        if !out.status.success() {
            return Err(Error::Gpu(format!("g++ refused morris.cu:\n{}", String::from_utf8_lossy(&out.stderr))));
        }
        // SAFETY: the library is the one just compiled from morris.cu, whose only
        // initialisers are its constant tables; it runs no code when loaded.
        let library = unsafe { Library::new(&library) }.map_err(|e| Error::Gpu(e.to_string()))?;
        let counters = HostBuf::new(32).ok_or_else(|| Error::Gpu("no memory for the counters".into()))?;
        Ok(Host { library, counters, launches: Cell::new(0) })
    }

    /// Kernel launches so far.
    pub fn launches(&self) -> u64 {
        self.launches.get()
    }
}

impl Machine for Host {
    type Buf = HostBuf;

    fn name(&self) -> String {
        "host (one thread)".to_string()
    }

    fn alloc(&self, bytes: u64, what: &str) -> Result<HostBuf, Error> {
        HostBuf::new(bytes)
            .ok_or_else(|| Error::Unsupported(format!("the host build could not allocate {bytes} bytes for {what}")))
    }

    fn address(&self, buf: &HostBuf) -> u64 {
        buf.ptr as u64
    }

    fn upload(&self, buf: &mut HostBuf, data: &[u8]) -> Result<(), Error> {
        assert!(data.len() <= buf.layout.size());
        // SAFETY: `buf` holds at least `data.len()` bytes (checked) and no kernel runs.
        unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), buf.ptr, data.len()) };
        Ok(())
    }

    fn download(&self, buf: &HostBuf, len: u64) -> Result<Vec<u8>, Error> {
        assert!(len as usize <= buf.layout.size());
        // SAFETY: `buf` holds at least `len` initialised bytes (zeroed when allocated).
        Ok(unsafe { std::slice::from_raw_parts(buf.ptr, len as usize) }.to_vec())
    }

    fn run(&self, kernel: Kernel, args: &Args) -> Result<[u64; 4], Error> {
        let mut args = *args;
        args.counters = self.counters.ptr as u64;
        let counters = self.counters.ptr as *mut u64;
        // SAFETY: every kernel of morris.cu is `extern "C" void f(MmArgs)` in the host
        // build, and `Args` is `MmArgs` (`#[repr(C)]`, same fields and order). The
        // addresses in `args` are of `HostBuf`s the host loop keeps alive across the
        // call, each as large as the kernel's slots need (see device.rs's launch note);
        // the counters are this machine's 32 bytes, zeroed first. One thread runs the
        // kernel to its end before `run` returns, and no Rust reference to a buffer is
        // alive meanwhile.
        unsafe {
            let f = self
                .library
                .get::<unsafe extern "C" fn(Args)>(kernel.name().as_bytes())
                .map_err(|e| Error::Gpu(e.to_string()))?;
            std::ptr::write_bytes(counters, 0, 4);
            f(args);
            self.launches.set(self.launches.get() + 1);
            Ok([*counters, *counters.add(1), *counters.add(2), *counters.add(3)])
        }
    }
}
