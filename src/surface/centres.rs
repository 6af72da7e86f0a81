//! Smoothed particle centres (Yu & Turk 2013's "kernel centre smoothing"): each particle moves
//! towards the kernel-weighted mean of its neighbours before the field is built.
//!
//! Why: inside the liquid the mean is the particle itself, so nothing moves; on the surface the
//! lattice staircase (terraces one particle spacing high, which a moderate kernel reproduces as
//! flat facets) is pulled into the rounded shape the liquid's surface tension would give it.
//! Lone particles and straight strands stay put. The volume lost on convex parts is given back
//! by the volume restoration after meshing.

use glam::Vec3;
use rayon::prelude::*;

use super::neighbours::ParticleGrid;

/// `passes` Jacobi passes of `x_i += lambda w_i (mean_i - x_i)` over particles of the same region
/// within `support`. `w_i` = `mobility` of the particle's kernel sum relative to a resting
/// lattice's (`rest_sum`): a particle lying on a surface moves, the end of a one-particle strand
/// (fewer neighbours) stays, so strands do not retract.
pub fn smooth_centres(
    positions: &[Vec3],
    region: &[u32],
    support: f32,
    rest_sum: f32,
    lambda: f32,
    passes: usize,
) -> Vec<Vec3> {
    let mut current = positions.to_vec();
    let h2 = support * support;
    for _ in 0..passes {
        let grid = ParticleGrid::with_regions(&current, region, support / 2.0);
        current = (0..current.len())
            .into_par_iter()
            .map(|i| {
                let p = current[i];
                let mut w_sum = 0.0f32;
                let mut mean = Vec3::ZERO;
                let own = region[i];
                // Branch-free: a particle beyond the support or of another region adds 0.
                grid.for_each_within_cells(p, 2, |_, q, g| {
                    let v = (1.0 - q.distance_squared(p) / h2).max(0.0);
                    let w = if g == own { v * v * v } else { 0.0 };
                    w_sum += w;
                    mean += w * (q - p);
                });
                p + lambda * mobility(w_sum / rest_sum) * mean / w_sum
            })
            .collect();
    }
    current
}

/// Kernel sum / resting sum: flat surface 0.81, a particle on it 0.38, a strand's end 0.28.
fn mobility(fraction: f32) -> f32 {
    let t = ((fraction - 0.26) / (0.38 - 0.26)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}
