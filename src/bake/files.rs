//! Preparing a cache folder: removing what an earlier bake left behind.

use std::path::{Path, PathBuf};

use crate::cache::CacheDir;
use crate::error::{GloopError, Result};

/// Is `name` a file the bake owns (and may therefore delete)?
/// With `beyond = Some(last)`, only frame files after `last` and temporaries count.
fn owned(name: &str, beyond: Option<i32>) -> bool {
    let (name, temporary) = match name.strip_suffix(".tmp") {
        Some(stem) => (stem, true),
        None => (name, false),
    };
    for prefix in ["particles", "surface"] {
        if let Some(frame) = CacheDir::frame_of(name, prefix) {
            return match beyond {
                Some(last) => temporary || frame > last,
                None => true,
            };
        }
    }
    // Not `cancel`: a cancel requested while a bake starts must survive (see BakeOptions).
    let ours = matches!(
        name,
        "manifest.json" | "status.json" | "scene.gloop" | crate::cache::MANIFEST_LOCK
    );
    ours && (beyond.is_none() || temporary)
}

/// The files of the folder that `owned` (with `beyond`) picks.
fn matching(cache: &CacheDir, beyond: Option<i32>) -> Result<Vec<PathBuf>> {
    let root = cache.root();
    let entries = match std::fs::read_dir(root) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(GloopError::io(root, e)),
    };
    let mut files = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| GloopError::io(root, e))?;
        let name = entry.file_name();
        if name.to_str().is_some_and(|n| owned(n, beyond)) {
            files.push(entry.path());
        }
    }
    Ok(files)
}

fn remove_matching(cache: &CacheDir, beyond: Option<i32>) -> Result<()> {
    matching(cache, beyond)?
        .iter()
        .try_for_each(|path| remove(path))
}

/// Every file an earlier bake wrote into the folder (and nothing else).
pub(super) fn owned_files(cache: &CacheDir) -> Result<Vec<PathBuf>> {
    matching(cache, None)
}

fn remove(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(GloopError::io(path, e)),
        _ => Ok(()),
    }
}

/// Deletes every file an earlier bake wrote into the folder (and nothing else), so a fresh
/// bake never mixes old frames with new ones.
pub(super) fn clear_cache(cache: &CacheDir) -> Result<()> {
    remove_matching(cache, None)
}

/// Deletes frame files after `last` (and leftover temporaries), before a resume continues
/// from `last`.
pub(super) fn clear_frames_after(cache: &CacheDir, last: i32) -> Result<()> {
    remove_matching(cache, Some(last))
}

/// Deletes the surface files of `frames` (damaged ones a resume meshes again).
pub(super) fn remove_surfaces(cache: &CacheDir, frames: &[i32]) -> Result<()> {
    frames.iter().try_for_each(|&f| remove(&cache.surface(f)))
}

/// For whoever holds the folder's lock before a bake it started at `started`: removes what
/// an earlier bake left that would end or misdescribe this one: its `status.json`, and a
/// `cancel` file older than `started` (one made since is a request to stop this bake, made
/// while it was starting up, and is kept).
pub fn clear_stale_requests(cache_dir: &Path, started: std::time::SystemTime) -> Result<()> {
    let cache = CacheDir::new(cache_dir);
    remove(&cache.status())?;
    let cancel = cache.cancel();
    let made = std::fs::metadata(&cancel).and_then(|m| m.modified());
    match made {
        Ok(made) if made < started => remove(&cancel),
        _ => Ok(()),
    }
}

/// Removes a stale `cancel` file (from an earlier, cancelled run) that would stop a new bake
/// at once. For whoever starts a bake; `bake()` itself leaves the file alone (see
/// `BakeOptions::watch_cancel_file`).
pub fn remove_stale_cancel(cache_dir: &Path) -> Result<()> {
    remove(&CacheDir::new(cache_dir).cancel())
}

#[cfg(test)]
mod tests {
    use super::owned;

    #[test]
    fn only_bake_files_are_owned() {
        assert!(owned("particles_00003.ply", None));
        assert!(owned("surface_00003.ply.tmp", None));
        assert!(owned("manifest.json", None));
        assert!(!owned("notes.txt", None));
        assert!(!owned("cancel", None));
        assert!(!owned("my_render.ply", None));
        assert!(owned("particles_00004.ply", Some(3)));
        assert!(!owned("particles_00003.ply", Some(3)));
        assert!(!owned("manifest.json", Some(3)));
        assert!(owned("particles_00002.ply.tmp", Some(3)));
    }
}
