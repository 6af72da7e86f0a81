//! Feature-aware, volume-preserving smoothing of the marching-cubes surface, and vertex normals.
//!
//! Why: any isotropic particle field shows the particles as bumps ("orange peel") unless its
//! kernel is so wide that it also erases thin strands. We keep the kernel moderate and smooth
//! the mesh instead (after Löschner et al. 2023, splashsurf's weighted Laplacian smoothing):
//! - Laplacian steps remove particle-scale bumps and the lattice's facets;
//! - each vertex moves in proportion to a weight that is ~1 where the surface comes from bulk
//!   liquid and falls to 0 on isolated drops and thin strands, so those keep their shape;
//! - finally every region's enclosed volume is restored to its liquid volume (particle count ×
//!   (2r)^3) by a uniform offset along the normals.
//!
//! All steps are Jacobi iterations (each vertex reads the previous positions), so they are
//! parallel and deterministic.

use glam::Vec3;
use rayon::prelude::*;

/// Vertex neighbours (one-ring) in compressed-row form.
pub struct Adjacency {
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
}

impl Adjacency {
    pub fn new(vertex_count: usize, triangles: &[[u32; 3]]) -> Self {
        let mut edges: Vec<(u32, u32)> = triangles
            .par_iter()
            .flat_map_iter(|t| {
                (0..3).flat_map(move |k| {
                    let (a, b) = (t[k], t[(k + 1) % 3]);
                    [(a, b), (b, a)]
                })
            })
            .collect();
        edges.par_sort_unstable();
        edges.dedup();
        let mut offsets = vec![0u32; vertex_count + 1];
        for &(a, _) in &edges {
            offsets[a as usize + 1] += 1;
        }
        for v in 0..vertex_count {
            offsets[v + 1] += offsets[v];
        }
        Adjacency {
            offsets,
            neighbours: edges.into_iter().map(|(_, b)| b).collect(),
        }
    }

    pub fn of(&self, v: usize) -> &[u32] {
        &self.neighbours[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }
}

/// Smoothing weight from the bulk fraction probed one diameter under a vertex
/// (`attributes::vertex_bulk`, support 4r): flat bulk 0.98, a particle sitting on it 0.60, a
/// one-particle sheet 0.53, a two-particle strand 0.49-0.57 (all smoothed), a one-particle
/// strand 0.31 and a lone drop 0.17 (kept as they are).
pub fn smoothing_weight(bulk: f32) -> f32 {
    let t = ((bulk - 0.33) / (0.5 - 0.33)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// `iterations` weighted Laplacian steps `x += 0.5 w (mean of ring - x)`. Plain Laplacian steps
/// shrink convex parts; `restore_volume` gives the volume back afterwards (Taubin's lambda|mu
/// steps avoid the shrinking but keep the lattice's facets, which are larger than its pass band).
pub fn laplacian(
    positions: &mut Vec<Vec3>,
    adjacency: &Adjacency,
    weight: &[f32],
    iterations: usize,
) {
    const LAMBDA: f32 = 0.5;
    for _ in 0..iterations {
        let next: Vec<Vec3> = (0..positions.len())
            .into_par_iter()
            .map(|v| {
                let ring = adjacency.of(v);
                let p = positions[v];
                if ring.is_empty() || weight[v] == 0.0 {
                    return p;
                }
                let mean =
                    ring.iter().map(|&n| positions[n as usize]).sum::<Vec3>() / ring.len() as f32;
                p + LAMBDA * weight[v] * (mean - p)
            })
            .collect();
        *positions = next;
    }
}

/// Area-weighted vertex normals (the normalised sum of the adjacent triangles' cross products).
/// Gathered per vertex through a vertex→triangle list, so the sum order is fixed.
pub fn vertex_normals(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut corner: Vec<(u32, u32)> = triangles
        .iter()
        .enumerate()
        .flat_map(|(t, tri)| tri.iter().map(move |&v| (v, t as u32)))
        .collect();
    corner.par_sort_unstable();
    let face: Vec<Vec3> = triangles
        .par_iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| positions[i as usize]);
            (b - a).cross(c - a)
        })
        .collect();
    let mut offsets = vec![0usize; positions.len() + 1];
    for &(v, _) in &corner {
        offsets[v as usize + 1] += 1;
    }
    for v in 0..positions.len() {
        offsets[v + 1] += offsets[v];
    }
    (0..positions.len())
        .into_par_iter()
        .map(|v| {
            corner[offsets[v]..offsets[v + 1]]
                .iter()
                .map(|&(_, t)| face[t as usize])
                .sum::<Vec3>()
                .normalize_or_zero()
        })
        .collect()
}

/// Signed volume and area of each region's part of the mesh (f64 sums in triangle order).
pub fn region_volume_area(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    region: &[u32],
    regions: usize,
) -> Vec<(f64, f64)> {
    let mut sums = vec![(0.0f64, 0.0f64); regions];
    for t in triangles {
        let [a, b, c] = t.map(|i| positions[i as usize].as_dvec3());
        let s = &mut sums[region[t[0] as usize] as usize];
        s.0 += a.dot(b.cross(c)) / 6.0;
        s.1 += 0.5 * (b - a).cross(c - a).length();
    }
    sums
}

/// Moves each region's vertices along their normals so its enclosed volume becomes
/// `target[region]`. The offset is capped at `max_offset` so a tiny or odd region cannot blow up.
pub fn restore_volume(
    positions: &mut [Vec3],
    triangles: &[[u32; 3]],
    region: &[u32],
    target: &[f64],
    max_offset: f32,
) {
    for _ in 0..2 {
        let sums = region_volume_area(positions, triangles, region, target.len());
        let offset: Vec<f32> = sums
            .iter()
            .zip(target)
            .map(|(&(v, a), &t)| {
                if a > 0.0 {
                    (((t - v) / a) as f32).clamp(-max_offset, max_offset)
                } else {
                    0.0
                }
            })
            .collect();
        let normals = vertex_normals(positions, triangles);
        positions
            .par_iter_mut()
            .zip(normals.par_iter())
            .zip(region.par_iter())
            .for_each(|((p, n), r)| {
                *p += *n * offset[*r as usize];
            });
    }
}
