//! Replacing a bake without losing it on failure.
//!
//! A fresh bake does not delete the bake already in its folder: it moves that bake's files
//! into `DIR/replaced_bake/`. Moves are renames within one filesystem: instant, each one
//! atomic, needing no free space (a full disk is one way a bake fails). The new bake then
//! writes its frames as always (each under a temporary name, renamed into place). The files
//! set aside are
//! - deleted once a bake in the folder finishes (this one, or a `--resume` of it);
//! - moved back if this fresh bake fails (after its own files are removed), so a failure never
//!   leaves the folder without the bake it had;
//! - kept when it is cancelled or killed: the new frames stay resumable as always, and the
//!   earlier bake is still there until a bake in the folder finishes.
//!
//! A batch of moves is not atomic, so every batch passes through a folder named
//! `replaced_bake.moving`, renamed in or out of place in one step. Its files always belong
//! back in the cache folder: if a process dies while it exists, the next bake (holding the
//! lock) moves them back, which is the state before the interrupted step. Deleting goes
//! through `replaced_bake.deleting` the same way, so a half-deleted set never gets restored.

use std::path::{Path, PathBuf};

use super::files;
use crate::cache::{CacheDir, Manifest};
use crate::error::{GloopError, Result};

/// Where an earlier bake's files wait while a new bake replaces it.
pub const REPLACED_FOLDER: &str = "replaced_bake";
const MOVING: &str = "replaced_bake.moving";
const DELETING: &str = "replaced_bake.deleting";

/// The earlier bake set aside in `replaced_bake/`.
pub(super) struct SetAside {
    cache: CacheDir,
}

/// Finishes what a process killed mid-move left: files in `replaced_bake.moving` go back into
/// the cache folder, a half-deleted set is deleted. Needs the cache lock.
pub(super) fn recover(cache: &CacheDir) -> Result<()> {
    let moving = cache.root().join(MOVING);
    if moving.exists() {
        move_files(&moving, cache.root())?;
        std::fs::remove_dir(&moving).map_err(|e| GloopError::io(&moving, e))?;
    }
    delete_folder(&cache.root().join(DELETING))
}

/// Before a fresh bake: clears the folder of the earlier bake's files, setting that bake
/// aside (see the module notes). When an earlier replacement was cancelled or killed, the
/// folder holds its unfinished frames and `replaced_bake/` the bake it was replacing: that
/// one is kept and the unfinished frames deleted (the caller has the user's consent).
/// Returns the set-aside bake, if there is one.
pub(super) fn set_aside(cache: &CacheDir) -> Result<Option<SetAside>> {
    let replaced = cache.root().join(REPLACED_FOLDER);
    if replaced.exists() {
        if !holds_finished_bake(cache) {
            files::clear_cache(cache)?;
            return Ok(Some(SetAside {
                cache: cache.clone(),
            }));
        }
        // A finished bake here is newer than the one set aside (a bake that finishes
        // deletes the set); this is a leftover of a failed deletion.
        discard_folder(cache, &replaced)?;
    }
    let owned = files::owned_files(cache)?;
    if owned.is_empty() {
        return Ok(None);
    }
    let moving = cache.root().join(MOVING);
    let moved = (|| {
        std::fs::create_dir(&moving).map_err(|e| GloopError::io(&moving, e))?;
        for from in owned {
            let to = moving.join(from.file_name().expect("a listed file has a name"));
            std::fs::rename(&from, &to).map_err(|e| GloopError::io(&from, e))?;
        }
        std::fs::rename(&moving, &replaced).map_err(|e| GloopError::io(&replaced, e))
    })();
    if let Err(e) = moved {
        // Back to where the folder was; failing that, the next bake's `recover` does it.
        let _ = recover(cache);
        return Err(e);
    }
    Ok(Some(SetAside {
        cache: cache.clone(),
    }))
}

/// The bake set aside by an earlier, unfinished replacement, if there is one (for a resume,
/// which deletes it once it finishes).
pub(super) fn existing(cache: &CacheDir) -> Option<SetAside> {
    cache
        .root()
        .join(REPLACED_FOLDER)
        .is_dir()
        .then(|| SetAside {
            cache: cache.clone(),
        })
}

impl SetAside {
    /// A bake in the folder has finished: the set-aside bake is no longer needed. Should the
    /// deletion fail, the next fresh bake finishes it (it finds a finished bake beside the
    /// set-aside one), so a finished bake is not reported as failed for it.
    pub fn delete(self) {
        let _ = discard_folder(&self.cache, &self.folder());
    }

    /// The replacing bake failed with `error`: removes its files and moves the earlier bake
    /// back. Returns `error`, saying the earlier bake is back (or where it still is).
    pub fn restore_after(self, error: GloopError) -> GloopError {
        let root = self.cache.root();
        let restored = (|| {
            files::clear_cache(&self.cache)?;
            let moving = root.join(MOVING);
            std::fs::rename(self.folder(), &moving).map_err(|e| GloopError::io(&moving, e))?;
            recover(&self.cache)
        })();
        match restored {
            Ok(()) => GloopError::Other(format!(
                "{error}; the bake this one was replacing is back in {}",
                root.display()
            )),
            Err(e) => GloopError::Other(format!(
                "{error}; the bake this one was replacing could not be moved back ({e}): its \
                 files are in {}",
                root.join(REPLACED_FOLDER).display()
            )),
        }
    }

    fn folder(&self) -> PathBuf {
        self.cache.root().join(REPLACED_FOLDER)
    }
}

/// Does the folder hold a bake with every frame of its range?
fn holds_finished_bake(cache: &CacheDir) -> bool {
    Manifest::read(&cache.manifest()).is_ok_and(|m| {
        m.last_complete_frame
            .is_some_and(|last| last >= m.frame_end)
    })
}

/// Deletes a set of files as a whole: renamed out of the way first, so an interrupted
/// deletion is never mistaken for a complete set.
fn discard_folder(cache: &CacheDir, folder: &Path) -> Result<()> {
    let deleting = cache.root().join(DELETING);
    std::fs::rename(folder, &deleting).map_err(|e| GloopError::io(folder, e))?;
    delete_folder(&deleting)
}

fn delete_folder(folder: &Path) -> Result<()> {
    match std::fs::remove_dir_all(folder) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(GloopError::io(folder, e)),
        _ => Ok(()),
    }
}

/// Moves every file of `from` into `to`, replacing files of the same name there.
fn move_files(from: &Path, to: &Path) -> Result<()> {
    let entries = std::fs::read_dir(from).map_err(|e| GloopError::io(from, e))?;
    for entry in entries {
        let entry = entry.map_err(|e| GloopError::io(from, e))?;
        let target = to.join(entry.file_name());
        std::fs::rename(entry.path(), &target).map_err(|e| GloopError::io(&target, e))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_move_interrupted_either_way_ends_with_the_files_back_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(dir.path());
        // Killed half-way: one file moved, one not, the notes never touched.
        std::fs::create_dir(dir.path().join(MOVING)).unwrap();
        std::fs::write(dir.path().join(MOVING).join("particles_00001.ply"), b"1").unwrap();
        std::fs::write(dir.path().join("particles_00002.ply"), b"2").unwrap();
        std::fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
        // Killed while deleting a set no longer needed.
        std::fs::create_dir(dir.path().join(DELETING)).unwrap();
        std::fs::write(dir.path().join(DELETING).join("particles_00009.ply"), b"9").unwrap();
        recover(&cache).unwrap();
        assert_eq!(
            names(dir.path()),
            ["notes.txt", "particles_00001.ply", "particles_00002.ply"]
        );
    }

    #[test]
    fn set_aside_moves_only_bake_files_and_restore_brings_them_back() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(dir.path());
        for name in [
            "particles_00001.ply",
            "manifest.json",
            "notes.txt",
            "gloop.lock",
        ] {
            std::fs::write(dir.path().join(name), name).unwrap();
        }
        let aside = set_aside(&cache).unwrap().unwrap();
        assert_eq!(
            names(dir.path()),
            ["gloop.lock", "notes.txt", REPLACED_FOLDER]
        );
        std::fs::write(dir.path().join("particles_00002.ply"), b"new").unwrap();
        let error = aside.restore_after(GloopError::Other("disk full".into()));
        assert!(error.to_string().starts_with("disk full; "), "{error}");
        assert_eq!(
            names(dir.path()),
            [
                "gloop.lock",
                "manifest.json",
                "notes.txt",
                "particles_00001.ply"
            ]
        );
        assert_eq!(
            std::fs::read(dir.path().join("manifest.json")).unwrap(),
            b"manifest.json"
        );
    }
}
