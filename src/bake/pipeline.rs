//! Post-processing of finished frames (the surface mesher) on a second thread, so meshing
//! frame N overlaps solving frame N+1.
//!
//! The channel holds one frame: when the hook is slower than the solver, the solver waits
//! rather than queueing every frame's particles in memory.

use std::sync::mpsc::{sync_channel, SyncSender};
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

use crate::cache::CacheDir;
use crate::error::{GloopError, Result};
use crate::sim::LiquidParticles;

/// Called once per written frame, in frame order, on the bake's post-processing thread:
/// `(frame, particles of that frame, cache folder)`. Its error fails the bake.
/// The surface mesher plugs in here (writing `cache.surface(frame)`).
pub type FrameHook = Arc<dyn Fn(i32, &LiquidParticles, &CacheDir) -> Result<()> + Send + Sync>;

pub(super) struct Pipeline<'scope> {
    sender: Option<SyncSender<(i32, LiquidParticles)>>,
    worker: Option<ScopedJoinHandle<'scope, Result<()>>>,
}

impl<'scope> Pipeline<'scope> {
    /// Starts the worker thread (none if there is no hook).
    pub fn start<'env>(
        scope: &'scope Scope<'scope, 'env>,
        hook: Option<FrameHook>,
        cache: CacheDir,
    ) -> Self {
        let Some(hook) = hook else {
            return Pipeline {
                sender: None,
                worker: None,
            };
        };
        let (sender, receiver) = sync_channel::<(i32, LiquidParticles)>(1);
        let worker = scope.spawn(move || {
            for (frame, particles) in receiver {
                hook(frame, &particles, &cache)?;
            }
            Ok(())
        });
        Pipeline {
            sender: Some(sender),
            worker: Some(worker),
        }
    }

    /// Hands a written frame to the hook. Blocks while the previous frame is still queued.
    pub fn submit(&mut self, frame: i32, particles: &LiquidParticles) -> Result<()> {
        let Some(sender) = &self.sender else {
            return Ok(());
        };
        if sender.send((frame, particles.clone())).is_err() {
            // The worker stopped, which it only does on an error: report that error.
            return self.finish();
        }
        Ok(())
    }

    /// Lets the hook finish the queued frames and returns its error, if any.
    pub fn finish(&mut self) -> Result<()> {
        self.sender = None;
        match self.worker.take() {
            None => Ok(()),
            Some(worker) => worker
                .join()
                .unwrap_or_else(|_| Err(GloopError::Other("the frame hook panicked".into()))),
        }
    }
}
