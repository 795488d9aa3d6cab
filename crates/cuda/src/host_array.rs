//! [`HostArray`]: an array of `u64` in host memory that kernels read and write in
//! place, at the same address as on the host. A large virtual range is reserved once
//! (no memory is committed), and pinned and mapped for the device a chunk at a time as
//! it grows, so that a run that needs little pins little. It is how a GPU store keeps
//! what it reads once per state in host memory instead of the device's.
//!
//! Written by hand on the driver's `cuMemHostRegister`: cudarc's pinned buffers are
//! allocated whole, and a growing array must keep one address range for the device.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdevice_attribute};
use cudarc::driver::CudaContext;

use crate::CudaError;

/// Chunks are multiples of this (the largest page size the host is likely to use).
const CHUNK_ALIGN: usize = 2 << 20;
/// Bytes per value.
const VALUE: usize = 8;

/// A growing `u64` array in host memory, mapped for the device at its host address.
pub struct HostArray {
    ctx: Arc<CudaContext>,
    /// Value 0, at a multiple of `CHUNK_ALIGN` inside `mapping`.
    base: *mut u64,
    /// Reserved bytes from `base` (a multiple of `CHUNK_ALIGN`).
    reserved: usize,
    /// The mapping's start and length, for `munmap`.
    mapping: (*mut c_void, usize),
    /// Each pinned chunk's start and length in bytes, in order and contiguous.
    chunks: Vec<(usize, usize)>,
}

// SAFETY: the array owns its range; the raw pointer is only an address (the type hands
// out no references that outlive a borrow of it), and the driver calls it makes are
// thread-safe once the context is bound.
unsafe impl Send for HostArray {}

impl HostArray {
    /// Reserves room for `len` values, none pinned yet. Fails when the device cannot use
    /// registered host memory at its host address, or the address space is short.
    pub fn reserve(ctx: &Arc<CudaContext>, len: usize) -> Result<HostArray, CudaError> {
        let same_address =
            ctx.attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM)?;
        if same_address == 0 {
            return Err(CudaError::Internal(
                "this device cannot address registered host memory at its host address".into(),
            ));
        }
        let reserved = (len.max(1) * VALUE).next_multiple_of(CHUNK_ALIGN);
        let size = reserved + CHUNK_ALIGN;
        // SAFETY: an anonymous private mapping of fresh address space; nothing else is
        // at the address the kernel picks, and `Drop` unmaps exactly this range.
        let mapping = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if mapping == libc::MAP_FAILED {
            return Err(CudaError::Internal(format!(
                "could not reserve {reserved} bytes of host address space: {}",
                std::io::Error::last_os_error()
            )));
        }
        let base = (mapping as usize).next_multiple_of(CHUNK_ALIGN) as *mut u64;
        // SAFETY: `base..base + reserved` lies inside the mapping; a failed madvise only
        // means small pages (huge ones fault in and pin many times faster).
        unsafe { libc::madvise(base.cast(), reserved, libc::MADV_HUGEPAGE) };
        Ok(HostArray { ctx: ctx.clone(), base, reserved, mapping: (mapping, size), chunks: Vec::new() })
    }

    /// The address of value 0, on the host and on the device alike.
    pub fn address(&self) -> u64 {
        self.base as u64
    }

    /// The values pinned and mapped so far (the ones kernels may touch).
    pub fn mapped(&self) -> usize {
        self.chunks.last().map_or(0, |&(at, bytes)| (at + bytes) / VALUE)
    }

    /// Pins and maps at least the first `len` values (at most the reserved ones),
    /// and at least twice as many as before; returns how many are mapped. A failure leaves the mapped ones as they were.
    pub fn grow_to(&mut self, len: usize) -> Result<usize, CudaError> {
        let mapped = self.mapped() * VALUE;
        let want = len.saturating_mul(VALUE).min(self.reserved);
        if want <= mapped {
            return Ok(self.mapped());
        }
        let end = want.max(2 * mapped).next_multiple_of(CHUNK_ALIGN).min(self.reserved);
        let bytes = end - mapped;
        self.ctx.bind_to_thread()?;
        // SAFETY: `mapped..end` lies inside the reserved range and is not pinned yet, so
        // no kernel uses it.
        unsafe { touch(self.base.cast::<u8>().add(mapped), bytes) };
        let flags = sys::CU_MEMHOSTREGISTER_PORTABLE | sys::CU_MEMHOSTREGISTER_DEVICEMAP;
        // SAFETY: `mapped` is inside the reserved range that starts at `base`.
        let at = unsafe { self.base.cast::<u8>().add(mapped) }.cast::<c_void>();
        // SAFETY: `at..at + bytes` lies inside the reserved range and no chunk pins it
        // yet; it stays mapped until `Drop` unregisters it.
        unsafe { sys::cuMemHostRegister_v2(at, bytes, flags) }.result()?;
        self.chunks.push((mapped, bytes));
        Ok(self.mapped())
    }

    /// The first `len` values (at most the mapped ones). Only while no kernel that
    /// writes them runs.
    pub fn read(&self, len: usize) -> &[u64] {
        let len = len.min(self.mapped());
        // SAFETY: the first `mapped` values are committed host memory owned by `self`;
        // the caller's contract excludes concurrent device writes.
        unsafe { std::slice::from_raw_parts(self.base, len) }
    }
}

impl Drop for HostArray {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        for &(at, _) in &self.chunks {
            // SAFETY: each chunk was registered at exactly this address; the stream that
            // used it has finished (its owner drops it after synchronising).
            let _ = unsafe { sys::cuMemHostUnregister(self.base.cast::<u8>().add(at).cast()) };
        }
        // SAFETY: the range `mmap` returned in `reserve`, unmapped once.
        unsafe { libc::munmap(self.mapping.0, self.mapping.1) };
    }
}

/// Faults in the `bytes` bytes at `at` with every core, a page at a time: the kernel
/// zeroes fresh pages one by one, and pinning pages that are present is much faster.
///
/// # Safety
/// `at..at + bytes` must be writable memory that nothing else uses meanwhile.
unsafe fn touch(at: *mut u8, bytes: usize) {
    const PAGE: usize = 4096;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(bytes / CHUNK_ALIGN).max(1);
    let share = (bytes / threads).next_multiple_of(PAGE);
    let base = at as usize;
    std::thread::scope(|scope| {
        for k in 0..threads {
            let (lo, hi) = (k * share, ((k + 1) * share).min(bytes));
            scope.spawn(move || {
                for page in (lo..hi).step_by(PAGE) {
                    // SAFETY: `page` is inside `at..at + bytes` (the caller's contract),
                    // and each thread writes its own pages.
                    unsafe { ((base + page) as *mut u8).write_volatile(0) };
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn touch_writes_one_byte_per_page_and_nothing_past_the_range() {
        for bytes in [1usize, 4096, 4097, 3 * CHUNK_ALIGN + 5000, 8 * CHUNK_ALIGN] {
            let mut buffer = vec![0xABu8; bytes + 64];
            // SAFETY: the first `bytes` bytes of `buffer` are writable and only this
            // thread (and the ones `touch` starts) use them.
            unsafe { touch(buffer.as_mut_ptr(), bytes) };
            for (i, &b) in buffer.iter().enumerate() {
                let expected = if i < bytes && i % 4096 == 0 { 0 } else { 0xAB };
                assert_eq!(b, expected, "{bytes} bytes: byte {i}");
            }
        }
    }
}
