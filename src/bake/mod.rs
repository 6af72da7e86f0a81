//! The bake: a scene in, a cache folder of per-frame particle files (and, by default, surface
//! meshes) out (see [`crate::cache`] for the folder layout).
//!
//! The solver runs on the calling thread. A second thread meshes each written frame while the
//! solver computes the next one (see [`BakeOptions::surface`] and [`FrameHook`]); a third
//! watches for the `cancel` file.
//!
//! ```no_run
//! # use gloop::{bake::{bake, BakeOptions}, Scene};
//! let scene = Scene::load("scene.gloop".as_ref())?;
//! let summary = bake(&scene, "cache".as_ref(), &BakeOptions::default(), &mut |p| {
//!     println!("frame {} ({} particles)", p.frame, p.liquid_particles)
//! })?;
//! # Ok::<(), gloop::GloopError>(())
//! ```
//!
//! Guarantees:
//! - One process at a time: the bake holds the folder's [`CacheLock`]; a second bake, resume
//!   or `gloop mesh` into it is refused, naming the holder's pid and host.
//! - Bad input never touches the cache: the scene is validated and the simulation built (or
//!   the resume point read) before the first file is written or deleted (the lock file
//!   comes and goes).
//! - An earlier bake is replaced only with consent (`overwrite`), and a fresh bake that fails
//!   leaves it as it was.
//! - Every file is written atomically; `particles_N.ply` exists only once frame N is complete.
//! - Cancelling (the `cancel` flag, or a `cancel` file in the folder) stops within a substep
//!   and keeps every finished frame; `resume` continues from the last one, bit-identically to
//!   an uninterrupted bake.
//! - The manifest records the size and hash of every frame file once it is complete; `resume`
//!   checks every frame it keeps and bakes again from the first damaged one (a damaged
//!   surface alone is meshed again).

mod cancel;
mod consent;
mod contain;
mod files;
mod ledger;
mod pipeline;
mod resume;
mod set_aside;
mod stats_book;
mod surface_hook;

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub use files::{clear_stale_requests, remove_stale_cancel};
pub use pipeline::FrameHook;
pub use set_aside::REPLACED_FOLDER;
pub use stats_book::StatsCallback;
pub use surface_hook::surface_hook;

use crate::cache::{
    BakeState, CacheDir, CacheLock, FileRecord, FrameLine, FrameRecords, Manifest, Status,
};
use crate::error::{GloopError, Result};
use crate::scene::Scene;
use crate::sim::{FrameStats, LiquidParticles, PassCapReport, Simulation};
use crate::surface::SurfaceSettings;

/// How to run a bake. `BakeOptions::default()` is a fresh bake of the scene's frame range that
/// also stops when a `cancel` file appears.
#[derive(Clone)]
pub struct BakeOptions {
    /// Continue from the last complete frame in the cache (which must have been baked from
    /// the same scene, `frame_end` aside) instead of starting over. With no earlier bake in
    /// the folder, bakes from the start.
    pub resume: bool,
    /// A fresh bake may replace a folder holding an earlier bake's frames (see
    /// `consent.rs`); without it such a bake is refused. The earlier bake is kept aside until
    /// the new one finishes and restored if it fails (see `set_aside.rs`).
    pub overwrite: bool,
    /// The artist has seen the scene's cautions (`Scene::cautions`: a liquid below the
    /// resolution, over a million object particles) and bakes anyway; without it a fresh
    /// bake of such a scene is refused, naming them (see `consent.rs`). A resume continues a
    /// bake that was started, and never asks.
    pub confirmed: bool,
    /// Bake these frames (inclusive) instead of the scene's `frame_start..=frame_end`. The
    /// first is the initial state.
    pub frames: Option<(i32, i32)>,
    /// Set it (from any thread) to stop the bake within a substep. The solver checks it at
    /// every substep; the bake also sets it itself when the `cancel` file appears.
    pub cancel: Arc<AtomicBool>,
    /// Also stop when the file `cancel` appears in the cache folder (polled every 10 ms). A
    /// `cancel` file already there stops the bake right after its first frame: whoever starts
    /// a bake removes a stale one first (the add-on's runner and the CLI do). The bake leaves
    /// it alone, so a cancel requested while the bake is starting up is never lost.
    pub watch_cancel_file: bool,
    /// Mesh every frame into `surface_{frame:05}.ply` with these settings (on a second
    /// thread, overlapping the solver). `None`: particles only.
    pub surface: Option<SurfaceSettings>,
    /// Runs on the same second thread for every frame written, after the mesher (see
    /// [`FrameHook`]).
    pub on_frame: Option<FrameHook>,
    /// Gets each frame's stats line (time, particles, substeps, triangles) once all of it is
    /// known, from the solver or the mesher thread (see `stats_book.rs`).
    pub on_stats: Option<StatsCallback>,
}

impl Default for BakeOptions {
    fn default() -> Self {
        BakeOptions {
            resume: false,
            overwrite: false,
            confirmed: false,
            frames: None,
            cancel: Arc::new(AtomicBool::new(false)),
            watch_cancel_file: true,
            surface: Some(SurfaceSettings::default()),
            on_frame: None,
            on_stats: None,
        }
    }
}

/// Reported after every frame written (the initial frame included).
#[derive(Clone, Debug)]
pub struct BakeProgress {
    pub frame: i32,
    /// Frames in the cache so far, the initial frame (and resumed-from frames) included.
    pub frames_done: u32,
    pub frames_total: u32,
    pub liquid_particles: usize,
    pub object_particles: usize,
    pub elapsed_s: f64,
    pub eta_s: Option<f64>,
    /// The solver's figures for this frame; `None` for the initial or resumed-from frame.
    pub stats: Option<FrameStats>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BakeOutcome {
    Finished,
    /// Stopped by the cancel flag or file; the frames up to `last_frame` are kept.
    Cancelled,
}

impl BakeOutcome {
    /// The word `gloop_core` returns for it ("finished", "cancelled").
    pub fn as_str(self) -> &'static str {
        match self {
            BakeOutcome::Finished => "finished",
            BakeOutcome::Cancelled => "cancelled",
        }
    }
}

#[derive(Clone, Debug)]
pub struct BakeSummary {
    pub outcome: BakeOutcome,
    /// The frame this run started from (the initial frame, or the resumed-from frame).
    pub first_frame: i32,
    /// The last frame whose particle file is complete.
    pub last_frame: i32,
    /// Solver figures of the frames this run simulated.
    pub stats: Vec<FrameStats>,
    pub elapsed_s: f64,
    /// What a resume found broken in the frames it would have kept, one line per file
    /// (naming it and what it did about it); empty when every frame checked out.
    pub repairs: Vec<String>,
}

/// Bakes `scene` into `cache_dir` (created if missing). Calls `on_progress` after every frame.
/// Returns `Ok` also when cancelled (see [`BakeSummary::outcome`]); errors name the object,
/// field or file at fault. Holds the folder's [`CacheLock`] throughout: a second bake into a
/// folder in use is refused, naming the process that holds it.
pub fn bake(
    scene: &Scene,
    cache_dir: &Path,
    options: &BakeOptions,
    on_progress: &mut dyn FnMut(&BakeProgress),
) -> Result<BakeSummary> {
    let command = if options.resume { "resume" } else { "bake" };
    let lock = CacheLock::acquire(cache_dir, command)?;
    bake_locked(&lock, scene, options, on_progress)
}

/// [`bake`] into the folder of a lock the caller holds already (the CLI takes it first, so
/// that clearing a stale `cancel` file happens under it too).
pub fn bake_locked(
    lock: &CacheLock,
    scene: &Scene,
    options: &BakeOptions,
    on_progress: &mut dyn FnMut(&BakeProgress),
) -> Result<BakeSummary> {
    let scene = with_frame_range(scene, options.frames)?;
    let cache = CacheDir::new(lock.folder());
    set_aside::recover(&cache)?;
    // Everything that can fail on bad input happens here, before the cache is touched.
    if !options.resume && !options.confirmed {
        // Before the simulation is built: over a huge floor that takes a while.
        consent::check_cautions(&scene)?;
    }
    let (sim, resumed, repairs) = start_simulation(&scene, &cache, options.resume)?;
    let replaced = match &resumed {
        Some(point) => {
            files::clear_frames_after(&cache, point.frame)?;
            files::remove_surfaces(&cache, &point.broken_surfaces)?;
            set_aside::existing(&cache)
        }
        None => {
            if !options.resume && !options.overwrite {
                consent::check(&cache, &scene)?;
            }
            if options.resume && !options.confirmed {
                // A resume that found nothing to continue bakes afresh.
                consent::check_cautions(&scene)?;
            }
            set_aside::set_aside(&cache)?
        }
    };
    let resumed_from = resumed.as_ref().map(|point| point.frame);
    let result = write_bake(&scene, cache, sim, resumed, repairs, options, on_progress);
    let Some(replaced) = replaced else {
        return result;
    };
    match result {
        Ok(summary) if summary.outcome == BakeOutcome::Finished => {
            replaced.delete();
            Ok(summary)
        }
        // A fresh bake that failed gives the folder its earlier bake back; a failed resume
        // leaves its own frames (and the set-aside bake) for the next try.
        Err(e) if resumed_from.is_none() => Err(replaced.restore_after(e)),
        other => other,
    }
}

/// The bake proper, once the cache folder is ready for it.
fn write_bake(
    scene: &Scene,
    cache: CacheDir,
    sim: Simulation,
    resumed: Option<Resumed>,
    repairs: Vec<String>,
    options: &BakeOptions,
    on_progress: &mut dyn FnMut(&BakeProgress),
) -> Result<BakeSummary> {
    let mut manifest = Manifest::for_scene(scene);
    manifest.surface = options.surface.clone();
    let resumed = resumed.map(|point| {
        manifest.last_complete_frame = Some(point.frame);
        manifest.frames = point.records;
        point.frame
    });
    scene.save(&cache.scene())?;
    let ledger = Arc::new(ledger::Ledger::start(cache.manifest(), manifest)?);

    let book = stats_book::StatsBook::new(options.surface.is_some(), options.on_stats.clone());
    let mut run = Run {
        cache,
        ledger: ledger.clone(),
        frame_start: scene.settings.frame_start,
        frame_end: scene.settings.frame_end,
        frames_total: scene.settings.frame_count(),
        started: Instant::now(),
        stats: Vec::new(),
        last_progress: None,
        book: book.clone(),
        repairs,
    };
    let done = AtomicBool::new(false);
    // A cancel already there when the frames start (made while the bake started up) is seen
    // now, not whenever the watcher thread first looks: a small scene can bake a frame or two
    // before that thread has run at all.
    if options.watch_cancel_file && run.cache.cancel().exists() {
        options.cancel.store(true, Ordering::Release);
    }
    let result = std::thread::scope(|scope| {
        if options.watch_cancel_file {
            let file = run.cache.cancel();
            let (cancel, done) = (&*options.cancel, &done);
            scope.spawn(move || cancel::watch_file(&file, cancel, done));
        }
        let mut pipeline = pipeline::Pipeline::start(
            scope,
            frame_hook(scene, options, ledger.clone(), book),
            run.cache.clone(),
        );
        let result = contain::contain_panic("the bake", || {
            run.mesh_missing_surfaces(resumed, options.surface.is_some(), &mut pipeline)
                .and_then(|()| {
                    run.frames(sim, resumed, &options.cancel, &mut pipeline, on_progress)
                })
        });
        done.store(true, Ordering::Release);
        // Let the hook finish the frames already written, even after a cancel.
        let hook_result = pipeline.finish();
        result.and_then(|outcome| hook_result.map(|()| outcome))
    });
    // The surfaces recorded since the last frame's write (whatever the outcome: a cancelled
    // or failed bake keeps its frames too).
    let written = ledger.write();
    let result = result.and_then(|outcome| written.map(|()| outcome));
    run.finish(result)
}

/// The mesher (recording each surface in the manifest and reporting its triangles for the
/// frame's stats line) and the caller's hook, as one hook for the post-processing thread.
fn frame_hook(
    scene: &Scene,
    options: &BakeOptions,
    ledger: Arc<ledger::Ledger>,
    book: Arc<stats_book::StatsBook>,
) -> Option<FrameHook> {
    let counter = ledger.clone();
    let record: FrameHook = Arc::new(move |frame, _, cache| {
        ledger.surface_written(frame, FileRecord::of_file(&cache.surface(frame))?);
        Ok(())
    });
    let mesher = options.surface.clone().map(|s| {
        let meshed = move |frame, triangles, pockets: crate::surface::Pockets| {
            counter.interior_shells_counted(frame, pockets);
            book.meshed(frame, triangles)
        };
        let mesh =
            surface_hook::surface_hook_reporting(Arc::new(scene.clone()), s, Arc::new(meshed));
        surface_hook::chain(mesh, record)
    });
    match (mesher, options.on_frame.clone()) {
        (Some(a), Some(b)) => Some(surface_hook::chain(a, b)),
        (a, b) => a.or(b),
    }
}

/// `scene` with the requested frame range.
fn with_frame_range(scene: &Scene, frames: Option<(i32, i32)>) -> Result<Scene> {
    let mut scene = scene.clone();
    if let Some((start, end)) = frames {
        if end < start {
            return Err(GloopError::Other(format!(
                "frame range {start}..{end} ends before it starts"
            )));
        }
        let bound = crate::scene::settings::MAX_FRAME;
        if start < -bound || end > bound {
            return Err(GloopError::Other(format!(
                "frame range {start}..{end}: frames must lie within -{bound}..{bound} \
                 (Blender's limit)"
            )));
        }
        scene.settings.frame_start = start;
        scene.settings.frame_end = end;
    }
    Ok(scene)
}

/// Where a resume continues: the last good frame and the checked records of the kept ones.
struct Resumed {
    frame: i32,
    records: FrameRecords,
    broken_surfaces: Vec<i32>,
}

/// Builds the simulation, from the scene's initial state or from the cache's last good
/// frame; with it, what a resume found broken (see [`BakeSummary::repairs`]). Reads the
/// cache but never modifies it.
fn start_simulation(
    scene: &Scene,
    cache: &CacheDir,
    resume: bool,
) -> Result<(Simulation, Option<Resumed>, Vec<String>)> {
    scene.validate_makes_liquid()?;
    // `Simulation::new` validates the scene itself: validating it here too sampled every
    // obstacle once more (5 s of a bake over an unscaled 2 m floor).
    if !resume {
        return Ok((Simulation::new(scene)?, None, Vec::new()));
    }
    scene.validate()?;
    let (point, repairs) = resume::find_resume_point(scene, cache)?;
    let Some(point) = point else {
        return Ok((Simulation::new(scene)?, None, repairs));
    };
    let sim = Simulation::resume(scene, point.frame, point.particles)?;
    let resumed = Resumed {
        frame: point.frame,
        records: point.records,
        broken_surfaces: point.broken_surfaces,
    };
    Ok((sim, Some(resumed), repairs))
}

/// The state of one bake run while it writes frames.
struct Run {
    cache: CacheDir,
    /// The manifest, shared with the mesher's thread.
    ledger: Arc<ledger::Ledger>,
    frame_start: i32,
    frame_end: i32,
    frames_total: u32,
    started: Instant,
    stats: Vec<FrameStats>,
    /// Progress of the last frame written, for the final status.
    last_progress: Option<BakeProgress>,
    /// Each frame's stats line, put together from the solver's and the mesher's halves.
    book: Arc<stats_book::StatsBook>,
    /// What the resume found broken (see [`BakeSummary::repairs`]).
    repairs: Vec<String>,
}

impl Run {
    /// On resume, meshes the kept frames that have no surface file yet (a killed bake's mesher
    /// can lag the solver by a frame or two).
    fn mesh_missing_surfaces(
        &self,
        resumed: Option<i32>,
        meshing: bool,
        pipeline: &mut pipeline::Pipeline,
    ) -> Result<()> {
        let (Some(last), true) = (resumed, meshing) else {
            return Ok(());
        };
        for frame in self.frame_start..=last {
            if !self.cache.surface(frame).exists() {
                let particles = crate::cache::read_particles(&self.cache.particles(frame))?;
                pipeline.submit(frame, &particles)?;
            }
        }
        Ok(())
    }

    /// The frame loop. `resumed`: the frame the simulation starts from is already on disk.
    fn frames(
        &mut self,
        mut sim: Simulation,
        resumed: Option<i32>,
        stop: &AtomicBool,
        pipeline: &mut pipeline::Pipeline,
        on_progress: &mut dyn FnMut(&BakeProgress),
    ) -> Result<BakeOutcome> {
        // The frame a resume starts from is on disk and recorded already.
        let first = match resumed {
            Some(_) => None,
            None => Some(self.write_particles(&sim)?),
        };
        self.frame_written(&sim, first, None, 0.0, on_progress)?;
        if resumed.is_none() {
            pipeline.submit(sim.frame(), sim.liquid())?;
        }
        while sim.frame() < self.frame_end {
            let clock = Instant::now();
            let stats = match sim.step_frame(stop) {
                Ok(stats) => stats,
                Err(GloopError::Cancelled) => return Ok(BakeOutcome::Cancelled),
                Err(e) => return Err(e),
            };
            let record = self.write_particles(&sim)?;
            self.stats.push(stats.clone());
            let seconds = clock.elapsed().as_secs_f64();
            self.frame_written(&sim, Some(record), Some(stats), seconds, on_progress)?;
            pipeline.submit(sim.frame(), sim.liquid())?;
        }
        Ok(BakeOutcome::Finished)
    }

    /// Writes the particle file of the simulation's frame; returns its record. The record is
    /// read back from the file (from the page cache, just written): what is checked later is
    /// what is on disk, whatever wrote it.
    fn write_particles(&self, sim: &Simulation) -> Result<FileRecord> {
        let path = self.cache.particles(sim.frame());
        crate::cache::write_particles(&path, sim.frame(), sim.liquid())?;
        FileRecord::of_file(&path)
    }

    /// Records a frame whose particle file is on disk (`record`: `None` if recorded
    /// already): manifest, status, progress.
    fn frame_written(
        &mut self,
        sim: &Simulation,
        record: Option<FileRecord>,
        stats: Option<FrameStats>,
        seconds: f64,
        on_progress: &mut dyn FnMut(&BakeProgress),
    ) -> Result<()> {
        self.book.solved(FrameLine {
            frame: sim.frame(),
            seconds,
            liquid_particles: sim.liquid().len(),
            object_particles: sim.object_positions().len(),
            substeps: stats.as_ref().map(|s| s.substeps),
            substeps_set_by: stats.as_ref().map(|s| s.substep_bound.name().to_string()),
            triangles: None,
        });
        self.ledger.particles_written(sim.frame(), record)?;
        let progress = self.progress(
            sim.frame(),
            sim.liquid(),
            sim.object_positions().len(),
            stats,
        );
        self.status(BakeState::Running, &progress, None)
            .write(&self.cache.status())?;
        on_progress(&progress);
        self.last_progress = Some(progress);
        Ok(())
    }

    fn progress(
        &self,
        frame: i32,
        liquid: &LiquidParticles,
        object_particles: usize,
        stats: Option<FrameStats>,
    ) -> BakeProgress {
        let frames_done = (frame - self.frame_start + 1).max(0) as u32;
        let elapsed_s = self.started.elapsed().as_secs_f64();
        let remaining = self.frames_total.saturating_sub(frames_done);
        // From this run's own pace; the first (initial/resumed) frame costs no solving.
        let eta_s = (!self.stats.is_empty())
            .then(|| elapsed_s / self.stats.len() as f64 * remaining as f64);
        BakeProgress {
            frame,
            frames_done,
            frames_total: self.frames_total,
            liquid_particles: liquid.len(),
            object_particles,
            elapsed_s,
            eta_s,
            stats,
        }
    }

    fn status(&self, state: BakeState, p: &BakeProgress, error: Option<String>) -> Status {
        let capped = PassCapReport::of(&self.stats);
        Status {
            state,
            frame: p.frame,
            frames_done: p.frames_done,
            frames_total: p.frames_total,
            liquid_particles: p.liquid_particles,
            object_particles: p.object_particles,
            elapsed_s: p.elapsed_s,
            eta_s: if state == BakeState::Running {
                p.eta_s
            } else {
                Some(0.0)
            },
            error,
            capped_frames: capped.frames,
            worst_compression: capped.worst_compression,
            substeps: self.stats.last().map(|s| s.substeps),
            substeps_set_by: self
                .stats
                .last()
                .map(|s| s.substep_bound.name().to_string()),
            substeps_capped_frames: self.stats.iter().filter(|s| s.substeps_capped).count() as u32,
            last_frame_stats: self.book.latest(),
        }
    }

    /// Writes the final status and builds the summary.
    fn finish(self, result: Result<BakeOutcome>) -> Result<BakeSummary> {
        let last_frame = self
            .ledger
            .last_complete_frame()
            .unwrap_or(self.frame_start - 1);
        let progress = BakeProgress {
            elapsed_s: self.started.elapsed().as_secs_f64(),
            ..self
                .last_progress
                .clone()
                .unwrap_or_else(|| self.progress(last_frame, &LiquidParticles::default(), 0, None))
        };
        let (state, error) = match &result {
            Ok(BakeOutcome::Finished) => (BakeState::Finished, None),
            Ok(BakeOutcome::Cancelled) => (BakeState::Cancelled, None),
            Err(e) => (BakeState::Failed, Some(e.to_string())),
        };
        let status_written = self
            .status(state, &progress, error)
            .write(&self.cache.status());
        let outcome = result?;
        status_written?;
        let first_frame = last_frame - self.stats.len() as i32;
        Ok(BakeSummary {
            outcome,
            first_frame,
            last_frame,
            stats: self.stats,
            elapsed_s: self.started.elapsed().as_secs_f64(),
            repairs: self.repairs,
        })
    }
}
