//! Small helpers for the parallel graph algorithms of this crate: work lists that run
//! sequentially when short and on the rayon pool when long.

use rayon::prelude::*;

/// Work lists shorter than this run sequentially within their task.
pub(crate) const DEFAULT_THRESHOLD: usize = 4096;

/// Items per rayon job when a list is split.
const CHUNK: usize = 512;

/// Everything `f` pushes for each item, sequentially when `items` is shorter than
/// `threshold`, in parallel chunks otherwise (the order of the output is then that of
/// the chunks, each chunk's output in item order).
pub(crate) fn gather<I: Sync, T: Send>(items: &[I], threshold: usize, f: impl Fn(&I, &mut Vec<T>) + Sync) -> Vec<T> {
    let run = |chunk: &[I]| {
        let mut out = Vec::new();
        chunk.iter().for_each(|i| f(i, &mut out));
        out
    };
    if items.len() < threshold {
        run(items)
    } else {
        items.par_chunks(CHUNK).flat_map_iter(run).collect()
    }
}

/// Calls `f` on every item, in parallel when there are at least `threshold`.
pub(crate) fn for_each<I: Sync>(items: &[I], threshold: usize, f: impl Fn(&I) + Sync) {
    if items.len() < threshold {
        items.iter().for_each(f);
    } else {
        items.par_chunks(CHUNK).for_each(|chunk| chunk.iter().for_each(&f));
    }
}

/// The items `keep` accepts, in order, in parallel when there are at least `threshold`.
pub(crate) fn filter<I: Copy + Send + Sync>(items: &[I], threshold: usize, keep: impl Fn(I) -> bool + Sync) -> Vec<I> {
    if items.len() < threshold {
        items.iter().copied().filter(|&i| keep(i)).collect()
    } else {
        items.par_iter().with_min_len(CHUNK).copied().filter(|&i| keep(i)).collect()
    }
}
