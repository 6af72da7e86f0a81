//! The manifest while a bake writes frames. The solver's thread records each particle file
//! and the mesher's thread each surface file as soon as it is complete; both rewrite
//! `manifest.json` (atomically) under one mutex, so neither's record is lost to the other's
//! write and the two never write the same temporary file at once.

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

    /// Frame `frame`'s surface file is complete.
    pub fn surface_written(&self, frame: i32, record: FileRecord) -> Result<()> {
        let mut manifest = self.lock();
        manifest.record_surface(frame, record);
        manifest.write(&self.path)
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
