//! The `gloop_core` Python module (feature `python`) for the Blender add-on.
//!
//! Everything heavy runs with the GIL released (`py.detach`), so Blender's UI and other Python
//! threads (the playback prefetcher) keep going. Arrays cross into Python as flat
//! little-endian buffers (`array::Array`) that `numpy.frombuffer` views without copying and
//! `foreach_set` consumes. Every `GloopError` becomes a `gloop_core.GloopError` exception with the same
//! message (which names the object, field or file).

mod array;
mod bake_binding;
mod edges;
mod mesh_binding;
mod ply_read;
mod sampling_binding;

use std::path::{Path, PathBuf};

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::cache::MaterialColours;
use crate::error::GloopError;
use crate::scene::Scene;
use array::{Array, Data};
use ply_read::{read_ply, ElementData};
use ply_rs_bw::ply::ScalarType;

create_exception!(
    gloop_core,
    GloopCoreError,
    PyException,
    "A Gloop error: bad scene, unreadable cache file, failed bake."
);

pub(crate) fn to_py(e: GloopError) -> PyErr {
    GloopCoreError::new_err(e.to_string())
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

/// Named arrays decoded off the GIL, then handed to Python without copying.
type Arrays = Vec<(&'static str, Option<Data>)>;

fn triples(
    data: &ply_read::PlyData,
    vertex: &ElementData,
    fields: &[(&'static str, [&str; 3])],
) -> Arrays {
    fields
        .iter()
        .map(|(key, names)| (*key, data.triples(vertex, *names).map(Data::F32)))
        .collect()
}

fn put_arrays(py: Python<'_>, dict: &Bound<'_, PyDict>, arrays: Arrays) -> PyResult<()> {
    for (key, data) in arrays {
        match data {
            Some(d) => dict.set_item(key, Bound::new(py, Array::new(d))?)?,
            None => dict.set_item(key, py.None())?,
        }
    }
    Ok(())
}

/// `read_particles(path) -> dict`: `count`, `frame` (from the file's comment, or None), and
/// flat little-endian arrays `position`, `velocity`, `colour` (float32 × 3 per particle: from
/// the file's per-material colours if it stores none per particle; None if it has neither)
/// and `material` (float32 per particle, or None).
#[pyfunction]
fn read_particles<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let (count, frame, arrays) = py
        .detach(|| -> Result<_, GloopError> {
            let data = read_ply(&path)?;
            let vertex = vertex_element(&data, &path)?;
            let mut arrays = triples(
                &data,
                vertex,
                &[
                    ("position", ["x", "y", "z"]),
                    ("velocity", ["vx", "vy", "vz"]),
                    ("colour", ["red", "green", "blue"]),
                ],
            );
            let material = data.column(vertex, "material");
            if arrays
                .iter()
                .any(|(key, a)| *key == "colour" && a.is_none())
            {
                let colour = colours_by_material(&data, material.as_deref(), &path)?;
                arrays.retain(|(key, _)| *key != "colour");
                arrays.push(("colour", colour));
            }
            arrays.push(("material", material.map(Data::F32)));
            Ok((vertex.count, frame_comment(&data), arrays))
        })
        .map_err(to_py)?;
    let dict = PyDict::new(py);
    dict.set_item("count", count)?;
    dict.set_item("frame", frame)?;
    put_arrays(py, &dict, arrays)?;
    Ok(dict)
}

/// The particles' colours from their materials' `gloop material_colour` comments, for files
/// that store colours per material (`cache::MaterialColours`); `None` for a file with neither
/// (another tool's), as before.
fn colours_by_material(
    data: &ply_read::PlyData,
    material: Option<&[f32]>,
    path: &Path,
) -> Result<Option<Data>, GloopError> {
    let colours =
        MaterialColours::from_comments(&data.comments).map_err(|e| GloopError::file(path, e))?;
    let Some(material) = material else {
        return Ok(None);
    };
    if colours == MaterialColours::default() && !material.is_empty() {
        return Ok(None);
    }
    // Material ids are ushort, exact in f32.
    let flat = colours
        .flat_colours_of(material.iter().map(|&m| m as u16))
        .map_err(|m| GloopError::file(path, format!("gives no colour for material {m}")))?;
    Ok(Some(Data::F32(flat)))
}

/// Reads a surface file and derives its edges (all off the GIL): (vertex count, triangle
/// count, arrays).
fn read_surface_arrays(path: &Path) -> Result<(usize, usize, Arrays), GloopError> {
    let mut data = read_ply(path)?;
    let vertex = vertex_element(&data, path)?;
    let n = vertex.count;
    if n > i32::MAX as usize {
        return Err(GloopError::file(
            path,
            "has more vertices than Blender can index",
        ));
    }
    let mut arrays = triples(
        &data,
        vertex,
        &[
            ("position", ["x", "y", "z"]),
            ("normal", ["nx", "ny", "nz"]),
            ("colour", ["red", "green", "blue"]),
            ("velocity", ["vx", "vy", "vz"]),
        ],
    );
    // Integer colours are 8-bit sRGB (the writer's choice since issue 33, and the PLY
    // convention); older caches hold linear floats, read as they are.
    if data.scalar_type(vertex, "red") == Some(ScalarType::UChar) {
        if let Some((_, Some(Data::F32(colour)))) = arrays.iter_mut().find(|a| a.0 == "colour") {
            for c in colour.iter_mut() {
                *c = crate::surface::srgb::decode(*c as u8);
            }
        }
    }
    let triangles = data
        .elements
        .get_mut("face")
        .map(|f| std::mem::take(&mut f.triangles))
        .unwrap_or_default();
    if let Some(t) = triangles
        .iter()
        .find(|t| t.iter().any(|&i| i as usize >= n))
    {
        return Err(GloopError::file(
            path,
            format!("face {t:?} refers to a vertex beyond the {n} vertices"),
        ));
    }
    let edges = edges::triangle_edges(&triangles, n);
    let triangle_count = triangles.len();
    // Indices are below i32::MAX (checked above), so the u32 bits read as int32 in Python.
    arrays.push(("triangles", Some(Data::U32x3(triangles))));
    arrays.push(("edges", Some(Data::I32x2(edges.edges))));
    arrays.push(("corner_edges", Some(Data::I32(edges.corner_edges))));
    Ok((n, triangle_count, arrays))
}

/// `read_surface(path) -> dict`: `vertex_count`, `triangle_count`, flat arrays `position`,
/// `normal`, `colour` (linear), `velocity` (float32 × 3 per vertex, or None: today's files
/// have no normals, Blender's smooth shading makes the same ones), `triangles` (int32 × 3 per
/// triangle, every index checked against the vertex count, so Blender never sees a bad one),
/// and the mesh edges Blender would otherwise derive on the main thread: `edges` (int32 × 2)
/// and `corner_edges` (int32 per triangle corner). Arrays are `gloop_core.Array` buffers:
/// `numpy.frombuffer(a, "<f4")` / `"<i4"` views them without copying.
#[pyfunction]
fn read_surface<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let (vertex_count, triangle_count, arrays) =
        py.detach(|| read_surface_arrays(&path)).map_err(to_py)?;
    let dict = PyDict::new(py);
    dict.set_item("vertex_count", vertex_count)?;
    dict.set_item("triangle_count", triangle_count)?;
    put_arrays(py, &dict, arrays)?;
    Ok(dict)
}

/// `validate_scene(path) -> dict`: loads and validates a scene file (JSON or binary) as a bake
/// would (it must make some liquid), raising
/// GloopError with the offending object or field named. Returns a summary: `objects` (a list
/// of dicts with `name`, `role`, `material`, `triangles`, and world-space `bounds_min` /
/// `bounds_max` at the first frame; an emitter's `flow` in m³/s, `speed` in m/s and
/// `particles_per_second` as the bake derives them), the frame range, and `warnings`: what
/// the bake will not give as asked (a list of sentences, usually empty).
#[pyfunction]
fn validate_scene<'py>(py: Python<'py>, path: PathBuf) -> PyResult<Bound<'py, PyDict>> {
    let scene = py
        .detach(|| {
            let scene = Scene::load(&path)?;
            scene.validate_makes_liquid().map(|()| scene)
        })
        .map_err(to_py)?;
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
            crate::scene::Role::RigidBody { .. } => "rigid_body",
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
        if let crate::scene::Role::Emitter { emission, .. } = &object.role {
            let area = crate::geometry::nozzle_area(object, scene.settings.frame_start);
            let resolved = emission
                .resolve(area, scene.settings.particle_radius)
                .expect("validated");
            o.set_item("flow", resolved.flow)?;
            o.set_item("speed", resolved.speed)?;
            o.set_item("particles_per_second", resolved.particles_per_second)?;
        }
        objects.append(o)?;
    }
    dict.set_item("objects", objects)?;
    let warnings = crate::sim::scene_warnings(&scene).map_err(to_py)?;
    dict.set_item("warnings", warnings)?;
    Ok(dict)
}

/// `scene_cautions(path) -> list[str]`: what a fresh bake of the scene file asks to confirm
/// (`Scene::cautions`: a liquid object below the resolution, over a million object
/// particles), each sentence naming the object and the fix; raises GloopError if the scene is
/// invalid. May sample the obstacles, so it runs without the GIL and is not called on every
/// bake (the add-on's panel asks from its own figures).
#[pyfunction]
fn scene_cautions(py: Python<'_>, path: PathBuf) -> PyResult<Vec<String>> {
    py.detach(|| Scene::load(&path).map(|scene| scene.cautions()))
        .map_err(to_py)
}

/// `version() -> str`: the gloop crate version this module was built from.
#[pyfunction]
fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

#[pymodule]
fn gloop_core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("GloopError", m.py().get_type::<GloopCoreError>())?;
    m.add_class::<Array>()?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(read_particles, m)?)?;
    m.add_function(wrap_pyfunction!(read_surface, m)?)?;
    m.add_function(wrap_pyfunction!(validate_scene, m)?)?;
    m.add_function(wrap_pyfunction!(scene_cautions, m)?)?;
    bake_binding::register(m)?;
    mesh_binding::register(m)?;
    sampling_binding::register(m)?;

    Ok(())
}
