//! Evenly spaced, deterministic samples on a triangle surface (object particles, emitter
//! nozzles). Each sample is stored as a triangle and barycentric coordinates, so it follows
//! the surface when the object moves or deforms.

use glam::{IVec3, Vec3};
use rustc_hash::FxHashMap;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SurfaceSample {
    pub triangle: u32,
    /// Barycentric weights of the triangle's second and third vertex.
    pub u: f32,
    pub v: f32,
}

impl SurfaceSample {
    pub fn position(&self, vertices: &[Vec3], triangles: &[[u32; 3]]) -> Vec3 {
        let [a, b, c] = triangles[self.triangle as usize].map(|i| vertices[i as usize]);
        a + self.u * (b - a) + self.v * (c - a)
    }
}

/// Surfaces whose normals' cosine is at most this (more than 120° apart) face opposite
/// ways: their samples do not crowd each other out. Faces meeting at a right angle (a box's
/// edges) still share their samples as before.
const OPPOSITE_FACES: f32 = -0.5;

/// Samples no closer than `0.85 * spacing` to each other, and no point of the surface much
/// farther than `spacing` from a sample. Dense candidates on each triangle (a barycentric
/// lattice at a quarter spacing) are thinned greedily in a fixed order through a hash grid.
///
/// Only samples of surfaces facing roughly the same way crowd each other out
/// (`OPPOSITE_FACES`): the two faces of a plate thinner than the spacing each keep their
/// own. Thinned together, a 1 mm plate at r = 1 mm kept half its samples, on its top and
/// bottom faces mixed, and liquid resting on it met bottom-face particles through the holes
/// in the top, was taken as having tunnelled in, and was pushed out underneath: a honey block
/// drained through it in a few frames.
pub fn sample_surface(
    vertices: &[Vec3],
    triangles: &[[u32; 3]],
    spacing: f32,
) -> Vec<SurfaceSample> {
    let min_distance = 0.85 * spacing;
    let candidate_step = 0.25 * spacing;
    let cell = min_distance;
    let key = |p: Vec3| (p / cell).floor().as_ivec3();
    // Fx rather than std's SipHash: 27 lookups per candidate made hashing most of the
    // sampling (the map is only looked up, never iterated, so the samples are the same).
    let mut grid: FxHashMap<IVec3, Vec<(Vec3, Vec3)>> = FxHashMap::default();
    // The 27 cells around a candidate's, its own first, then those sharing a face, an edge and
    // a corner with it: most candidates are turned away by a sample in their own cell, and
    // looking there first settles them in one lookup instead of up to 27.
    let mut nearest_first: Vec<IVec3> = (-1..=1)
        .flat_map(|z| (-1..=1).flat_map(move |y| (-1..=1).map(move |x| IVec3::new(x, y, z))))
        .collect();
    nearest_first.sort_by_key(|offset| offset.length_squared());
    let mut samples = Vec::new();
    for (ti, t) in triangles.iter().enumerate() {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        let longest = (b - a).length().max((c - b).length()).max((a - c).length());
        if longest.is_nan() || longest <= 0.0 {
            continue;
        }
        let normal = (b - a).cross(c - a).normalize_or_zero();
        let n = candidate_rows(longest, candidate_step);
        for i in 0..=n {
            for j in 0..=(n - i) {
                let (u, v) = (i as f32 / n as f32, j as f32 / n as f32);
                let p = a + u * (b - a) + v * (c - a);
                let k = key(p);
                let crowded = nearest_first.iter().any(|&offset| {
                    grid.get(&(k + offset)).is_some_and(|cell_points| {
                        cell_points.iter().any(|(q, m)| {
                            q.distance_squared(p) < min_distance * min_distance
                                && m.dot(normal) > OPPOSITE_FACES
                        })
                    })
                });
                if !crowded {
                    grid.entry(k).or_default().push((p, normal));
                    samples.push(SurfaceSample {
                        triangle: ti as u32,
                        u,
                        v,
                    });
                }
            }
        }
    }
    samples
}

/// Rows of the barycentric candidate lattice on a triangle whose longest edge is `longest`.
fn candidate_rows(longest: f32, candidate_step: f32) -> u32 {
    ((longest / candidate_step).ceil() as u32).clamp(1, 4096)
}

/// What `sample_surface` will cost before it runs: the candidates it tests (its time; each
/// is a few hash lookups) and an upper bound on the samples it keeps (its memory).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SamplingCost {
    pub candidates: u64,
    pub max_samples: u64,
}

/// The cost of `sample_surface(vertices, triangles, spacing)`, in one pass over the triangles.
///
/// The samples one triangle keeps are at least `0.85 · spacing` apart (they share its normal,
/// so they crowd each other out), and by Oler's inequality at most
/// `(2/√3)·A/d² + P/(2d) + 1` points at least `d` apart fit in a convex region of area `A` and
/// perimeter `P`. Each triangle keeps no more than that nor than its candidates, and the sum
/// over triangles bounds the whole surface's samples.
pub fn sampling_cost(vertices: &[Vec3], triangles: &[[u32; 3]], spacing: f32) -> SamplingCost {
    let candidate_step = 0.25 * spacing;
    // A hair under the sampler's distance, for the rounding of the samples' positions.
    let d = 0.85 * spacing as f64 * (1.0 - 1e-4);
    let mut cost = SamplingCost::default();
    for t in triangles {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        let longest = (b - a).length().max((c - b).length()).max((a - c).length());
        if longest.is_nan() || longest <= 0.0 {
            continue;
        }
        let n = candidate_rows(longest, candidate_step) as u64;
        let candidates = (n + 1) * (n + 2) / 2;
        let (a, b, c) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
        let area = 0.5 * (b - a).cross(c - a).length();
        let perimeter = (b - a).length() + (c - b).length() + (a - c).length();
        let packed = 2.0 / 3f64.sqrt() * area / (d * d) + perimeter / (2.0 * d) + 1.0;
        let kept = if packed.is_finite() {
            (packed.floor() as u64).min(candidates)
        } else {
            candidates
        };
        cost.candidates = cost.candidates.saturating_add(candidates);
        cost.max_samples = cost.max_samples.saturating_add(kept);
    }
    cost
}
