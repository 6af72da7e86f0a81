//! `gloop_core.surface_sample_count(...)`: how many object particles the bake will put on an
//! obstacle, for the Bake panel's estimate.
//!
//! The sampler's density is not a constant of the area: greedy thinning packs a large flat
//! triangle more tightly (about 1.3 samples per spacing²) than a finely tessellated ball
//! (0.9–1.2), so an area rule was up to 25% off. Running the bake's own sampler is exact; the
//! add-on calls this on a worker thread (it takes seconds for a metre-wide plane at
//! millimetre spacing), with the GIL released.

use pyo3::prelude::*;

use super::to_py;
use crate::error::GloopError;
use crate::geometry;

/// Little-endian f32 or u32 triples from a `bytes` buffer, or an error naming `what`.
fn triples<T>(bytes: &[u8], what: &str, read: fn([u8; 4]) -> T) -> Result<Vec<[T; 3]>, GloopError> {
    if !bytes.len().is_multiple_of(12) {
        return Err(GloopError::scene(format!(
            "surface_sample_count: {what} holds {} bytes, not a whole number of 3 × 4-byte triples",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(12)
        .map(|c| {
            let word = |i: usize| read([c[i], c[i + 1], c[i + 2], c[i + 3]]);
            [word(0), word(4), word(8)]
        })
        .collect())
}

/// `surface_sample_count(vertices, triangles, spacing) -> int`: the number of samples the
/// bake's obstacle sampler (`geometry::sample_surface`) puts on the mesh. `vertices`: world
/// positions as little-endian float32 xyz bytes; `triangles`: uint32 index triples; `spacing`:
/// the object-particle spacing (2 × particle radius). Raises GloopError on a malformed buffer,
/// an index out of range, or a spacing that is not a positive finite number.
#[pyfunction]
fn surface_sample_count(
    py: Python<'_>,
    vertices: &[u8],
    triangles: &[u8],
    spacing: f32,
) -> PyResult<usize> {
    let count = py.detach(|| {
        if !(spacing.is_finite() && spacing > 0.0) {
            return Err(GloopError::scene(format!(
                "surface_sample_count: spacing must be a positive number, not {spacing}"
            )));
        }
        let vertices: Vec<glam::Vec3> = triples(vertices, "vertices", f32::from_le_bytes)?
            .into_iter()
            .map(glam::Vec3::from)
            .collect();
        let triangles = triples(triangles, "triangles", u32::from_le_bytes)?;
        if let Some(t) = triangles
            .iter()
            .find(|t| t.iter().any(|&i| i as usize >= vertices.len()))
        {
            return Err(GloopError::scene(format!(
                "surface_sample_count: triangle {t:?} indexes past the {} vertices",
                vertices.len()
            )));
        }
        if vertices.iter().any(|v| !v.is_finite()) {
            return Err(GloopError::scene(
                "surface_sample_count: a vertex is not a finite number".to_string(),
            ));
        }
        Ok(geometry::sample_surface(&vertices, &triangles, spacing).len())
    });
    count.map_err(to_py)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(surface_sample_count, m)?)
}
