//! `gloop_core.bake(...)`: the library's bake, blocking, with the GIL released.
//!
//! The add-on calls it in a child process (see `blender_addon/bake_runner.py`), so a solver
//! crash never takes Blender down. Progress and cancellation go through the cache folder
//! (`status.json`, the `cancel` file), which the bake writes and watches itself.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::to_py;
use crate::bake::{bake as run_bake, BakeOptions, BakeOutcome};
use crate::cache::{lock_holder, FrameLine};
use crate::scene::Scene;
use crate::surface::SurfaceSettings;

/// `bake(scene_path, cache_dir, resume=False, surface=True, surface_resolution=0.5,
/// surface_smoothness=0.5, overwrite=False) -> dict`: bakes the scene file (JSON or binary)
/// into `cache_dir`, with a surface mesh per frame unless `surface` is False (resolution:
/// marching-cubes cell in particle radii; smoothness 0..1). Returns `outcome` ("finished" or
/// "cancelled"), `first_frame`, `last_frame` and `elapsed_s`; raises GloopError (naming the
/// object, field or file) on bad input or a failed bake, when the folder is in use by another
/// bake (see `cache_lock_holder`), or when it holds an earlier bake's frames and neither
/// `overwrite` nor `resume` is set. A `cancel` file in the folder stops it within a substep;
/// finished frames are kept and `resume=True` continues from the last one.
#[pyfunction]
#[pyo3(signature = (
    scene_path, cache_dir, resume = false, surface = true, surface_resolution = 0.5,
    surface_smoothness = 0.5, overwrite = false
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
) -> PyResult<Bound<'py, PyDict>> {
    let summary = py
        .detach(|| {
            let scene = Scene::load(&scene_path)?;
            let settings = SurfaceSettings {
                resolution: surface_resolution,
                smoothness: surface_smoothness,
                ..SurfaceSettings::default()
            }
            .sanitised();
            // The bake meshes each frame on a second thread while the solver goes on.
            let options = BakeOptions {
                resume,
                overwrite,
                surface: surface.then_some(settings),
                // The bake log (the child's stdout) gets a stats line per frame.
                on_stats: Some(std::sync::Arc::new(|line: &FrameLine| println!("{line}"))),
                ..BakeOptions::default()
            };
            run_bake(&scene, &cache_dir, &options, &mut |_| {})
        })
        .map_err(to_py)?;
    let dict = PyDict::new(py);
    let outcome = match summary.outcome {
        BakeOutcome::Finished => "finished",
        BakeOutcome::Cancelled => "cancelled",
    };
    dict.set_item("outcome", outcome)?;
    dict.set_item("first_frame", summary.first_frame)?;
    dict.set_item("last_frame", summary.last_frame)?;
    dict.set_item("elapsed_s", summary.elapsed_s)?;
    Ok(dict)
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
    dict.set_item("stale", holder.is_stale())?;
    Ok(Some(dict))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(bake, m)?)?;
    m.add_function(wrap_pyfunction!(cache_lock_holder, m)?)
}
