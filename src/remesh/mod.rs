//! Re-meshing a cache: the particle files of a finished (or cancelled) bake meshed again into
//! `surface_*.ply` with other surface settings, without re-simulating. `gloop mesh` and the
//! add-on's Re-mesh (`gloop_core.mesh`, in a child process) both run [`remesh`].
//!
//! - Particle files are only read, never written: they stay byte-identical.
//! - It holds the cache lock, so it never runs beside a bake. `gloop mesh` shares the folder
//!   with other `gloop mesh` processes meshing other frames (a farm's chunks;
//!   [`crate::cache::meshing_lock`]): each records its frames in the manifest as it goes, and
//!   the surfaces are the same bytes as one process meshing them all.
//! - Every argument and the manifest's radius are checked first ([`checks`]); bad ones are
//!   refused before anything is written.
//! - Surfaces are written atomically, one frame at a time, and each is recorded (size and
//!   hash, [`crate::cache::FileRecord`]) in the manifest, written after every frame: a
//!   resume or `gloop info` finds every re-meshed surface intact. Cancelling (the flag, or the
//!   `cancel` file when watched) stops between frames: the frames done have the new surface,
//!   the rest keep the old one, and the manifest keeps the old settings until a re-mesh
//!   finishes.

pub mod checks;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use crate::bake::BakeOutcome;
use crate::cache::{
    read_particles, BakeState, CacheDir, CacheLock, FileRecord, FrameLine, Manifest, MeshingLock,
    Status,
};
use crate::error::{GloopError, Result};
use crate::scene::Scene;
use crate::surface::{mesh_liquid_counted, write_surface_ply, ObstacleSurface, SurfaceSettings};

pub use checks::{check_particle_radius, check_radius_fits_particles, check_surface_settings};

#[derive(Clone)]
pub struct RemeshOptions {
    /// Frames to mesh, inclusive; `None`: every frame with a particle file.
    pub frames: Option<(i32, i32)>,
    pub settings: SurfaceSettings,
    /// Set it (from any thread) to stop before the next frame.
    pub cancel: Arc<AtomicBool>,
    /// Also stop when a `cancel` file appears in the folder (the add-on's Cancel button).
    pub watch_cancel_file: bool,
    /// Keep `status.json` up to date for a poller (the add-on's progress bar).
    pub write_status: bool,
    /// When whoever started this re-mesh did so: once it holds the lock, an earlier run's
    /// `status.json` and a `cancel` file older than this are removed (see
    /// [`crate::bake::clear_stale_requests`]). `None`: left alone.
    pub started_at: Option<SystemTime>,
}

impl Default for RemeshOptions {
    fn default() -> Self {
        RemeshOptions {
            frames: None,
            settings: SurfaceSettings::default(),
            cancel: Arc::new(AtomicBool::new(false)),
            watch_cancel_file: false,
            write_status: false,
            started_at: None,
        }
    }
}

/// After each meshed frame: its stats line, the frames done and the frames to do.
pub struct RemeshProgress<'a> {
    pub line: &'a FrameLine,
    pub frames_done: u32,
    pub frames_total: u32,
}

#[derive(Clone, Debug)]
pub struct RemeshSummary {
    pub outcome: BakeOutcome,
    pub frames_meshed: u32,
    /// The stats line of the last frame meshed.
    pub last: Option<FrameLine>,
    pub elapsed_s: f64,
}

/// Meshes the particle files of the cache in `dir` (see the module notes).
pub fn remesh(
    dir: &Path,
    options: &RemeshOptions,
    on_frame: &mut dyn FnMut(&RemeshProgress),
) -> Result<RemeshSummary> {
    if !dir.is_dir() {
        return Err(GloopError::file(dir, "no such cache folder"));
    }
    check_surface_settings(&options.settings)?;
    // Re-meshing rewrites the surfaces and the manifest a running bake also writes. A re-mesh
    // that reports through the folder's status.json and cancel file (the add-on's) holds the
    // whole folder; others (`gloop mesh`, a farm's chunks) share it with meshers of other
    // frames.
    let _lock = match options.write_status || options.watch_cancel_file {
        true => Held::Folder(CacheLock::acquire(dir, "mesh")?),
        false => Held::Frames(MeshingLock::acquire(
            dir,
            options.frames.unwrap_or((i32::MIN, i32::MAX)),
        )?),
    };
    // Only the lock's holder may touch these: before it, they may be a live bake's.
    if let Some(started_at) = options.started_at {
        crate::bake::clear_stale_requests(dir, started_at)?;
    }
    let cache = CacheDir::new(dir);
    let mut job = Job {
        cache: cache.clone(),
        options,
        started: Instant::now(),
        frames_total: 0,
        done: 0,
        last: None,
    };
    let result = job.run(on_frame);
    if options.write_status {
        let (state, error) = match &result {
            Ok(BakeOutcome::Finished) => (BakeState::Finished, None),
            Ok(BakeOutcome::Cancelled) => (BakeState::Cancelled, None),
            Err(e) => (BakeState::Failed, Some(e.to_string())),
        };
        job.status(state, error).write(&cache.status())?;
    }
    Ok(RemeshSummary {
        outcome: result?,
        frames_meshed: job.done,
        last: job.last,
        elapsed_s: job.started.elapsed().as_secs_f64(),
    })
}

/// The lock a re-mesh holds while it runs: the folder's, or a share of it by frames.
#[allow(dead_code)] // held for its Drop
enum Held {
    Folder(CacheLock),
    Frames(MeshingLock),
}

struct Job<'a> {
    cache: CacheDir,
    options: &'a RemeshOptions,
    started: Instant,
    frames_total: u32,
    done: u32,
    last: Option<FrameLine>,
}

impl Job<'_> {
    fn run(&mut self, on_frame: &mut dyn FnMut(&RemeshProgress)) -> Result<BakeOutcome> {
        let cache = &self.cache;
        let manifest = Manifest::read(&cache.manifest())?;
        // The obstacles the liquid touches, where the cache holds its scene.
        let scene = match cache.scene().exists() {
            true => Some(Scene::load(&cache.scene())?),
            false => None,
        };
        let scene_path = cache.scene();
        check_particle_radius(
            manifest.particle_radius,
            &cache.manifest(),
            scene.as_ref().map(|s| (s, scene_path.as_path())),
        )?;
        let frames = self.options.frames;
        let selected: Vec<i32> = cache
            .frames_present("particles")
            .map_err(|e| GloopError::io(cache.root(), e))?
            .into_iter()
            .filter(|f| frames.is_none_or(|(a, b)| (a..=b).contains(f)))
            .collect();
        if selected.is_empty() {
            return Err(GloopError::file(
                cache.root(),
                "no particle files to mesh in this range",
            ));
        }
        self.frames_total = selected.len() as u32;
        let settings = &self.options.settings;
        for (n, &frame) in selected.iter().enumerate() {
            if self.cancelled() {
                return Ok(BakeOutcome::Cancelled);
            }
            let clock = Instant::now();
            let particles = read_particles(&cache.particles(frame))?;
            if n == 0 {
                // Without a scene to compare with, the particles themselves show the radius.
                checks::check_radius_fits_particles(
                    manifest.particle_radius,
                    &particles.position,
                    &cache.manifest(),
                )?;
            }
            let obstacles = scene
                .as_ref()
                .map_or(vec![], |s| ObstacleSurface::of_scene(s, frame));
            let (mesh, pockets) =
                mesh_liquid_counted(&particles, manifest.particle_radius, settings, &obstacles);
            write_surface_ply(&cache.surface(frame), &mesh)?;
            // Recorded frame by frame: stopped part-way, every surface still matches its
            // record (a resume or `gloop info` would otherwise take the re-meshed ones for
            // damaged).
            // Updated, not overwritten: meshers of other frames record theirs meanwhile.
            let record = FileRecord::of_file(&cache.surface(frame))?;
            Manifest::update(&cache.manifest(), |m| {
                m.record_surface(frame, record);
                m.record_interior_shells(frame, pockets);
            })?;
            self.done += 1;
            let line = FrameLine {
                frame,
                seconds: clock.elapsed().as_secs_f64(),
                liquid_particles: particles.len(),
                object_particles: 0,
                substeps: None,
                substeps_set_by: None,
                triangles: Some(mesh.triangles.len()),
            };
            self.last = Some(line.clone());
            if self.options.write_status {
                self.status(BakeState::Running, None)
                    .write(&cache.status())?;
            }
            on_frame(&RemeshProgress {
                line: &line,
                frames_done: self.done,
                frames_total: self.frames_total,
            });
        }
        Manifest::update(&cache.manifest(), |m| m.surface = Some(settings.clone()))?;
        Ok(BakeOutcome::Finished)
    }

    fn cancelled(&self) -> bool {
        if self.options.watch_cancel_file && self.cache.cancel().exists() {
            self.options.cancel.store(true, Ordering::Release);
        }
        self.options.cancel.load(Ordering::Acquire)
    }

    /// `status.json` in the bake's format, so the add-on's poller reads a re-mesh as it reads
    /// a bake.
    fn status(&self, state: BakeState, error: Option<String>) -> Status {
        let elapsed_s = self.started.elapsed().as_secs_f64();
        let remaining = self.frames_total.saturating_sub(self.done);
        let eta_s = match state {
            BakeState::Running if self.done > 0 => {
                Some(elapsed_s / self.done as f64 * remaining as f64)
            }
            BakeState::Running => None,
            _ => Some(0.0),
        };
        Status {
            state,
            frame: self.last.as_ref().map_or(0, |l| l.frame),
            frames_done: self.done,
            frames_total: self.frames_total,
            liquid_particles: self.last.as_ref().map_or(0, |l| l.liquid_particles),
            object_particles: 0,
            elapsed_s,
            eta_s,
            error,
            capped_frames: 0,
            worst_compression: 0.0,
            substeps: None,
            substeps_set_by: None,
            substeps_capped_frames: 0,
            last_frame_stats: self.last.clone(),
        }
    }
}
