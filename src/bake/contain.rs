//! A panic inside a bake ends the bake with an error instead of taking the process down or
//! leaving it hung: the bake's helper threads (the cancel-file watcher) stop when the solver
//! says it is done, and a panic that unwound past that never said so (issue 35: an emitter's
//! overflowing frame range panicked on a worker, and the process then hung until killed).

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::error::{GloopError, Result};

/// Runs `f`, turning a panic into `GloopError::Other` with the panic's message. The state `f`
/// touched is abandoned with the bake, so unwind safety is not a concern here.
pub(super) fn contain_panic<T>(what: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".into());
        Err(GloopError::Other(format!(
            "internal error: {what} panicked ({message}); please report this scene"
        )))
    })
}
