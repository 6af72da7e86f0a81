//! The cache lock, `gloop.lock`: one bake, resume or re-mesh at a time per cache folder.
//!
//! Without it two bakes into one folder interleave their frames, manifest and scene, and both
//! report success. The lock file is created with `create_new` (atomic: of two processes
//! racing, exactly one creates it) and records who holds it: pid, host, the process's start
//! time (so a pid reused after a crash is not mistaken for the holder) and the command.
//! It is removed when the holder ends, by returning, failing, unwinding or a graceful Ctrl-C.
//!
//! A process killed outright (`kill -9`, out of memory, power loss) leaves the file behind.
//! Such a lock is stale when its holder was on this host and is no longer running; the next
//! process takes it over. The holder keeps the file open with a shared OS file lock
//! (`File::try_lock_shared`: flock on Unix, LockFileEx on Windows), which the system drops
//! when the process ends however it ends. So "still running" is asked of the OS lock: on
//! every platform, with no pid that can be reused, and on Windows, where std has no other way
//! to ask. Locks written before holders took the OS lock (`os_lock` false), or on a file
//! system without file locks, fall back to the pid ([`super::process::is_running`]). A holder
//! on another host (a shared network folder) cannot be checked and is taken as live: the
//! message names the file to delete.

use std::fs::{File, TryLockError};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::process::{host_name, is_running, start_time};
use crate::error::{GloopError, Result};

/// The lock file's name inside a cache folder.
pub const LOCK_FILE_NAME: &str = "gloop.lock";

/// A lock file with no readable holder is one being written right now (it is created empty,
/// then filled), unless it is older than this: then its writer died in between.
const UNREADABLE_GRACE: Duration = Duration::from_secs(10);

/// Who holds a cache folder: what `gloop.lock` records.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct LockHolder {
    pub pid: u32,
    pub host: String,
    /// The process's start time in clock ticks since boot (Linux); tells a reused pid apart.
    #[serde(default)]
    pub process_start: Option<u64>,
    /// What it is doing: "bake", "resume" or "mesh".
    pub command: String,
    /// When it took the lock, in seconds since 1970.
    pub since_unix_s: u64,
    /// Whether it holds the lock file's shared OS lock for as long as it runs: then that lock,
    /// not the pid, tells whether it still runs. False in locks written by older versions.
    #[serde(default)]
    pub os_lock: bool,
}

impl LockHolder {
    pub(super) fn this_process(command: &str) -> LockHolder {
        let pid = std::process::id();
        LockHolder {
            pid,
            host: host_name(),
            process_start: start_time(pid),
            command: command.to_string(),
            since_unix_s: unix_now(),
            os_lock: true,
        }
    }

    /// Known to be gone: it ran on this host and no longer runs. `dir` is the cache folder
    /// whose lock file names this holder.
    pub fn is_stale(&self, dir: &Path) -> bool {
        self.is_stale_at(&lock_path(dir))
    }

    /// [`LockHolder::is_stale`] for the holder named in lock file `lock_file` (the folder's
    /// lock or a meshing lock).
    pub(super) fn is_stale_at(&self, lock_file: &Path) -> bool {
        if self.host != host_name() {
            return false;
        }
        let held = if self.os_lock {
            os_lock_held(lock_file)
        } else {
            None
        };
        match held {
            Some(held) => !held,
            None => !is_running(self.pid, self.process_start),
        }
    }

    /// "gloop bake (pid 1234 on host studio-3, for 42 s)", for messages and the add-on's
    /// "in use by …".
    pub fn describe(&self) -> String {
        let age = unix_now().saturating_sub(self.since_unix_s);
        format!(
            "gloop {} (pid {} on host {}, for {age} s)",
            self.command, self.pid, self.host
        )
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A held cache lock; released (the file removed) when dropped.
#[derive(Debug)]
pub struct CacheLock {
    folder: PathBuf,
    path: PathBuf,
    holder: LockHolder,
    /// The cache folder, if taking the lock created it: removed again on release if nothing
    /// else was written (a bake refused on bad input leaves no empty folder behind).
    created_folder: Option<PathBuf>,
    /// The lock file, open and holding its shared OS lock while this lock lives.
    os_locked_file: Option<File>,
}

impl CacheLock {
    /// Takes the lock of cache folder `dir` (creating the folder if missing) for `command`.
    /// Refuses, naming the holder, while another process (or another bake in this one) holds
    /// it or any `gloop mesh` is meshing frames of it ([`super::meshing_lock`]); takes over a
    /// stale lock.
    pub fn acquire(dir: &Path, command: &str) -> Result<CacheLock> {
        let lock = Self::take(dir, command)?;
        // Meshers register while holding the folder's lock, so none can slip in between.
        if let Some(mesher) = super::meshing_lock::meshers(dir, true)?.first() {
            return Err(mesher.in_use(dir));
        }
        Ok(lock)
    }

    /// The folder's lock file alone, whoever is meshing: for a mesher registering its frames.
    pub(super) fn take(dir: &Path, command: &str) -> Result<CacheLock> {
        let created_folder = (!dir.exists()).then(|| dir.to_path_buf());
        std::fs::create_dir_all(dir).map_err(|e| unwritable(dir, e))?;
        let path = lock_path(dir);
        let mut holder = LockHolder::this_process(command);
        let text = serde_json::to_string_pretty(&holder).expect("a lock holder serializes");
        // Each round either takes the lock, refuses, or clears a stale lock for the next.
        for _ in 0..5 {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path);
            match file {
                Ok(mut file) => {
                    // No fsync: after a crash the lock is stale anyway.
                    let written = write_and_hold(&mut file, &text, || {
                        holder.os_lock = false;
                        serde_json::to_string_pretty(&holder).expect("a lock holder serializes")
                    });
                    if let Err(e) = written {
                        drop(file);
                        let _ = std::fs::remove_file(&path);
                        return Err(unwritable(dir, e));
                    }
                    let os_locked_file = holder.os_lock.then_some(file);
                    return Ok(CacheLock {
                        folder: dir.to_path_buf(),
                        path,
                        holder,
                        created_folder,
                        os_locked_file,
                    });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let seen = match std::fs::read(&path) {
                        Ok(bytes) => bytes,
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                        Err(e) => return Err(GloopError::io(&path, e)),
                    };
                    match serde_json::from_slice::<LockHolder>(&seen) {
                        Ok(other) if !other.is_stale(dir) => return Err(in_use(dir, &other)),
                        Err(_) if modified_within(&path, UNREADABLE_GRACE) => {
                            return Err(GloopError::file(
                                dir,
                                format!(
                                    "another gloop process is taking this cache folder right \
                                     now ({} is being written); try again in a moment",
                                    path.display()
                                ),
                            ))
                        }
                        _ => take_over(&path, &seen)?,
                    }
                }
                Err(e) => return Err(unwritable(dir, e)),
            }
        }
        Err(GloopError::file(
            &path,
            "could not take the cache lock: other processes keep taking it; try again",
        ))
    }

    /// The cache folder this lock holds.
    pub fn folder(&self) -> &Path {
        &self.folder
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn holder(&self) -> &LockHolder {
        &self.holder
    }
}

impl Drop for CacheLock {
    fn drop(&mut self) {
        // Closed first: Windows removes a file still open only once its last handle closes.
        drop(self.os_locked_file.take());
        release_if_held_by(&self.path, &self.holder);
        if let Some(folder) = &self.created_folder {
            // Fails (and is meant to) unless the folder is empty.
            let _ = std::fs::remove_dir(folder);
        }
    }
}

/// The lock file of cache folder `dir`.
pub fn lock_path(dir: &Path) -> PathBuf {
    dir.join(LOCK_FILE_NAME)
}

/// Writes a new lock file's `record` and takes the file's shared OS lock, which the system
/// keeps until the process ends. Written first: on Windows a shared lock forbids writing, its
/// holder's included. Where the file system has no file locks (some network file systems)
/// the record is written again as `without_os_lock` gives it (saying so, to be judged by
/// pid). Returns whether the OS lock is held. The folder's lock and meshing locks share it.
pub(super) fn write_and_hold(
    file: &mut File,
    record: &str,
    without_os_lock: impl FnOnce() -> String,
) -> std::io::Result<bool> {
    file.write_all(record.as_bytes())?;
    if file.try_lock_shared().is_ok() {
        return Ok(true);
    }
    let record = without_os_lock();
    file.set_len(0)?;
    file.rewind()?;
    file.write_all(record.as_bytes())?;
    Ok(false)
}

/// Whether some process holds the OS lock on the lock file at `path`: asked by trying to take
/// it exclusively (and letting it go at once). `None` when the file is gone or the file
/// system cannot say.
pub(super) fn os_lock_held(path: &Path) -> Option<bool> {
    let file = File::open(path).ok()?;
    match file.try_lock() {
        Ok(()) => Some(false),
        Err(TryLockError::WouldBlock) => Some(true),
        Err(TryLockError::Error(_)) => None,
    }
}

/// Who holds cache folder `dir`, if anyone (a stale holder included: see
/// [`LockHolder::is_stale`]), else the first `gloop mesh` meshing frames of it. For "in use
/// by …" in `gloop info` and the add-on.
pub fn lock_holder(dir: &Path) -> Result<Option<LockHolder>> {
    match read_folder_lock(dir)? {
        Some(holder) => Ok(Some(holder)),
        None => {
            let meshers = super::meshing_lock::meshers(dir, false)?;
            Ok(meshers.into_iter().next().map(|m| m.holder))
        }
    }
}

/// Who `gloop.lock` names, if it exists; an error if it cannot be read (being written).
pub(super) fn read_folder_lock(dir: &Path) -> Result<Option<LockHolder>> {
    let path = lock_path(dir);
    match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map(Some)
            .map_err(|e| GloopError::file(&path, format!("cannot read the cache lock: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(GloopError::io(&path, e)),
    }
}

/// Removes the lock at `path` if this process holds it. For an exit that skips destructors
/// (the CLI's second Ctrl-C); otherwise dropping the [`CacheLock`] does it.
pub fn release_if_mine(path: &Path) {
    let me = std::process::id();
    if let Ok(bytes) = std::fs::read(path) {
        if serde_json::from_slice::<LockHolder>(&bytes).is_ok_and(|h| h.pid == me) {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// Removes the lock file only while it still names `holder`: a lock taken over meanwhile
/// (this process was wrongly judged gone) belongs to its new holder.
fn release_if_held_by(path: &Path, holder: &LockHolder) {
    let ours = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<LockHolder>(&b).ok())
        .is_some_and(|h| h == *holder);
    if ours {
        let _ = std::fs::remove_file(path);
    }
}

/// Clears the stale lock whose bytes were `seen`. Moving it aside first (a rename, atomic)
/// and checking what was moved keeps two processes clearing the same stale lock from
/// deleting the fresh lock one of them has just taken: whoever moved that one puts it back.
fn take_over(path: &Path, seen: &[u8]) -> Result<()> {
    let aside = path.with_file_name(format!("{LOCK_FILE_NAME}.stale-{}", std::process::id()));
    match std::fs::rename(path, &aside) {
        Ok(()) => {}
        // Someone else cleared it first.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(GloopError::io(path, e)),
    }
    let moved = std::fs::read(&aside).unwrap_or_default();
    let result = if moved == seen {
        std::fs::remove_file(&aside)
    } else {
        std::fs::rename(&aside, path)
    };
    result.map_err(|e| GloopError::io(path, e))
}

fn modified_within(path: &Path, age: Duration) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .is_ok_and(|t| t.elapsed().unwrap_or_default() < age)
}

fn in_use(dir: &Path, holder: &LockHolder) -> GloopError {
    in_use_by(dir, holder, &lock_path(dir))
}

/// "In use by …" for the holder named in `lock_file`, the file to delete if it is gone.
pub(super) fn in_use_by(dir: &Path, holder: &LockHolder, lock_file: &Path) -> GloopError {
    let unsure = if holder.host == host_name() {
        String::new()
    } else {
        " (on another machine, so Gloop cannot check whether it still runs)".to_string()
    };
    GloopError::file(
        dir,
        format!(
            "this cache folder is in use by {}{unsure}; wait for it to end or stop it. If \
             that process is gone, delete {}",
            holder.describe(),
            lock_file.display()
        ),
    )
}

/// The folder cannot be written (read-only, no permission, a file in its place): said of the
/// folder, not of whichever file the bake happened to try first.
fn unwritable(dir: &Path, e: std::io::Error) -> GloopError {
    GloopError::file(dir, format!("cannot write into the cache folder: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_taker_is_refused_until_the_first_releases() {
        let dir = tempfile::tempdir().unwrap();
        let first = CacheLock::acquire(dir.path(), "bake").unwrap();
        let err = CacheLock::acquire(dir.path(), "mesh")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        assert!(err.contains(&host_name()), "{err}");
        assert_eq!(
            lock_holder(dir.path()).unwrap().as_ref(),
            Some(first.holder())
        );
        drop(first);
        assert!(!lock_path(dir.path()).exists());
        assert_eq!(lock_holder(dir.path()).unwrap(), None);
        CacheLock::acquire(dir.path(), "mesh").unwrap();
    }

    #[test]
    fn a_lock_of_a_gone_process_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        let gone = LockHolder {
            pid: 99_999_999,
            ..LockHolder::this_process("bake")
        };
        std::fs::write(lock_path(dir.path()), serde_json::to_vec(&gone).unwrap()).unwrap();
        assert!(gone.is_stale(dir.path()));
        let lock = CacheLock::acquire(dir.path(), "bake").unwrap();
        assert_eq!(
            lock_holder(dir.path()).unwrap().unwrap().pid,
            std::process::id()
        );
        drop(lock);
    }

    /// A live pid whose OS lock is free: what a crashed bake leaves on Windows or macOS when
    /// its pid is reused (or, on Windows, alive or not: std cannot ask about a pid there). The
    /// OS lock decides, so the lock is taken over.
    #[test]
    fn the_os_lock_not_the_pid_tells_a_holder_gone() {
        let dir = tempfile::tempdir().unwrap();
        let reused_pid = LockHolder::this_process("bake");
        assert!(reused_pid.os_lock);
        std::fs::write(
            lock_path(dir.path()),
            serde_json::to_vec(&reused_pid).unwrap(),
        )
        .unwrap();
        assert!(reused_pid.is_stale(dir.path()));
        drop(CacheLock::acquire(dir.path(), "bake").unwrap());
    }

    /// A lock from before holders took the OS lock is judged by its pid: this live process's
    /// is live.
    #[test]
    fn an_old_lock_without_an_os_lock_is_judged_by_its_pid() {
        let dir = tempfile::tempdir().unwrap();
        let path = lock_path(dir.path());
        let old = LockHolder {
            os_lock: false,
            ..LockHolder::this_process("bake")
        };
        let mut json = serde_json::to_value(&old).unwrap();
        json.as_object_mut().unwrap().remove("os_lock");
        std::fs::write(&path, serde_json::to_vec(&json).unwrap()).unwrap();
        let read = lock_holder(dir.path()).unwrap().unwrap();
        assert!(!read.os_lock, "an old lock reads without the field");
        assert!(!read.is_stale(dir.path()));
        assert!(CacheLock::acquire(dir.path(), "bake").is_err());
    }

    /// While a lock lives its OS lock is held, seen from another open of the file as another
    /// process would see it; once released the file is gone.
    #[test]
    fn a_live_lock_holds_its_os_lock() {
        let dir = tempfile::tempdir().unwrap();
        let lock = CacheLock::acquire(dir.path(), "bake").unwrap();
        assert!(lock.holder().os_lock);
        assert_eq!(os_lock_held(&lock_path(dir.path())), Some(true));
        assert!(!lock.holder().is_stale(dir.path()));
        drop(lock);
        assert_eq!(os_lock_held(&lock_path(dir.path())), None);
    }

    #[test]
    fn a_holder_on_another_host_is_taken_as_live() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = LockHolder {
            pid: 99_999_999,
            host: "far-away-render-node".into(),
            ..LockHolder::this_process("bake")
        };
        std::fs::write(
            lock_path(dir.path()),
            serde_json::to_vec(&elsewhere).unwrap(),
        )
        .unwrap();
        let err = CacheLock::acquire(dir.path(), "bake")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("far-away-render-node") && err.contains("another machine"),
            "{err}"
        );
    }

    #[test]
    fn an_empty_lock_is_fresh_for_a_while_then_stale() {
        let dir = tempfile::tempdir().unwrap();
        let path = lock_path(dir.path());
        std::fs::write(&path, b"").unwrap();
        let err = CacheLock::acquire(dir.path(), "bake")
            .unwrap_err()
            .to_string();
        assert!(err.contains("right now"), "{err}");
        let old = SystemTime::now() - 2 * UNREADABLE_GRACE;
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        CacheLock::acquire(dir.path(), "bake").unwrap();
    }

    #[test]
    fn a_folder_made_for_the_lock_goes_with_it_when_left_empty() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("new");
        drop(CacheLock::acquire(&cache, "bake").unwrap());
        assert!(!cache.exists());
        let lock = CacheLock::acquire(&cache, "bake").unwrap();
        std::fs::write(cache.join("particles_00001.ply"), b"x").unwrap();
        drop(lock);
        assert!(cache.join("particles_00001.ply").exists());
    }
}
