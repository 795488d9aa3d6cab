//! The compressed store's slots: for each state id, the table entry of its root, kept
//! in host memory that the kernels use in place ([`HostArray`]), so that a state costs
//! the device only its table entries. Pinning host memory is slow (the host faults in
//! and locks every page), so the slots grow in the background: the first chunk while
//! the kernels compile, each later one while the device explores, and the search waits
//! for pinning only when a level needs more ids than are pinned.

use std::sync::Arc;
use std::thread::JoinHandle;

use warpcheck_cuda::driver::CudaContext;
use warpcheck_cuda::{CudaError, HostArray};

use super::engine::GpuError;

type Growth = JoinHandle<(HostArray, Result<usize, CudaError>)>;

/// The slots of up to `capacity` ids, of which `limit` are pinned.
pub(crate) struct HostSlots {
    /// `None` while a growth runs (the thread owns the array then).
    array: Option<HostArray>,
    growing: Option<Growth>,
    address: u64,
    limit: u64,
    capacity: u64,
}

impl HostSlots {
    /// Starts reserving the slots and pinning the first `first` of them, in the
    /// background.
    pub fn start(ctx: &Arc<CudaContext>, first: usize) -> JoinHandle<Result<HostArray, CudaError>> {
        let ctx = ctx.clone();
        std::thread::spawn(move || {
            let mut array = HostArray::reserve(&ctx, u32::MAX as usize)?;
            array.grow_to(first)?;
            Ok(array)
        })
    }

    /// The slots begun by [`Self::start`], for at most `capacity` ids.
    pub fn new(started: JoinHandle<Result<HostArray, CudaError>>, capacity: u64) -> Result<HostSlots, GpuError> {
        let array = started.join().map_err(|_| GpuError::Cuda("pinning host memory failed".into()))??;
        let limit = (array.mapped() as u64).min(capacity);
        Ok(HostSlots { address: array.address(), array: Some(array), growing: None, limit, capacity })
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
    pub fn get(&mut self, id: u32) -> u32 {
        self.settle(true);
        let array = self.array.as_ref().expect("no growth runs");
        array.read(id as usize + 1)[id as usize]
    }
}
