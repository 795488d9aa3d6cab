//! [`CudaError`], the one error type of the CUDA runtime, which every GPU module
//! returns or wraps.

use cudarc::driver::DriverError;

/// Why GPU work gave no answer.
///
/// [`CudaError::NoDevice`] means the machine cannot run GPU code at all (no driver, no
/// device, no such device): a usage problem, not a failure of the computation. Every
/// other variant is a failure of a run that did start (a resource limit or a fault).
#[derive(Debug, thiserror::Error)]
pub enum CudaError {
    /// No CUDA driver, no device, or not the device asked for.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// A call of the CUDA driver failed (context, allocation, copy, launch, event).
    #[error("CUDA error: {0:?}")]
    Driver(#[from] DriverError),
    /// NVRTC is missing, or it refused the source (the message holds its log).
    #[error("{0}")]
    Compile(String),
    /// The device has too little free memory for the work asked; nothing was
    /// allocated for it.
    #[error("out of device memory: {what} needs {need} bytes of device memory, {free} are free")]
    OutOfMemory { what: String, need: u64, free: u64 },
    /// The device's results contradict what the host expects (a bug, never an answer).
    #[error("internal error: {0}")]
    Internal(String),
}

impl CudaError {
    /// Whether the machine cannot run GPU code at all (as opposed to a run that failed).
    pub fn is_no_device(&self) -> bool {
        matches!(self, CudaError::NoDevice(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_say_what_failed() {
        let e = CudaError::OutOfMemory { what: "the SCC decomposition".into(), need: 2048, free: 1024 };
        assert_eq!(
            e.to_string(),
            "out of device memory: the SCC decomposition needs 2048 bytes of device memory, 1024 are free"
        );
        assert_eq!(CudaError::NoDevice("none".into()).to_string(), "no CUDA device: none");
        assert!(CudaError::NoDevice(String::new()).is_no_device());
        assert!(!CudaError::Internal("x".into()).is_no_device());
    }
}
