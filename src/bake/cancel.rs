//! Turning "stop" requests into the one flag the solver checks every substep.
//!
//! A bake can be stopped two ways: the caller's `cancel` flag (the add-on's in-process bake,
//! Ctrl-C in the CLI) or a `cancel` file appearing in the cache folder (the add-on's
//! child-process bake). A small watcher thread polls both every few milliseconds and sets the
//! solver's flag; the solver never touches the filesystem.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How often the watcher looks. A substep of the demos takes 5–60 ms, so the bake stops
/// within about one substep; one `stat` per 10 ms costs nothing.
const POLL: Duration = Duration::from_millis(10);

/// Polls until the bake is `done`, setting `stop` once `cancel` is set or `file` exists.
pub(super) fn watch(
    cancel: &AtomicBool,
    file: Option<PathBuf>,
    stop: &AtomicBool,
    done: &AtomicBool,
) {
    while !done.load(Ordering::Acquire) {
        let file_seen = file.as_ref().is_some_and(|f| f.exists());
        if cancel.load(Ordering::Acquire) || file_seen {
            stop.store(true, Ordering::Release);
            return;
        }
        std::thread::sleep(POLL);
    }
}
