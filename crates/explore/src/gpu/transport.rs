//! How a staged partitioned search (`partitioned.rs`: GPUs that cannot address each
//! other's memory, or asked for) moves each partition's outbox segments into their
//! owners' inboxes after every step: NCCL point-to-point sends and receives in one
//! group when every partition has a GPU of its own and the NCCL library (`libnccl.so`)
//! loads; otherwise device copies, peer to peer between GPUs (cuMemcpyPeerAsync) and
//! device to device within one. NVLink multicast (`NCCL_NVLS_ENABLE`) is left as the
//! environment sets it: the exchange needs none. Both are enqueued after the host
//! synchronised every stream; the receiving kernels follow them on the owner's stream.

use std::sync::Arc;

use super::engine::{cuda, ptr, GpuError};
use super::partitioned::{Gpu, Part, Sizing};
use warpcheck_cuda::cudarc;
use warpcheck_cuda::cudarc::nccl::safe::{group_end, group_start, Comm};

/// The index of partition `to`'s segment in partition `from`'s outbox (or of `to`'s
/// inbox segment that `from` fills): segments skip the partition's own number.
pub fn segment(from: usize, to: usize) -> usize {
    debug_assert_ne!(from, to);
    to - (to > from) as usize
}

fn inbox(part: &mut Part) -> &mut warpcheck_cuda::driver::CudaSlice<u32> {
    part.inbox.as_mut().expect("a staged partition has an inbox")
}

/// How outboxes reach their owners.
pub enum Transport {
    /// One NCCL communicator per partition, rank = partition = GPU.
    Nccl(Vec<Comm>),
    /// Device copies (peer to peer between GPUs).
    Copies,
}

impl Transport {
    /// NCCL when each partition has its own GPU, there are several, and libnccl loads
    /// (`WARPCHECK_GPU_TRANSPORT=copies` asks for copies); copies otherwise.
    pub fn new(devices: &[Gpu], store: &[Part]) -> Result<Transport, GpuError> {
        let own_gpus = devices.len() > 1 && store.len() == devices.len();
        let asked_copies = std::env::var("WARPCHECK_GPU_TRANSPORT").is_ok_and(|v| v == "copies");
        // SAFETY: `is_culib_present` only tries to open the library by its names.
        if !own_gpus || asked_copies || !unsafe { cudarc::nccl::sys::is_culib_present() } {
            return Ok(Transport::Copies);
        }
        let streams: Vec<_> = store.iter().map(|p| Arc::clone(&devices[p.gpu].stream)).collect();
        let comms = Comm::from_devices(streams).map_err(|e| GpuError::Cuda(format!("NCCL: {e:?}")))?;
        Ok(Transport::Nccl(comms))
    }

    pub fn name(&self) -> &'static str {
        match self {
            Transport::Nccl(_) => "nccl",
            Transport::Copies => "copies",
        }
    }

    /// Moves `sent[p][segment(p, q)]` entries of every partition `p`'s outbox to the
    /// inbox of partition `q`; enqueued only (the caller synchronises).
    pub fn exchange(
        &self,
        devices: &[Gpu],
        store: &mut [Part],
        sent: &[Vec<u32>],
        sizing: &Sizing,
    ) -> Result<(), GpuError> {
        let entry = sizing.entry_words;
        let seg_words = sizing.room as usize * entry;
        let parts = store.len();
        let moves = move |f: &mut dyn FnMut(usize, usize, usize) -> Result<(), GpuError>| {
            for to in 0..parts {
                for from in (0..parts).filter(|&f| f != to) {
                    let n = sent[from][segment(from, to)] as usize;
                    if n > 0 {
                        f(from, to, n * entry)?;
                    }
                }
            }
            Ok::<(), GpuError>(())
        };
        match self {
            Transport::Copies => moves(&mut |from, to, words| {
                let (src_gpu, dst_gpu) = (&devices[store[from].gpu], &devices[store[to].gpu]);
                let src = ptr(&store[from].outbox, &src_gpu.stream) + 4 * (segment(from, to) * seg_words) as u64;
                let dst = ptr(inbox(&mut store[to]), &dst_gpu.stream) + 4 * (segment(to, from) * seg_words) as u64;
                dst_gpu.ctx.bind_to_thread().map_err(cuda)?;
                let stream = dst_gpu.stream.cu_stream();
                // SAFETY: both ranges lie inside live device buffers (a segment holds
                // `room` entries and `sent` counts at most that: the device flags
                // more), and every stream was synchronised since the kernels that
                // wrote the source, so nothing else touches either range.
                unsafe {
                    if store[from].gpu == store[to].gpu {
                        cudarc::driver::result::memcpy_dtod_async(dst, src, words * 4, stream)
                    } else {
                        cudarc::driver::result::memcpy_peer_async(
                            dst_gpu.ctx.cu_ctx(),
                            dst,
                            src_gpu.ctx.cu_ctx(),
                            src,
                            words * 4,
                            stream,
                        )
                    }
                }
                .map_err(cuda)
            }),
            Transport::Nccl(comms) => {
                let nccl = |e| GpuError::Cuda(format!("NCCL: {e:?}"));
                group_start().map_err(nccl)?;
                // Sends first, then receives, all in one group: NCCL matches them.
                let result = moves(&mut |from, to, words| {
                    let at = segment(from, to) * seg_words;
                    comms[from].send(&store[from].outbox.slice(at..at + words), to as i32).map_err(nccl)
                })
                .and_then(|()| {
                    moves(&mut |from, to, words| {
                        let at = segment(to, from) * seg_words;
                        comms[to]
                            .recv(&mut inbox(&mut store[to]).slice_mut(at..at + words), from as i32)
                            .map(|_| ())
                            .map_err(nccl)
                    })
                });
                group_end().map_err(nccl)?;
                result
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::segment;

    /// Every sender numbers its segments 0..parts-1 over the others, every receiver
    /// its inbox segments likewise: each (sender, owner) pair has one slot each side.
    #[test]
    fn segments_number_the_other_partitions() {
        for parts in 2..6 {
            for from in 0..parts {
                let out: Vec<usize> = (0..parts).filter(|&to| to != from).map(|to| segment(from, to)).collect();
                assert_eq!(out, (0..parts - 1).collect::<Vec<_>>());
            }
        }
        assert_eq!((segment(0, 3), segment(3, 0), segment(2, 1), segment(1, 2)), (2, 0, 1, 1));
    }
}
