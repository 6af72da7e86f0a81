//! Per-vertex colour and velocity: kernel-weighted averages of the particles of the vertex's own
//! region near it. Weights vary smoothly with distance, so colours blend where paints meet and
//! nothing jumps between frames.

use glam::Vec3;
use rayon::prelude::*;

use super::neighbours::ParticleGrid;

pub struct Attributes {
    pub colours: Vec<[f32; 3]>,
    pub velocities: Vec<Vec3>,
}

/// `support`: averaging radius (the field's kernel support); `grid`: the particles with their
/// regions, cells of at least half of `support`.
pub fn vertex_attributes(
    vertices: &[Vec3],
    vertex_region: &[u32],
    velocities: &[Vec3],
    colours: &[[f32; 3]],
    grid: &ParticleGrid,
    support: f32,
) -> Attributes {
    let h2 = support * support;
    let per_vertex: Vec<([f32; 3], Vec3)> = vertices
        .par_iter()
        .zip(vertex_region.par_iter())
        .map(|(x, &r)| {
            let mut w_sum = 0.0f32;
            let mut colour = Vec3::ZERO;
            let mut velocity = Vec3::ZERO;
            // Branch-free (a particle beyond the support or of another region adds 0; the caller
            // passes finite colours and velocities, so 0 times them is 0).
            grid.for_each_within_cells(*x, 2, |i, q, g| {
                let v = (1.0 - q.distance_squared(*x) / h2).max(0.0);
                let w = if g == r { v * v * v } else { 0.0 };
                w_sum += w;
                colour += w * Vec3::from(colours[i]);
                velocity += w * velocities[i];
            });
            if w_sum > 0.0 {
                return ((colour / w_sum).to_array(), velocity / w_sum);
            }
            // No particle inside the support (rare): the nearest one of the region around.
            let mut nearest = (f32::INFINITY, usize::MAX);
            grid.for_each_within_cells(*x, 2, |i, q, g| {
                let d2 = q.distance_squared(*x);
                if g == r && d2 < nearest.0 {
                    nearest = (d2, i);
                }
            });
            if nearest.1 != usize::MAX {
                (colours[nearest.1], velocities[nearest.1])
            } else {
                ([0.8; 3], Vec3::ZERO)
            }
        })
        .collect();
    let (colours, velocities) = per_vertex.into_iter().unzip();
    Attributes {
        colours,
        velocities,
    }
}

/// How much bulk liquid lies around each vertex: the kernel sum over the particles of its region
/// within `support`, divided by the sum inside a resting lattice (values for probes one particle
/// diameter under the surface are listed at `smooth::smoothing_weight`).
/// Varies continuously with particle positions. `grid`: the particles with their regions,
/// cells of at least half of `support`.
pub fn vertex_bulk(
    vertices: &[Vec3],
    vertex_region: &[u32],
    grid: &ParticleGrid,
    support: f32,
    rest_sum: f32,
) -> Vec<f32> {
    let h2 = support * support;
    vertices
        .par_iter()
        .zip(vertex_region.par_iter())
        .map(|(x, &r)| {
            let mut sum = 0.0f32;
            grid.for_each_within_cells(*x, 2, |_, q, g| {
                let v = (1.0 - q.distance_squared(*x) / h2).max(0.0);
                sum += if g == r { v * v * v } else { 0.0 };
            });
            sum / rest_sum
        })
        .collect()
}
