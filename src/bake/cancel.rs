//! The `cancel` file: another process (the Blender add-on's bake runner) asks a bake to stop
//! by creating `DIR/cancel`. A small watcher thread polls for it and sets the bake's cancel
//! flag, which the solver checks every substep; the solver itself never touches the disk.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the watcher looks. A substep of the demos takes 5–60 ms, so the bake stops
/// within about one substep of the file appearing; one `stat` per 10 ms costs nothing.
const POLL: Duration = Duration::from_millis(10);

/// Polls until the bake is `done` (or already cancelled), setting `cancel` once `file` exists.
pub(super) fn watch_file(file: &Path, cancel: &AtomicBool, done: &AtomicBool) {
    while !done.load(Ordering::Acquire) && !cancel.load(Ordering::Acquire) {
        if file.exists() {
            cancel.store(true, Ordering::Release);
            return;
        }
        std::thread::sleep(POLL);
    }
}
