//! Large zero-initialised arrays of atomics for the state store, mapped lazily by the
//! OS and backed by transparent huge pages where the kernel offers them.
//!
//! The state table is accessed at random, one cache line per lookup; with 4 KiB pages
//! nearly every lookup also misses the TLB. `mmap` gives zeroed memory that costs
//! nothing until touched, and `madvise(MADV_HUGEPAGE)` asks for 2 MiB pages, which
//! makes the page walk cheap. Elsewhere (or if `mmap` fails) a zeroed `Vec` is used.

use std::ops::Deref;

/// Types for which all-zero bytes are a valid value (atomic integers).
///
/// # Safety
/// Implementors must be valid when zeroed and need no drop.
pub unsafe trait Zeroable: Sized {}
// SAFETY: atomic integers are plain integers in memory; zero is a valid value.
unsafe impl Zeroable for std::sync::atomic::AtomicU64 {}
// SAFETY: as above.
unsafe impl Zeroable for std::sync::atomic::AtomicU32 {}

/// A fixed-length, zero-initialised slice of `T`.
pub struct ZeroedSlice<T: Zeroable> {
    ptr: *mut T,
    len: usize,
    /// The mapping to release, if `mmap` provided the memory.
    mapping: Option<(*mut libc::c_void, usize)>,
    /// The vector holding the memory otherwise.
    fallback: Vec<T>,
}

// SAFETY: the slice owns its memory exclusively and only hands out shared references
// to `T`, which is Sync (atomics).
unsafe impl<T: Zeroable + Sync> Sync for ZeroedSlice<T> {}
// SAFETY: as above; the raw pointers are owned.
unsafe impl<T: Zeroable + Send> Send for ZeroedSlice<T> {}

const HUGE_PAGE: usize = 2 << 20;

impl<T: Zeroable> ZeroedSlice<T> {
    /// `len` zeroed values.
    pub fn new(len: usize) -> Self {
        let bytes = len * std::mem::size_of::<T>();
        if bytes >= HUGE_PAGE {
            if let Some(s) = Self::mapped(len, bytes) {
                return s;
            }
        }
        let mut fallback: Vec<T> = Vec::with_capacity(len);
        // SAFETY: T is valid when zeroed; the capacity is `len`.
        unsafe {
            std::ptr::write_bytes(fallback.as_mut_ptr(), 0, len);
            fallback.set_len(len);
        }
        ZeroedSlice { ptr: fallback.as_mut_ptr(), len, mapping: None, fallback }
    }

    fn mapped(len: usize, bytes: usize) -> Option<Self> {
        let size = bytes + HUGE_PAGE;
        // SAFETY: an anonymous private mapping with no address hint; checked below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                size,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_NORESERVE,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return None;
        }
        let aligned = (base as usize).next_multiple_of(HUGE_PAGE);
        // SAFETY: [aligned, aligned + bytes) lies inside the mapping; a failed madvise
        // only means small pages.
        unsafe { libc::madvise(aligned as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE) };
        Some(ZeroedSlice { ptr: aligned as *mut T, len, mapping: Some((base, size)), fallback: Vec::new() })
    }
}

impl<T: Zeroable> Deref for ZeroedSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: ptr points to len zero-initialised (hence valid) values owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T: Zeroable> Drop for ZeroedSlice<T> {
    fn drop(&mut self) {
        if let Some((base, size)) = self.mapping {
            // SAFETY: unmaps exactly the mapping created in `mapped`.
            unsafe { libc::munmap(base, size) };
        }
        let _ = &self.fallback;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn zeroed_small_and_large() {
        for len in [0usize, 10, 1 << 20] {
            let s: ZeroedSlice<AtomicU64> = ZeroedSlice::new(len);
            assert_eq!(s.len(), len);
            assert!(s.iter().step_by(4096).all(|a| a.load(Ordering::Relaxed) == 0));
            if len > 0 {
                s[len - 1].store(7, Ordering::Relaxed);
                assert_eq!(s[len - 1].load(Ordering::Relaxed), 7);
            }
        }
    }
}
