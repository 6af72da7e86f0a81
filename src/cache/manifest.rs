//! `manifest.json`: what a cache folder holds and how it was made.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::file_record::{FileRecord, FrameRecords};
use crate::atomic_file::write_atomically;
use crate::error::{GloopError, Result};
use crate::scene::Scene;

/// The file beside `manifest.json` whose OS lock [`Manifest::update`] holds.
pub const MANIFEST_LOCK: &str = "manifest.lock";

/// Version of the cache folder layout written by this build.
pub const CACHE_FORMAT_VERSION: u32 = 1;

/// One liquid material, so a viewer can label and colour the cache without the scene.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct LiquidInfo {
    pub name: String,
    /// Linear RGB, 0..1.
    pub colour: [f32; 3],
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Manifest {
    pub format_version: u32,
    /// The Gloop version that wrote the cache.
    pub gloop_version: String,
    /// [`super::scene_hash`] of the baked scene; a resume refuses a different scene.
    pub scene_hash: String,
    /// The bake's frame range, inclusive; `frame_start` holds the initial state.
    pub frame_start: i32,
    pub frame_end: i32,
    pub fps: f32,
    pub particle_radius: f32,
    /// Liquid materials in material-id order (the `material` property of particle files).
    pub liquids: Vec<LiquidInfo>,
    /// Every frame from `frame_start` through this one has its particle file; `None` until the
    /// initial frame is written.
    pub last_complete_frame: Option<i32>,
    /// How `surface_*.ply` files are meshed; `None` if the bake writes particles only.
    #[serde(default)]
    pub surface: Option<crate::surface::SurfaceSettings>,
    /// Size and hash of every finished frame file, recorded as each is written (and as
    /// `gloop mesh` rewrites surfaces), so every kept frame can be checked. Empty in caches
    /// written before records existed; a file without a record is checked as those were.
    #[serde(default)]
    pub frames: FrameRecords,
}

impl Manifest {
    /// The manifest of a bake of `scene` (whose settings hold the bake's frame range) with
    /// nothing written yet.
    pub fn for_scene(scene: &Scene) -> Manifest {
        let s = &scene.settings;
        Manifest {
            format_version: CACHE_FORMAT_VERSION,
            gloop_version: env!("CARGO_PKG_VERSION").to_string(),
            scene_hash: super::scene_hash(scene),
            frame_start: s.frame_start,
            frame_end: s.frame_end,
            fps: s.fps,
            particle_radius: s.particle_radius,
            liquids: scene
                .materials
                .liquids
                .iter()
                .map(|l| LiquidInfo {
                    name: l.name.clone(),
                    colour: l.colour,
                })
                .collect(),
            last_complete_frame: None,
            surface: None,
            frames: FrameRecords::new(),
        }
    }

    /// Records the particle file of `frame`.
    pub fn record_particles(&mut self, frame: i32, record: FileRecord) {
        self.frames.entry(frame).or_default().particles = Some(record);
    }

    /// Records the surface file of `frame` (after the bake's mesher or `gloop mesh` wrote it).
    pub fn record_surface(&mut self, frame: i32, record: FileRecord) {
        self.frames.entry(frame).or_default().surface = Some(record);
    }

    /// Records the interior shells of `frame`'s surface: the air pockets it keeps and the
    /// phantom voids the mesher filled.
    pub fn record_interior_shells(&mut self, frame: i32, shells: crate::surface::Pockets) {
        let files = self.frames.entry(frame).or_default();
        files.air_pockets = Some(shells.kept);
        files.voids_filled = Some(shells.found - shells.kept);
    }

    /// Reads the manifest at `path`, lets `change` update it and writes it back, holding the
    /// exclusive OS lock of `manifest.lock` beside it throughout: meshers of one cache, each
    /// recording its own frames, never write back a manifest read before another's record
    /// ([`super::meshing_lock`]). The lock is the system's, so a mesher killed while holding
    /// it holds it no more. Returns the manifest as written.
    pub fn update(path: &Path, change: impl FnOnce(&mut Manifest)) -> Result<Manifest> {
        let lock_path = path.with_file_name(MANIFEST_LOCK);
        let lock = std::fs::File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(|e| GloopError::io(&lock_path, e))?;
        lock.lock().map_err(|e| GloopError::io(&lock_path, e))?;
        let mut manifest = Manifest::read(path)?;
        change(&mut manifest);
        manifest.write(path)?;
        Ok(manifest)
    }

    pub fn write(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).expect("a manifest always serializes");
        write_atomically(path, text.as_bytes())
    }

    pub fn read(path: &Path) -> Result<Manifest> {
        let text = std::fs::read_to_string(path).map_err(|e| GloopError::io(path, e))?;
        let value: serde_json::Value = serde_json::from_str(&text)
            .map_err(|e| GloopError::file(path, format!("cannot read manifest: {e}")))?;
        let version = value.get("format_version").and_then(|v| v.as_u64());
        match version {
            Some(v) if v as u32 > CACHE_FORMAT_VERSION => {
                return Err(GloopError::file(
                    path,
                    format!(
                        "cache format version {v} is newer than this Gloop reads (up to \
                         {CACHE_FORMAT_VERSION}); update Gloop"
                    ),
                ))
            }
            Some(_) => {}
            None => {
                return Err(GloopError::file(
                    path,
                    "manifest has no numeric 'format_version'",
                ))
            }
        }
        serde_json::from_value(value)
            .map_err(|e| GloopError::file(path, format!("cannot read manifest: {e}")))
    }
}
