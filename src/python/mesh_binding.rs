//! `gloop_core.mesh(...)`: the add-on's Re-mesh, the same [`crate::remesh`] as `gloop mesh`,
//! and `gloop_core.scene_json(...)`: a cache's scene file as JSON for Open Cache (and a
//! demo's, for tests).
//!
//! Like `bake`, `mesh` runs in a child process (`blender_addon/bake_runner.py`), blocking,
//! with the GIL released; progress goes to `status.json` and a `cancel` file stops it between
//! frames.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::PyDict;

use super::to_py;
use crate::remesh::{remesh, RemeshOptions};
use crate::scene::Scene;
use crate::surface::SurfaceSettings;

/// `mesh(cache_dir, surface_resolution=0.5, surface_smoothness=0.5, max_error=None,
/// frames=None) -> dict` (`max_error` None: the mesher's default, `SURFACE_DEFAULTS`): meshes the cache's particle files again with these surface
/// settings (never re-simulating: particle files are only read). `frames`: an inclusive
/// `(first, last)` or None for all. Returns `outcome` ("finished" or "cancelled"),
/// `frames_meshed`, `elapsed_s` and `last` (the last frame's stats line, or None). Raises
/// GloopError naming the field for a setting out of range (resolution 0.2..4, smoothness 0..1,
/// max_error 0..0.25) or a damaged manifest radius, and when another bake or re-mesh holds
/// the folder. Each frame's stats line is printed (the child's log).
///
/// `started_at` (seconds since 1970), as for `bake`: once the re-mesh holds the folder's lock
/// it removes an earlier run's `status.json` and a `cancel` file older than that.
#[pyfunction]
#[pyo3(signature = (
    cache_dir, surface_resolution = 0.5, surface_smoothness = 0.5, max_error = None,
    frames = None, started_at = None
))]
fn mesh<'py>(
    py: Python<'py>,
    cache_dir: PathBuf,
    surface_resolution: f32,
    surface_smoothness: f32,
    max_error: Option<f32>,
    frames: Option<(i32, i32)>,
    started_at: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let started_at = started_at
        .map(super::bake_binding::unix_time)
        .transpose()
        .map_err(to_py)?;
    let options = RemeshOptions {
        frames,
        settings: SurfaceSettings {
            resolution: surface_resolution,
            smoothness: surface_smoothness,
            max_error: max_error.unwrap_or(SurfaceSettings::default().max_error),
            ..SurfaceSettings::default()
        },
        watch_cancel_file: true,
        write_status: true,
        started_at,
        ..RemeshOptions::default()
    };
    let summary = py
        .detach(|| remesh(&cache_dir, &options, &mut |p| println!("{}", p.line)))
        .map_err(to_py)?;
    let dict = PyDict::new(py);
    dict.set_item("outcome", summary.outcome.as_str())?;
    dict.set_item("frames_meshed", summary.frames_meshed)?;
    dict.set_item("elapsed_s", summary.elapsed_s)?;
    dict.set_item("last", summary.last.map(|l| l.to_string()))?;
    Ok(dict)
}

/// `scene_json(path) -> str`: a scene file (binary `scene.gloop` as `gloop bake` and
/// `gloop demo` write, or JSON), loaded and validated, as JSON text: objects with their
/// meshes (`vertices`, `triangles`) and motion (`static` matrix, `rigid` matrices per frame
/// from `first_frame`, `deforming` world positions per frame), materials and settings.
/// Matrices are glam's column-major 16 floats. Raises GloopError naming the file when it is
/// missing, truncated, corrupt, from a newer Gloop, or invalid.
#[pyfunction]
fn scene_json(py: Python<'_>, path: PathBuf) -> PyResult<String> {
    py.detach(|| Scene::load(&path).map(|s| s.to_json()))
        .map_err(to_py)
}

/// `scene_changes(baked, now) -> {"changes": [str], "summary": str}`: what changed from the
/// scene file a cache was baked from to the scene about to resume it, in an artist's words
/// ("viscosity of 'honey'", "the shape of 'Cube'"); empty when a resume may continue.
/// Raises GloopError naming a file that cannot be read.
#[pyfunction]
fn scene_changes<'py>(
    py: Python<'py>,
    baked: PathBuf,
    now: PathBuf,
) -> PyResult<Bound<'py, PyDict>> {
    use crate::scene::changes::{changes, summary};
    let found = py
        .detach(|| Ok::<_, crate::GloopError>(changes(&Scene::load(&baked)?, &Scene::load(&now)?)))
        .map_err(to_py)?;
    let dict = PyDict::new(py);
    dict.set_item("summary", summary(&found))?;
    dict.set_item("changes", found)?;
    Ok(dict)
}

/// `demo_scene_json(name) -> str`: the scene of a built-in demo (`gloop demo NAME`) as JSON
/// text, e.g. to bake a few of its frames through `bake` (the tests do). Raises GloopError
/// listing the known names for an unknown one.
#[pyfunction]
fn demo_scene_json(name: &str) -> PyResult<String> {
    crate::demos::demo_scene(name)
        .map(|s| s.to_json())
        .ok_or_else(|| {
            to_py(crate::GloopError::Other(format!(
                "unknown demo '{name}'; known demos: {}",
                crate::demos::DEMO_NAMES.join(", ")
            )))
        })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The cache layout this build reads and writes (manifest.json's `format_version`), so
    // Open Cache can tell a cache from another Gloop version.
    m.add("CACHE_FORMAT_VERSION", crate::cache::CACHE_FORMAT_VERSION)?;
    // The last frame a scene may name: an emitter's `frame_end` here emits until the bake ends.
    m.add("MAX_FRAME", crate::scene::settings::MAX_FRAME)?;
    // The mesher's defaults, so the add-on's controls start where `gloop mesh` does instead of
    // keeping a second copy of them.
    let defaults = SurfaceSettings::default();
    let dict = PyDict::new(m.py());
    dict.set_item("resolution", defaults.resolution)?;
    dict.set_item("smoothness", defaults.smoothness)?;
    dict.set_item("max_error", defaults.max_error)?;
    m.add("SURFACE_DEFAULTS", dict)?;
    m.add_function(wrap_pyfunction!(mesh, m)?)?;
    m.add_function(wrap_pyfunction!(scene_json, m)?)?;
    m.add_function(wrap_pyfunction!(scene_changes, m)?)?;
    m.add_function(wrap_pyfunction!(demo_scene_json, m)?)
}
