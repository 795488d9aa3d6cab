//! The bit vectors of the searches: one bit per index ([`BitVec`]) and two bits per
//! index ([`TwoBitVec`]), as words of `AtomicU64` that every thread sets with `fetch_or`.
//!
//! Allocation is fallible: [`words`] checks the size against the memory allowed and
//! asks the allocator for zeroed memory, checking for failure, so a vector that does not
//! fit is an [`Error::Memory`], never an abort. The searches reach the words only through these
//! types and [`par_words`], the one place that splits a range of bits over the rayon
//! pool; a vector partitioned over host memory or disk (for instances beyond RAM) can
//! replace them there.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::Relaxed};

use rayon::prelude::*;

use crate::Error;

/// Words per parallel task (2^18 bits): large enough to amortise the task, small enough
/// to balance layers whose states cluster in a few regions of the index space.
const CHUNK_WORDS: usize = 4096;

/// `n` zeroed words, or [`Error::Memory`] if `8 n` bytes exceed `allowed` or the
/// allocation fails.
pub fn words(n: u64, what: &str, allowed: u64) -> Result<Vec<AtomicU64>, Error> {
    zeroed(n, what, allowed)
}

/// `n` zeroed bytes (the Nine Men's Morris databases), or [`Error::Memory`].
pub fn bytes(n: u64, what: &str, allowed: u64) -> Result<Vec<AtomicU8>, Error> {
    zeroed(n, what, allowed)
}

/// Atomics whose all-zero bytes are the value zero.
trait ZeroIsValid {}
impl ZeroIsValid for AtomicU64 {}
impl ZeroIsValid for AtomicU8 {}

/// `n` zeroed elements, or [`Error::Memory`] if they exceed `allowed` bytes or the
/// allocation fails.
#[allow(private_bounds)]
fn zeroed<T: ZeroIsValid>(n: u64, what: &str, allowed: u64) -> Result<Vec<T>, Error> {
    let needed = n.saturating_mul(std::mem::size_of::<T>() as u64);
    let err = || Error::Memory { what: what.to_string(), needed, allowed };
    if needed > allowed {
        return Err(err());
    }
    let n = usize::try_from(n).map_err(|_| err())?;
    if n == 0 {
        return Ok(Vec::new());
    }
    let layout = std::alloc::Layout::array::<T>(n).map_err(|_| err())?;
    // Zeroed memory from the allocator: large blocks come straight from the OS, whose
    // pages cost nothing until touched (a search that reaches a corner of a large index
    // space touches only that corner).
    // SAFETY: the layout has a non-zero size (n > 0, and both atomics have a size).
    let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
    if ptr.is_null() {
        return Err(err());
    }
    // SAFETY: `ptr` was allocated by the global allocator with the layout of `n` `T`s
    // (so the Vec frees it with the same layout), and all-zero bytes are a valid `T`
    // (`ZeroIsValid`), so all `n` elements are initialised.
    Ok(unsafe { Vec::from_raw_parts(ptr, n, n) })
}

/// Runs `f(scratch, word index, mask)` for every word overlapping the bit range `bits`,
/// in parallel; `mask` selects the word's bits inside the range. `init` makes one
/// scratch per task.
pub fn par_words<S, I, F>(bits: Range<u64>, init: I, f: F)
where
    I: Fn() -> S + Sync + Send,
    F: Fn(&mut S, usize, u64) + Sync + Send,
{
    if bits.start >= bits.end {
        return;
    }
    let first = (bits.start / 64) as usize;
    let last = ((bits.end - 1) / 64) as usize;
    let mask_of = |w: usize| {
        let lo = (w as u64 * 64).max(bits.start) - w as u64 * 64;
        let hi = ((w as u64 + 1) * 64).min(bits.end) - w as u64 * 64;
        let upper = if hi == 64 { u64::MAX } else { (1u64 << hi) - 1 };
        upper & !((1u64 << lo) - 1)
    };
    let chunks = (last - first) / CHUNK_WORDS + 1;
    (0..chunks).into_par_iter().for_each_init(init, |s, c| {
        let from = first + c * CHUNK_WORDS;
        let to = (from + CHUNK_WORDS).min(last + 1);
        for w in from..to {
            f(s, w, mask_of(w));
        }
    });
}

/// Calls `f(index)` for every set bit of `word` (whose first bit is index `base`).
#[inline]
pub fn for_each_bit(mut word: u64, base: u64, mut f: impl FnMut(u64)) {
    while word != 0 {
        f(base + u64::from(word.trailing_zeros()));
        word &= word - 1;
    }
}

/// Asks the CPU to bring the cache line of `word` in: the searches prefetch every
/// successor's word while they generate the others, then set the bits, so that the
/// misses of a state's successors overlap instead of queueing one after another.
#[inline]
fn prefetch(word: &AtomicU64) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of x86_64, and a prefetch is a hint that never faults and
        // changes no memory, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(word.as_ptr() as *const i8) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = word;
}

/// One bit per index.
pub struct BitVec {
    words: Vec<AtomicU64>,
    len: u64,
}

impl BitVec {
    /// `len` clear bits, or [`Error::Memory`].
    pub fn new(len: u64, what: &str, allowed: u64) -> Result<BitVec, Error> {
        Ok(BitVec { words: words(len.div_ceil(64), what, allowed)?, len })
    }

    /// The number of bits.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the vector has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// The words (for copies to a device and for scans).
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// Bit `i`.
    #[inline]
    pub fn get(&self, i: u64) -> bool {
        self.words[(i / 64) as usize].load(Relaxed) >> (i % 64) & 1 == 1
    }

    /// Prefetches the word of bit `i`.
    #[inline]
    pub fn prefetch(&self, i: u64) {
        prefetch(&self.words[(i / 64) as usize]);
    }

    /// Sets bit `i`; true if it was clear.
    #[inline]
    pub fn set(&self, i: u64) -> bool {
        debug_assert!(i < self.len);
        let bit = 1u64 << (i % 64);
        let w = &self.words[(i / 64) as usize];
        // A load first: most successors are already set, and a load does not take the
        // cache line exclusively.
        w.load(Relaxed) & bit == 0 && w.fetch_or(bit, Relaxed) & bit == 0
    }

    /// The number of set bits in `range`, counted in parallel (a sum per task, not an
    /// atomic add per word).
    pub fn count_ones_in(&self, range: Range<u64>) -> u64 {
        if range.start >= range.end {
            return 0;
        }
        let (first, last) = ((range.start / 64) as usize, ((range.end - 1) / 64) as usize);
        let edge = |w: usize| {
            let bits = (w as u64 * 64).max(range.start)..((w as u64 + 1) * 64).min(range.end);
            let word = self.words[w].load(Relaxed) >> (bits.start % 64);
            u64::from((word & (u64::MAX >> (64 - (bits.end - bits.start)))).count_ones())
        };
        if first == last {
            return edge(first);
        }
        let inner: u64 = self.words[first + 1..last]
            .par_chunks(CHUNK_WORDS)
            .map(|c| c.iter().map(|w| u64::from(w.load(Relaxed).count_ones())).sum::<u64>())
            .sum();
        edge(first) + inner + edge(last)
    }

    /// The number of set bits.
    pub fn count_ones(&self) -> u64 {
        self.count_ones_in(0..self.len)
    }
}

/// Two bits per index: 0 = not seen, `1 + d mod 3` = seen at depth `d` (the thesis's
/// Alg. 14.1 codes "not seen" as 3; zero here, so the vector starts zeroed).
pub struct TwoBitVec {
    words: Vec<AtomicU64>,
    len: u64,
}

/// The low bit of every 2-bit cell.
const LOW_BITS: u64 = 0x5555_5555_5555_5555;

impl TwoBitVec {
    /// `len` unseen cells, or [`Error::Memory`].
    pub fn new(len: u64, what: &str, allowed: u64) -> Result<TwoBitVec, Error> {
        Ok(TwoBitVec { words: words(len.div_ceil(32), what, allowed)?, len })
    }

    /// The number of cells.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether the vector has no cells.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        self.words.len() as u64 * 8
    }

    /// The words, 32 cells each, cell `i` at bits `2 (i mod 32)`.
    pub fn words(&self) -> &[AtomicU64] {
        &self.words
    }

    /// The depth mod 3 of index `i`, if seen.
    #[inline]
    pub fn depth_mod3(&self, i: u64) -> Option<u8> {
        let cell = (self.words[(i / 32) as usize].load(Relaxed) >> (2 * (i % 32)) & 3) as u8;
        cell.checked_sub(1)
    }

    /// Prefetches the word of index `i`.
    #[inline]
    pub fn prefetch(&self, i: u64) {
        prefetch(&self.words[(i / 32) as usize]);
    }

    /// Marks index `i` seen at a depth `≡ d3 (mod 3)` if it was unseen; true if this
    /// call saw it first. Every caller in one BFS level writes the same value, so a
    /// `fetch_or` suffices and its old value tells who was first.
    #[inline]
    pub fn claim(&self, i: u64, d3: u8) -> bool {
        debug_assert!(i < self.len && d3 < 3);
        let shift = 2 * (i % 32);
        let w = &self.words[(i / 32) as usize];
        w.load(Relaxed) >> shift & 3 == 0 && w.fetch_or(u64::from(d3 + 1) << shift, Relaxed) >> shift & 3 == 0
    }

    /// The cells of word `w` whose depth is `≡ d3 (mod 3)`, as a mask of the cells' low
    /// bits.
    #[inline]
    pub fn cells_at(&self, w: usize, d3: u8) -> u64 {
        let pattern = LOW_BITS * u64::from(d3 + 1);
        let x = self.words[w].load(Relaxed) ^ pattern;
        !(x | x >> 1) & LOW_BITS
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_and_ranges() {
        let v = BitVec::new(1000, "test", 1 << 20).unwrap();
        for i in [0, 63, 64, 65, 500, 999] {
            assert!(v.set(i));
            assert!(!v.set(i));
            assert!(v.get(i));
        }
        assert_eq!(v.count_ones(), 6);
        assert_eq!(v.count_ones_in(63..66), 3);
        assert_eq!(v.count_ones_in(64..65), 1);
        assert_eq!(v.count_ones_in(1..63), 0);
        assert_eq!(v.count_ones_in(501..999), 0);
    }

    #[test]
    fn counts_in_every_range_equal_the_bits() {
        let v = BitVec::new(300, "test", 1 << 20).unwrap();
        let mut x = 12345u64;
        let mut set = vec![false; 300];
        for (i, s) in set.iter_mut().enumerate() {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            if x >> 61 < 3 {
                v.set(i as u64);
                *s = true;
            }
        }
        for a in 0..300 {
            for b in a..=300 {
                let want = set[a..b].iter().filter(|&&s| s).count() as u64;
                assert_eq!(v.count_ones_in(a as u64..b as u64), want, "{a}..{b}");
            }
        }
    }

    #[test]
    fn two_bit_cells() {
        let v = TwoBitVec::new(100, "test", 1 << 20).unwrap();
        assert_eq!(v.depth_mod3(7), None);
        assert!(v.claim(7, 2));
        assert!(!v.claim(7, 2));
        assert!(v.claim(33, 0));
        assert_eq!(v.depth_mod3(7), Some(2));
        assert_eq!(v.depth_mod3(33), Some(0));
        assert_eq!(v.cells_at(0, 2), 1 << 14);
        assert_eq!(v.cells_at(1, 0), 1 << 2);
        assert_eq!(v.cells_at(0, 0), 0);
    }

    #[test]
    fn too_large_is_an_error() {
        assert!(matches!(BitVec::new(1 << 40, "x", 1 << 20), Err(Error::Memory { .. })));
        assert!(matches!(TwoBitVec::new(u64::MAX, "x", u64::MAX), Err(Error::Memory { .. })));
    }
}
