//! The compressed store's slots: for each state id, its root key, kept in host memory
//! that the kernels use in place ([`HostArray`]), so that a state costs the device only
//! its sets' entries. Pinning host memory is slow (the host faults in
//! and locks every page), so the slots grow in the background: the first chunk while
//! the kernels compile, each later one while the device explores, and the search waits
//! for pinning only when a level needs more ids than are pinned.

use std::sync::Arc;
use std::thread::JoinHandle;

use warpcheck_cuda::driver::CudaContext;
use warpcheck_cuda::{CudaError, HostArray};

use super::engine::GpuError;

/// What the slots need of their array: [`HostArray`], or a stand-in in tests.
pub(crate) trait Pinnable: Send + 'static {
    fn address(&self) -> u64;
    fn mapped(&self) -> usize;
    fn grow_to(&mut self, len: usize) -> Result<usize, CudaError>;
    fn read(&self, len: usize) -> &[u64];
}

impl Pinnable for HostArray {
    fn address(&self) -> u64 {
        HostArray::address(self)
    }
    fn mapped(&self) -> usize {
        HostArray::mapped(self)
    }
    fn grow_to(&mut self, len: usize) -> Result<usize, CudaError> {
        HostArray::grow_to(self, len)
    }
    fn read(&self, len: usize) -> &[u64] {
        HostArray::read(self, len)
    }
}

type Growth<A> = JoinHandle<(A, Result<usize, CudaError>)>;

/// The slots of up to `capacity` ids, of which `limit` are pinned.
pub(crate) struct HostSlots<A: Pinnable = HostArray> {
    /// `None` while a growth runs (the thread owns the array then).
    array: Option<A>,
    growing: Option<Growth<A>>,
    address: u64,
    limit: u64,
    capacity: u64,
}

impl HostSlots {
    /// Starts reserving `reserve` slots and pinning the first `first` of them, in the
    /// background.
    pub fn start(ctx: &Arc<CudaContext>, reserve: u64, first: usize) -> JoinHandle<Result<HostArray, CudaError>> {
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let mut array = HostArray::reserve(&ctx, reserve as usize)?;
            array.grow_to(first)?;
            Ok(array)
        })
    }

    /// The slots begun by [`Self::start`], for at most `capacity` ids.
    pub fn new(started: JoinHandle<Result<HostArray, CudaError>>, capacity: u64) -> Result<HostSlots, GpuError> {
        let array = started.join().map_err(|_| GpuError::Cuda("pinning host memory failed".into()))??;
        Ok(HostSlots::over(array, capacity))
    }
}

impl<A: Pinnable> HostSlots<A> {
    /// The slots in `array`, for at most `capacity` ids.
    fn over(array: A, capacity: u64) -> HostSlots<A> {
        let limit = (array.mapped() as u64).min(capacity);
        HostSlots { address: array.address(), array: Some(array), growing: None, limit, capacity }
    }

    /// The address of id 0's slot, on the host and the device alike.
    pub fn address(&self) -> u64 {
        self.address
    }

    /// The ids pinned (the store's limit).
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Takes a finished background growth into the limit (with `wait`, waits for one
    /// that runs). A growth that failed leaves the limit as it was.
    pub fn settle(&mut self, wait: bool) {
        if self.growing.as_ref().is_some_and(|g| wait || g.is_finished()) {
            let growth = self.growing.take().expect("a growth runs");
            let (array, result) = growth.join().expect("pinning host memory does not panic");
            if let Ok(mapped) = result {
                self.limit = (mapped as u64).min(self.capacity);
            }
            self.array = Some(array);
        }
    }

    /// With `found` ids taken and more than half of the pinned ones used, starts
    /// pinning twice as many in the background. The kernels keep the old limit until
    /// [`Self::settle`] takes the new one: ids past the pinned ones are never written.
    pub fn grow_ahead(&mut self, found: u64) {
        self.settle(false);
        if self.growing.is_some() || self.limit >= self.capacity || found * 2 < self.limit {
            return;
        }
        let mut array = self.array.take().expect("no growth runs");
        let want = (2 * self.limit).min(self.capacity) as usize;
        self.growing = Some(std::thread::spawn(move || {
            let result = array.grow_to(want);
            (array, result)
        }));
    }

    /// Pins slots for `need` ids (at most the capacity, as far as the host's memory
    /// allows) and returns the limit. The caller makes sure no kernel runs.
    pub fn grow(&mut self, need: u64) -> u64 {
        self.settle(true);
        let need = need.min(self.capacity);
        if need > self.limit {
            let array = self.array.as_mut().expect("no growth runs");
            // A host that cannot pin more ends the search as a full store, later.
            if let Ok(mapped) = array.grow_to(need as usize) {
                self.limit = (mapped as u64).min(self.capacity);
            }
        }
        self.limit
    }

    /// The slot of `id` (below the ids found). The caller makes sure no kernel runs.
    pub fn get(&mut self, id: u64) -> u64 {
        self.settle(true);
        let array = self.array.as_ref().expect("no growth runs");
        array.read(id as usize + 1)[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{channel, Receiver};

    /// An array that maps whole multiples of 8 values, at least doubling, and fails
    /// past `most`; a growth waits for a message on `go` (when given, until the
    /// sender is dropped).
    struct Fake {
        values: Vec<u64>,
        most: usize,
        go: Option<Receiver<()>>,
    }

    impl Pinnable for Fake {
        fn address(&self) -> u64 {
            0x1000
        }
        fn mapped(&self) -> usize {
            self.values.len()
        }
        fn grow_to(&mut self, len: usize) -> Result<usize, CudaError> {
            if let Some(go) = &self.go {
                let _ = go.recv();
            }
            let len = len.max(2 * self.values.len()).next_multiple_of(8);
            if len > self.most {
                return Err(CudaError::Internal("no more host memory".into()));
            }
            let start = self.values.len() as u64;
            self.values.extend(start..len as u64);
            Ok(len)
        }
        fn read(&self, len: usize) -> &[u64] {
            &self.values[..len.min(self.values.len())]
        }
    }

    fn fake(mapped: usize, most: usize, go: Option<Receiver<()>>) -> Fake {
        Fake { values: (0..mapped as u64).collect(), most, go }
    }

    #[test]
    fn growth_ahead_starts_past_half_and_counts_only_once_settled() {
        let (tx, rx) = channel();
        let mut slots = HostSlots::over(fake(16, 1 << 20, Some(rx)), 1000);
        assert_eq!(slots.limit(), 16);
        slots.grow_ahead(7);
        assert!(slots.growing.is_none(), "under half used: nothing to pin yet");
        slots.grow_ahead(8);
        assert!(slots.growing.is_some());
        slots.grow_ahead(15);
        assert_eq!(slots.limit(), 16, "the kernels keep the old limit while pinning runs");
        tx.send(()).unwrap();
        slots.settle(true);
        assert_eq!(slots.limit(), 32);
        assert_eq!(slots.get(31), 31, "the array is back, with its values");
    }

    #[test]
    fn growth_waits_for_the_background_then_reaches_the_need_within_the_capacity() {
        let (tx, rx) = channel();
        let mut slots = HostSlots::over(fake(16, 1 << 20, Some(rx)), 100);
        slots.grow_ahead(10);
        tx.send(()).unwrap(); // the background growth, to 32
        drop(tx); // the others at once
        assert_eq!(slots.grow(70), 72);
        assert_eq!(slots.grow(500), 100, "never past the capacity");
        assert_eq!(slots.grow(10), 100);
    }

    #[test]
    fn a_failed_growth_keeps_the_limit_and_the_array() {
        let mut slots = HostSlots::over(fake(16, 40, None), 1000);
        slots.grow_ahead(12);
        slots.settle(true);
        assert_eq!(slots.limit(), 32);
        slots.grow_ahead(30); // wants 64: more than the host has
        slots.settle(true);
        assert_eq!(slots.limit(), 32);
        assert_eq!(slots.grow(40), 32, "the search then ends as full");
        assert_eq!(slots.get(31), 31);
    }
}
