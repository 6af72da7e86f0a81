//! Meshing locks: several `gloop mesh` processes meshing one cache at once, each its own
//! frames (a render farm's chunks, issue 46).
//!
//! A mesher holds `gloop.mesh-<pid>-<n>.lock`, naming itself ([`LockHolder`], with its shared
//! OS lock, so a killed mesher is seen as gone like a killed bake) and the frames it meshes.
//! It registers while holding the folder's own lock (`gloop.lock`, [`CacheLock::take`]) and
//! lets that go at once, and a bake, a resume or the add-on's Re-mesh, which take the folder's
//! lock, look for live meshers while holding it ([`CacheLock::acquire`]): so a mesher and a
//! bake can never both start, and meshers only ever meet meshers. Two meshers whose frames
//! overlap would write the same surface files: the second is refused, naming the first.
//!
//! What meshers share, the manifest, each updates frame by frame under the manifest's own OS
//! lock ([`super::Manifest::update`]).

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::lock::{in_use_by, os_lock_held, write_and_hold, CacheLock, LockHolder};
use crate::error::{GloopError, Result};

const PREFIX: &str = "gloop.mesh-";
const SUFFIX: &str = ".lock";

/// Meshing locks this process has taken, for unique file names (tests take several).
static TAKEN: AtomicU32 = AtomicU32::new(0);

/// What a meshing lock file records: who meshes, and which frames.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Mesher {
    #[serde(flatten)]
    pub holder: LockHolder,
    /// The frames it meshes, inclusive.
    pub first: i32,
    pub last: i32,
    /// Its lock file (not stored in it).
    #[serde(skip)]
    pub file: PathBuf,
}

impl Mesher {
    fn overlaps(&self, (first, last): (i32, i32)) -> bool {
        self.first <= last && first <= self.last
    }

    /// "In use by gloop mesh (frames 5–8, pid …)": the folder cannot be taken while it runs.
    pub(super) fn in_use(&self, dir: &Path) -> GloopError {
        let mut holder = self.holder.clone();
        holder.command = match (self.first, self.last) {
            (i32::MIN, i32::MAX) => "mesh (all frames)".to_string(),
            (first, last) => format!("mesh (frames {first}–{last})"),
        };
        in_use_by(dir, &holder, &self.file)
    }
}

/// A held meshing lock; released (its file removed) when dropped.
#[derive(Debug)]
pub struct MeshingLock {
    path: PathBuf,
    /// Open and holding its shared OS lock while this lock lives.
    file: Option<File>,
}

impl MeshingLock {
    /// Registers this process as meshing `frames` (inclusive) of cache folder `dir`. Refused
    /// while a bake, a resume or the add-on's Re-mesh holds the folder, or another mesher's
    /// frames overlap these, naming it; meshers that are gone are cleared.
    pub fn acquire(dir: &Path, frames: (i32, i32)) -> Result<MeshingLock> {
        if !dir.is_dir() {
            return Err(GloopError::file(dir, "no such cache folder"));
        }
        let folder = take_folder_to_register(dir)?;
        if let Some(other) = meshers(dir, true)?.iter().find(|m| m.overlaps(frames)) {
            return Err(other.in_use(dir));
        }
        let n = TAKEN.fetch_add(1, Ordering::Relaxed);
        let path = dir.join(format!("{PREFIX}{}-{n}{SUFFIX}", std::process::id()));
        let mut mesher = Mesher {
            holder: LockHolder::this_process("mesh"),
            first: frames.0,
            last: frames.1,
            file: path.clone(),
        };
        let mut file = File::options()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| GloopError::io(&path, e))?;
        let record = serde_json::to_string_pretty(&mesher).expect("a mesher serializes");
        let written = write_and_hold(&mut file, &record, || {
            mesher.holder.os_lock = false;
            serde_json::to_string_pretty(&mesher).expect("a mesher serializes")
        });
        if let Err(e) = written {
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(GloopError::io(&path, e));
        }
        drop(folder);
        Ok(MeshingLock {
            path,
            file: mesher.holder.os_lock.then_some(file),
        })
    }
}

impl Drop for MeshingLock {
    fn drop(&mut self) {
        drop(self.file.take());
        let _ = std::fs::remove_file(&self.path);
    }
}

/// What a mesher's hold on the folder's lock says while it registers.
const REGISTERING: &str = "mesh (registering)";
/// Registering takes a few file operations; meshers starting together wait their turn this
/// long at most. Longer than the folder lock's grace for a lock file left empty
/// (`lock::UNREADABLE_GRACE`), so a mesher killed while registering does not fail the next.
const REGISTRATION_WAIT: Duration = Duration::from_secs(30);

/// The folder's lock, to register under. While another mesher registers (its lock file names
/// it, or is still being written, or is already gone again), it is waited for; held by
/// anything else (a bake), refused.
fn take_folder_to_register(dir: &Path) -> Result<CacheLock> {
    let started = Instant::now();
    loop {
        match CacheLock::take(dir, REGISTERING) {
            Ok(lock) => return Ok(lock),
            Err(refused) => {
                let passing = match super::lock::read_folder_lock(dir) {
                    Ok(Some(holder)) => holder.command == REGISTERING,
                    Ok(None) | Err(_) => true,
                };
                if !passing || started.elapsed() > REGISTRATION_WAIT {
                    return Err(refused);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        }
    }
}

/// The live meshers of cache folder `dir`, by file name. With `clear_stale`, the lock files
/// of meshers that are gone are removed (only while holding the folder's lock).
pub(super) fn meshers(dir: &Path, clear_stale: bool) -> Result<Vec<Mesher>> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(GloopError::io(dir, e)),
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(PREFIX) && n.ends_with(SUFFIX))
        })
        .collect();
    files.sort();
    let mut live = Vec::new();
    for path in files {
        let read = std::fs::read(&path)
            .ok()
            .and_then(|bytes| serde_json::from_slice::<Mesher>(&bytes).ok());
        let alive = match &read {
            Some(mesher) => !mesher.holder.is_stale_at(&path),
            // Unreadable: registered under the folder's lock, so not being written now; a
            // writer that died half-way left it, unless its OS lock says otherwise.
            None => os_lock_held(&path) == Some(true),
        };
        match read {
            Some(mesher) if alive => live.push(Mesher {
                file: path.clone(),
                ..mesher
            }),
            // Frames unknown: taken as all of them.
            None if alive => live.push(Mesher {
                holder: LockHolder {
                    pid: pid_in_name(&path).unwrap_or(0),
                    ..LockHolder::this_process("mesh")
                },
                first: i32::MIN,
                last: i32::MAX,
                file: path.clone(),
            }),
            _ if clear_stale => {
                let _ = std::fs::remove_file(&path);
            }
            _ => {}
        }
    }
    Ok(live)
}

/// The pid in a meshing lock's file name, `gloop.mesh-<pid>-<n>.lock`.
fn pid_in_name(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    name.strip_prefix(PREFIX)?.split('-').next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cache::lock_holder;

    #[test]
    fn meshers_of_other_frames_share_a_folder_and_overlaps_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let a = MeshingLock::acquire(dir.path(), (1, 4)).unwrap();
        let b = MeshingLock::acquire(dir.path(), (5, 8)).unwrap();
        let err = MeshingLock::acquire(dir.path(), (4, 5))
            .unwrap_err()
            .to_string();
        assert!(err.contains("mesh (frames 1–4)"), "{err}");
        assert!(
            !dir.path().join("gloop.lock").exists(),
            "the folder lock is let go"
        );
        drop((a, b));
        MeshingLock::acquire(dir.path(), (4, 5)).unwrap();
    }

    #[test]
    fn a_bake_waits_for_meshers_and_meshers_for_a_bake() {
        let dir = tempfile::tempdir().unwrap();
        let mesher = MeshingLock::acquire(dir.path(), (1, 4)).unwrap();
        let err = CacheLock::acquire(dir.path(), "bake")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("mesh (frames 1–4)") && err.contains("gloop.mesh-"),
            "{err}"
        );
        assert!(
            !dir.path().join("gloop.lock").exists(),
            "a refused bake leaves no lock"
        );
        let holder = lock_holder(dir.path()).unwrap().unwrap();
        assert_eq!(holder.command, "mesh", "the add-on sees the folder in use");
        drop(mesher);
        assert_eq!(lock_holder(dir.path()).unwrap(), None);

        let bake = CacheLock::acquire(dir.path(), "bake").unwrap();
        let err = MeshingLock::acquire(dir.path(), (1, 4))
            .unwrap_err()
            .to_string();
        assert!(err.contains("gloop bake"), "{err}");
        drop(bake);
    }

    /// A mesher that is gone (its OS lock free, as after a kill) is cleared by the next taker.
    #[test]
    fn a_gone_meshers_lock_is_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let gone = Mesher {
            holder: LockHolder::this_process("mesh"),
            first: 1,
            last: 100,
            file: PathBuf::new(),
        };
        let path = dir.path().join("gloop.mesh-99999999-0.lock");
        std::fs::write(&path, serde_json::to_vec(&gone).unwrap()).unwrap();
        std::fs::write(dir.path().join("gloop.mesh-99999999-1.lock"), b"").unwrap();
        drop(MeshingLock::acquire(dir.path(), (1, 4)).unwrap());
        assert!(!path.exists());
        drop(CacheLock::acquire(dir.path(), "bake").unwrap());
    }
}
