//! The `gloop_core` Python module (feature `python`) for the Blender add-on.
//!
//! Everything heavy runs with the GIL released (`py.detach`), so Blender's UI and other Python
//! threads (the playback prefetcher) keep going. Arrays cross into Python as flat
//! little-endian `bytes` that `numpy.frombuffer` views without copying and `foreach_set`
//! consumes. Every `GloopError` becomes a `gloop_core.GloopError` exception with the same
//! message (which names the object, field or file).

mod edges;
mod ply_read;

use std::path::{Path, PathBuf};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::error::GloopError;
use crate::scene::Scene;
use ply_read::{read_ply, ElementData};

create_exception!(
    gloop_core,
    GloopCoreError,
    PyException,
    "A Gloop error: bad scene, unreadable cache file, failed bake."
);

pub(crate) fn to_py(e: GloopError) -> PyErr {
    GloopCoreError::new_err(e.to_string())
}

/// `f32`s as little-endian bytes (what `numpy.frombuffer(..., dtype='<f4')` expects).
fn f32_bytes<'py>(py: Python<'py>, values: &[f32]) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, values.len() * 4, |buf| {
        for (out, v) in buf.chunks_exact_mut(4).zip(values) {
            out.copy_from_slice(&v.to_le_bytes());
        }
        Ok(())
    })
}

/// `i32`s as little-endian bytes: Blender's index attributes are int32.
fn i32_bytes<'py>(
    py: Python<'py>,
    len: usize,
    values: impl Iterator<Item = i32>,
) -> PyResult<Bound<'py, PyBytes>> {
    PyBytes::new_with(py, len * 4, |buf| {
        for (out, v) in buf.chunks_exact_mut(4).zip(values) {
            out.copy_from_slice(&v.to_le_bytes());
        }
        Ok(())
    })
}

fn vertex_element<'a>(
    data: &'a ply_read::PlyData,
    path: &Path,
) -> Result<&'a ElementData, GloopError> {
    let vertex = data
        .element("vertex")
        .ok_or_else(|| GloopError::file(path, "has no 'vertex' element"))?;
    if !["x", "y", "z"].iter().all(|n| data.has(vertex, n)) {
        return Err(GloopError::file(path, "vertices lack x, y or z"));
    }
    Ok(vertex)
}

/// The frame number from the `gloop frame N` comment, if present.
fn frame_comment(data: &ply_read::PlyData) -> Option<i64> {
    data.comments
        .iter()
        .find_map(|c| c.trim().strip_prefix("gloop frame ")?.trim().parse().ok())
}

/// Reads the named triple properties into the dict as bytes (or None when absent).
fn put_triples(
    py: Python<'_>,
    dict: &Bound<'_, PyDict>,
    data: &ply_read::PlyData,
    vertex: &ElementData,
    fields: &[(&str, [&str; 3])],
) -> PyResult<()> {
    for (key, names) in fields {
        match data.triples(vertex, *names) {
            Some(v) => dict.set_item(*key, f32_bytes(py, &v)?)?,
            None => dict.set_item(*key, py.None())?,
        }
    }
    Ok(())
}

/// `read_particles(path) -> dict`: `count`, `frame` (from the file's comment, or None), and
/// flat little-endian arrays `position`, `velocity`, `colour` (float32 × 3 per particle, or
/// None if the file lacks them) and `material` (float32 per particle, or None).
#[pyfunction]
fn read_particles<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let data = py.detach(|| read_ply(&path)).map_err(to_py)?;
    let vertex = vertex_element(&data, &path).map_err(to_py)?;
    let dict = PyDict::new(py);
    dict.set_item("count", vertex.count)?;
    dict.set_item("frame", frame_comment(&data))?;
    put_triples(
        py,
        &dict,
        &data,
        vertex,
        &[
            ("position", ["x", "y", "z"]),
            ("velocity", ["vx", "vy", "vz"]),
            ("colour", ["red", "green", "blue"]),
        ],
    )?;
    match data.column(vertex, "material") {
        Some(m) => dict.set_item("material", f32_bytes(py, &m)?)?,
        None => dict.set_item("material", py.None())?,
    }
    Ok(dict)
}

/// Reads a surface file and derives its edges (all off the GIL).
fn read_surface_and_edges(path: &Path) -> Result<(ply_read::PlyData, edges::Edges), GloopError> {
    let data = read_ply(path)?;
    let vertex = vertex_element(&data, path)?;
    let n = vertex.count;
    if n > i32::MAX as usize {
        return Err(GloopError::file(
            path,
            "has more vertices than Blender can index",
        ));
    }
    let no_faces = Vec::new();
    let triangles = data.element("face").map_or(&no_faces, |f| &f.triangles);
    if let Some(t) = triangles
        .iter()
        .find(|t| t.iter().any(|&i| i as usize >= n))
    {
        return Err(GloopError::file(
            path,
            format!("face {t:?} refers to a vertex beyond the {n} vertices"),
        ));
    }
    let edges = edges::triangle_edges(triangles, n);
    Ok((data, edges))
}

/// `read_surface(path) -> dict`: `vertex_count`, `triangle_count`, flat arrays `position`,
/// `normal`, `colour`, `velocity` (float32 × 3 per vertex, or None), `triangles` (int32 × 3 per
/// triangle, every index checked against the vertex count, so Blender never sees a bad one),
/// and the mesh edges Blender would otherwise derive on the main thread: `edges` (int32 × 2)
/// and `corner_edges` (int32 per triangle corner).
#[pyfunction]
fn read_surface<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let (data, edges) = py.detach(|| read_surface_and_edges(&path)).map_err(to_py)?;
    let vertex = vertex_element(&data, &path).map_err(to_py)?;
    let empty = ElementData::default();
    let faces = data.element("face").unwrap_or(&empty);
    let dict = PyDict::new(py);
    dict.set_item("vertex_count", vertex.count)?;
    dict.set_item("triangle_count", faces.triangles.len())?;
    put_triples(
        py,
        &dict,
        &data,
        vertex,
        &[
            ("position", ["x", "y", "z"]),
            ("normal", ["nx", "ny", "nz"]),
            ("colour", ["red", "green", "blue"]),
            ("velocity", ["vx", "vy", "vz"]),
        ],
    )?;
    let corners = faces.triangles.iter().flatten().map(|&i| i as i32);
    dict.set_item(
        "triangles",
        i32_bytes(py, faces.triangles.len() * 3, corners)?,
    )?;
    dict.set_item("edge_count", edges.edges.len())?;
    let edge_verts = edges.edges.iter().flatten().copied();
    dict.set_item("edges", i32_bytes(py, edges.edges.len() * 2, edge_verts)?)?;
    let corner_edges = edges.corner_edges.iter().copied();
    let n_corners = edges.corner_edges.len();
    dict.set_item("corner_edges", i32_bytes(py, n_corners, corner_edges)?)?;
    Ok(dict)
}

/// `validate_scene(path) -> dict`: loads and validates a scene file (JSON or binary), raising
/// GloopError with the offending object or field named. Returns a summary: `objects` (a list
/// of dicts with `name`, `role`, `material`, `triangles`, and world-space `bounds_min` /
/// `bounds_max` at the first frame) and the frame range.
#[pyfunction]
fn validate_scene<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let scene = py.detach(|| Scene::load(&path)).map_err(to_py)?;
    let dict = PyDict::new(py);
    dict.set_item("frame_start", scene.settings.frame_start)?;
    dict.set_item("frame_end", scene.settings.frame_end)?;
    dict.set_item("particle_radius", scene.settings.particle_radius)?;
    let objects = pyo3::types::PyList::empty(py);
    for object in &scene.objects {
        let o = PyDict::new(py);
        let role = match object.role {
            crate::scene::Role::Liquid { .. } => "liquid",
            crate::scene::Role::Emitter { .. } => "emitter",
            crate::scene::Role::Obstacle { .. } => "obstacle",
        };
        let motion = match object.motion {
            crate::scene::Motion::Static { .. } => "static",
            crate::scene::Motion::Rigid { .. } => "rigid",
            crate::scene::Motion::Deforming { .. } => "deforming",
        };
        let first = scene.settings.frame_start as f32;
        let world = crate::geometry::world_vertices(&object.mesh, &object.motion, first);
        let (lo, hi) = crate::geometry::bounds(&world);
        o.set_item("name", &object.name)?;
        o.set_item("role", role)?;
        o.set_item("motion", motion)?;
        o.set_item("material", object.role.material())?;
        o.set_item("triangles", object.mesh.triangles.len())?;
        o.set_item("bounds_min", lo.to_array())?;
        o.set_item("bounds_max", hi.to_array())?;
        objects.append(o)?;
    }
    dict.set_item("objects", objects)?;
    Ok(dict)
}

/// `version() -> str`: the gloop crate version this module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn gloop_core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("GloopError", m.py().get_type::<GloopCoreError>())?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(read_particles, m)?)?;
    m.add_function(wrap_pyfunction!(read_surface, m)?)?;
    m.add_function(wrap_pyfunction!(validate_scene, m)?)?;

    Ok(())
}
