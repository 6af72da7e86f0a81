//! `gloop_core.bake(...)`: the library's bake, blocking, with the GIL released.
//!
//! The add-on calls it in a child process (see `blender_addon/bake_runner.py`), so a solver
//! crash never takes Blender down. Progress and cancellation go through the cache folder
//! (`status.json`, the `cancel` file), which the bake writes and watches itself.

use std::path::PathBuf;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::to_py;
use crate::bake::{bake_locked, clear_stale_requests, BakeOptions};
use crate::cache::{lock_holder, CacheLock, FrameLine};
use crate::error::GloopError;
use crate::scene::Scene;
use crate::surface::SurfaceSettings;

/// `bake(scene_path, cache_dir, resume=False, surface=True, surface_resolution=0.5,
/// surface_smoothness=0.5, overwrite=False, max_error=None) -> dict`: bakes the scene file
/// (JSON or binary) into `cache_dir`, with a surface mesh per frame unless `surface` is False
/// (resolution: marching-cubes cell in particle radii; smoothness 0..1; max_error: decimation's
/// error target in particle radii, 0 = off, None = the mesher's default,
/// `SURFACE_DEFAULTS["max_error"]`). Returns `outcome` ("finished" or
/// "cancelled"), `first_frame`, `last_frame`, `elapsed_s` and `repairs` (what a resume found
/// damaged in the frames it would have kept, and baked or meshed again); raises GloopError (naming the
/// object, field or file) on bad input or a failed bake, when the folder is in use by another
/// bake (see `cache_lock_holder`), or when it holds an earlier bake's frames and neither
/// `overwrite` nor `resume` is set, or when a fresh bake of a scene with cautions
/// (`Scene::cautions`: a liquid object below the resolution, over a million object particles)
/// is not `confirmed`. A `cancel` file in the folder stops it within a substep;
/// finished frames are kept and `resume=True` continues from the last one.
///
/// `started_at` (seconds since 1970): when whoever started this bake did so. Once the bake
/// holds the folder's lock it removes what an earlier bake left: `status.json`, and a
/// `cancel` file older than that (a newer one, made while this bake was starting up, stops
/// it). Only the lock's holder may touch those files: before it, they may be a live bake's.
#[pyfunction]
#[pyo3(signature = (
    scene_path, cache_dir, resume = false, surface = true, surface_resolution = 0.5,
    surface_smoothness = 0.5, overwrite = false, started_at = None, max_error = None,
    confirmed = false
))]
#[allow(clippy::too_many_arguments)]
fn bake<'py>(
    py: Python<'py>,
    scene_path: PathBuf,
    cache_dir: PathBuf,
    resume: bool,
    surface: bool,
    surface_resolution: f32,
    surface_smoothness: f32,
    overwrite: bool,
    started_at: Option<f64>,
    max_error: Option<f32>,
    confirmed: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let started_at = started_at.map(unix_time).transpose().map_err(to_py)?;
    let summary = py
        .detach(|| {
            let scene = Scene::load(&scene_path)?;
            let settings = SurfaceSettings {
                resolution: surface_resolution,
                smoothness: surface_smoothness,
                max_error: max_error.unwrap_or(SurfaceSettings::default().max_error),
                ..SurfaceSettings::default()
            }
            .sanitised();
            // The bake meshes each frame on a second thread while the solver goes on.
            let options = BakeOptions {
                resume,
                overwrite,
                confirmed,
                surface: surface.then_some(settings),
                // The bake log (the child's stdout) gets a stats line per frame.
                on_stats: Some(std::sync::Arc::new(|line: &FrameLine| println!("{line}"))),
                ..BakeOptions::default()
            };
            let lock = CacheLock::acquire(&cache_dir, if resume { "resume" } else { "bake" })?;
            if let Some(started_at) = started_at {
                clear_stale_requests(&cache_dir, started_at)?;
            }
            bake_locked(&lock, &scene, &options, &mut |_| {})
        })
        .map_err(to_py)?;
    let dict = PyDict::new(py);
    dict.set_item("outcome", summary.outcome.as_str())?;
    dict.set_item("first_frame", summary.first_frame)?;
    dict.set_item("last_frame", summary.last_frame)?;
    dict.set_item("elapsed_s", summary.elapsed_s)?;
    dict.set_item("repairs", summary.repairs)?;
    Ok(dict)
}

/// Seconds since 1970 as a time; NaN, infinite or negative is an error, not a panic.
pub(super) fn unix_time(seconds: f64) -> crate::error::Result<SystemTime> {
    Duration::try_from_secs_f64(seconds)
        .ok()
        .and_then(|d| UNIX_EPOCH.checked_add(d))
        .ok_or_else(|| {
            GloopError::Other(format!(
                "started_at must be a time in seconds since 1970, not {seconds}"
            ))
        })
}

/// `cache_lock_holder(cache_dir) -> dict | None`: who is baking or meshing into the folder
/// right now, for an "in use by …" line: `pid`, `host`, `command` ("bake", "resume", "mesh"),
/// `since_unix_s`, `description` (one line naming all of them) and `stale` (True when that
/// process is known to be gone: the next bake takes the lock over). None when the folder is
/// free. Raises GloopError if the lock file cannot be read.
#[pyfunction]
fn cache_lock_holder<'py>(
    py: Python<'py>,
    cache_dir: PathBuf,
) -> PyResult<Option<Bound<'py, PyDict>>> {
    let Some(holder) = lock_holder(&cache_dir).map_err(to_py)? else {
        return Ok(None);
    };
    let dict = PyDict::new(py);
    dict.set_item("pid", holder.pid)?;
    dict.set_item("host", &holder.host)?;
    dict.set_item("command", &holder.command)?;
    dict.set_item("since_unix_s", holder.since_unix_s)?;
    dict.set_item("description", holder.describe())?;
    dict.set_item("stale", holder.is_stale(&cache_dir))?;
    Ok(Some(dict))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bake, m)?)?;
    m.add_function(wrap_pyfunction!(cache_lock_holder, m)?)
}
