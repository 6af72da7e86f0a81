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

/// Mesh connectivity, built once: each vertex's triangles and its one-ring of neighbours, both
/// in compressed-row form and in a fixed order (so sums over them are deterministic).
pub struct Adjacency {
    face_offsets: Vec<u32>,
    faces: Vec<u32>,
    offsets: Vec<u32>,
    neighbours: Vec<u32>,
}

impl Adjacency {
    pub fn new(vertex_count: usize, triangles: &[[u32; 3]]) -> Self {
        let mut face_offsets = vec![0u32; vertex_count + 1];
        for t in triangles {
            for &v in t {
                face_offsets[v as usize + 1] += 1;
            }
        }
        for v in 0..vertex_count {
            face_offsets[v + 1] += face_offsets[v];
        }
        let mut fill = face_offsets.clone();
        let mut faces = vec![0u32; triangles.len() * 3];
        for (f, t) in triangles.iter().enumerate() {
            for &v in t {
                faces[fill[v as usize] as usize] = f as u32;
                fill[v as usize] += 1;
            }
        }
        // One-rings in chunks of vertices, each into one buffer: a Vec per vertex made the
        // allocator the bottleneck.
        const CHUNK: usize = 4096;
        let pieces: Vec<(Vec<u32>, Vec<u32>)> = (0..vertex_count.div_ceil(CHUNK))
            .into_par_iter()
            .map(|c| {
                let vertices = c * CHUNK..((c + 1) * CHUNK).min(vertex_count);
                let mut sizes = Vec::with_capacity(vertices.len());
                let mut rings = Vec::with_capacity(vertices.len() * 7);
                let mut ring = Vec::with_capacity(32);
                for v in vertices {
                    ring.clear();
                    for &f in &faces[face_offsets[v] as usize..face_offsets[v + 1] as usize] {
                        ring.extend(triangles[f as usize].iter().filter(|&&n| n as usize != v));
                    }
                    ring.sort_unstable();
                    ring.dedup();
                    sizes.push(ring.len() as u32);
                    rings.extend_from_slice(&ring);
                }
                (sizes, rings)
            })
            .collect();
        let mut offsets = Vec::with_capacity(vertex_count + 1);
        offsets.push(0u32);
        for size in pieces.iter().flat_map(|(sizes, _)| sizes) {
            offsets.push(offsets.last().unwrap() + size);
        }
        let neighbours = pieces.into_iter().flat_map(|(_, rings)| rings).collect();
        Adjacency {
            face_offsets,
            faces,
            offsets,
            neighbours,
        }
    }

    pub fn of(&self, v: usize) -> &[u32] {
        &self.neighbours[self.offsets[v] as usize..self.offsets[v + 1] as usize]
    }

    fn faces_of(&self, v: usize) -> &[u32] {
        &self.faces[self.face_offsets[v] as usize..self.face_offsets[v + 1] as usize]
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
    // Two buffers, swapped: a fresh 5 MB vector per step was freshly mapped memory each time.
    let mut next = positions.clone();
    // Per vertex, worked out once: the step (0 = keep) and 1 / ring size (a division per vertex
    // and step was a good part of the smoothing's time).
    let step: Vec<(f32, f32)> = (0..positions.len())
        .map(|v| match adjacency.of(v).len() {
            0 => (0.0, 0.0),
            n => (LAMBDA * weight[v], 1.0 / n as f32),
        })
        .collect();
    for _ in 0..iterations {
        next.par_iter_mut()
            .with_min_len(1024)
            .enumerate()
            .for_each(|(v, out)| {
                let p = positions[v];
                let (lambda, inv_n) = step[v];
                *out = if lambda == 0.0 {
                    p
                } else {
                    let sum = adjacency
                        .of(v)
                        .iter()
                        .map(|&n| positions[n as usize])
                        .sum::<Vec3>();
                    p + lambda * (sum * inv_n - p)
                };
            });
        std::mem::swap(positions, &mut next);
    }
}

/// Area-weighted vertex normals (the normalised sum of the adjacent triangles' cross products,
/// summed in a fixed order).
pub fn vertex_normals(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    adjacency: &Adjacency,
) -> Vec<Vec3> {
    let face: Vec<Vec3> = triangles
        .par_iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| positions[i as usize]);
            (b - a).cross(c - a)
        })
        .collect();
    (0..positions.len())
        .into_par_iter()
        .map(|v| {
            adjacency
                .faces_of(v)
                .iter()
                .map(|&f| face[f as usize])
                .sum::<Vec3>()
                .normalize_or_zero()
        })
        .collect()
}

/// Signed volume and area of each region's part of the mesh (f64 sums in triangle order), each
/// triangle's area counted at its `area_share`.
fn region_volume_area(
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    region: &[u32],
    regions: usize,
    area_share: &[f64],
) -> Vec<(f64, f64)> {
    let mut sums = vec![(0.0f64, 0.0f64); regions];
    for (t, share) in triangles.iter().zip(area_share) {
        let [a, b, c] = t.map(|i| positions[i as usize].as_dvec3());
        let s = &mut sums[region[t[0] as usize] as usize];
        s.0 += a.dot(b.cross(c)) / 6.0;
        s.1 += share * 0.5 * (b - a).cross(c - a).length();
    }
    sums
}

/// Moves each region's free vertices along their normals so its enclosed volume becomes
/// `target[region]`; vertices with `fixed[v]` (where the liquid touches an obstacle) stay. The
/// offset is capped at `max_offset` so a tiny or odd region cannot blow up. With `along`, the
/// vertices move along those unit vectors instead of the mesh's own normals.
#[allow(clippy::too_many_arguments)]
pub fn restore_volume(
    positions: &mut [Vec3],
    triangles: &[[u32; 3]],
    adjacency: &Adjacency,
    region: &[u32],
    fixed: &[bool],
    target: &[f64],
    max_offset: f32,
    along: Option<&[Vec3]>,
) {
    // The area that moves: each triangle's share of free corners.
    let free_share: Vec<f64> = triangles
        .iter()
        .map(|t| t.iter().filter(|&&v| !fixed[v as usize]).count() as f64 / 3.0)
        .collect();
    for _ in 0..2 {
        let sums = region_volume_area(positions, triangles, region, target.len(), &free_share);
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
        let normals = match along {
            Some(along) => along.to_vec(),
            None => vertex_normals(positions, triangles, adjacency),
        };
        let before = positions.to_vec();
        positions
            .par_iter_mut()
            .zip(normals.par_iter())
            .zip(region.par_iter())
            .zip(fixed.par_iter())
            .for_each(|(((p, n), r), &fixed)| {
                if !fixed {
                    *p += *n * offset[*r as usize];
                }
            });
        keep_every_triangle_facing_its_way(positions, &before, triangles);
    }
}

/// Puts back where they were (`before`) the corners of any triangle the move turned over. A
/// triangle smaller than the move, whose corners' normals differ, turns over when they all
/// move by the same offset (a 0.008 r one on the honey-drop film, after decimation); its
/// corners staying costs the volume a few of the move's tiny triangles. Repeated, since a
/// corner put back may turn a neighbour that moved; a few rounds at most.
fn keep_every_triangle_facing_its_way(
    positions: &mut [Vec3],
    before: &[Vec3],
    triangles: &[[u32; 3]],
) {
    let facing = |p: &[Vec3], t: &[u32; 3]| {
        let [a, b, c] = t.map(|v| p[v as usize]);
        (b - a).cross(c - a)
    };
    for _ in 0..8 {
        let turned: Vec<&[u32; 3]> = triangles
            .par_iter()
            .filter(|t| facing(positions, t).dot(facing(before, t)) < 0.0)
            .collect();
        if turned.is_empty() {
            return;
        }
        for t in turned {
            for &v in t {
                positions[v as usize] = before[v as usize];
            }
        }
    }
}
