//! The manifest while a bake writes frames. The solver's thread records each particle file
//! and the mesher's thread each surface file as soon as it is complete, under one mutex.
//!
//! `manifest.json` is rewritten (atomically, synced) once per frame, as before records
//! existed: when a particle file is recorded, taking along the surfaces recorded since, and
//! once more when the bake ends. A surface record only lags its file by about a frame; a
//! process killed in between leaves that surface unrecorded, and a resume checks and records
//! it then (see `resume.rs`). Syncing the manifest a second time per frame for it would cost
//! more than all the hashing (see `examples/cache_record_bench.rs`).

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

use crate::cache::{FileRecord, Manifest};
use crate::error::Result;

pub(super) struct Ledger {
    path: PathBuf,
    manifest: Mutex<Manifest>,
}

impl Ledger {
    /// Writes `manifest` to `path` and keeps it for the records to come.
    pub fn start(path: PathBuf, manifest: Manifest) -> Result<Ledger> {
        manifest.write(&path)?;
        Ok(Ledger {
            path,
            manifest: Mutex::new(manifest),
        })
    }

    /// Frame `frame`'s particle file is complete (every frame before it too): records it
    /// (`None`: recorded already, the frame a resume starts from).
    pub fn particles_written(&self, frame: i32, record: Option<FileRecord>) -> Result<()> {
        let mut manifest = self.lock();
        manifest.last_complete_frame = Some(frame);
        if let Some(record) = record {
            manifest.record_particles(frame, record);
        }
        manifest.write(&self.path)
    }

    /// Frame `frame`'s surface file is complete: recorded now, written with the next frame's
    /// particle file or at the end ([`Ledger::write`]).
    pub fn surface_written(&self, frame: i32, record: FileRecord) {
        self.lock().record_surface(frame, record);
    }

    /// Frame `frame`'s interior shells (air pockets kept, voids filled): recorded with its
    /// surface file.
    pub fn interior_shells_counted(&self, frame: i32, shells: crate::surface::Pockets) {
        self.lock().record_interior_shells(frame, shells);
    }

    /// Writes the manifest as it stands (when the bake ends, however it ends).
    pub fn write(&self) -> Result<()> {
        self.lock().write(&self.path)
    }

    pub fn last_complete_frame(&self) -> Option<i32> {
        self.lock().last_complete_frame
    }

    fn lock(&self) -> MutexGuard<'_, Manifest> {
        // A panic while holding it can only have happened between two whole writes (the
        // manifest on disk is always complete), so the data is still good.
        self.manifest
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
