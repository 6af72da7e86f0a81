//! Interior shells: an air pocket the liquid really encloses is kept, every other void is
//! filled.
//!
//! Why: the field dips below the iso value wherever particles stand a little apart inside the
//! liquid (a vacancy, a seam where two streams met), and marching cubes then closes a small
//! shell around the dip, facing inwards. Through a glassy material such a shell renders as a
//! dark speck or a bright shard. Real honey holds bubbles too, though, and those must stay.
//!
//! The rule (issue 41): a shell stays only where **a ball of radius 2 r free of particles fits
//! inside it**: some point inside the shell lies at least 2 r from the shell and at least 3 r
//! from every particle centre (particles are balls of radius r). The second follows from the
//! first wherever the shell holds only air, since the field is inside within r of every
//! particle; it is the cheap test, so it is tried first. The points tried are the
//! marching-cubes grid points (multiples of the cube size), so the rule is exact up to the grid
//! (0.43 r at the default resolution), and it is applied to the raw marching-cubes shell.
//! A lattice vacancy, a seam or a gap of a few particles never holds such a ball; bubbles from
//! which every centre within 3.5 r, 4 r or 5 r was taken do (`tests/surface_air_pockets.rs`).
//!
//! Where: on the raw marching-cubes mesh, before smoothing, volume restoration and decimation.
//! A region's raw surface is closed (its field is zero on its blocks' outer faces), so each
//! connected piece of it is a closed surface, and one enclosing negative volume is a shell
//! around air. Deleting a shell fills its void: it is as if the field were inside there. Done
//! this early, the region's volume restoration sees only the liquid's outer surface (and its
//! real pockets), and decimation never sees the phantom at all. Pieces inside a filled void (a
//! lone particle's drop floating in it) go with it: they would be a surface inside the liquid.
//!
//! Not handled here: a void that opens onto an obstacle's contact face is part of the outer
//! surface (the field is clipped there), not a piece of its own. Small ones do not arise: the
//! blobs that `contact` sweeps down to the obstacle fill them; from about 3 r across, where
//! the rule would keep a shell anyway, such a void stays as a dent in the contact face and is
//! not counted.
//!
//! Everything is serial in a fixed order or parallel over independent shells with results in
//! shell order, so the result is the same bits for any thread count.

use glam::Vec3;
use rayon::prelude::*;

use super::march::RawMesh;
use super::neighbours::ParticleGrid;
use crate::geometry::closest_point_on_triangle;

/// Interior shells of one frame: how many the raw surface had and how many the rule kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pockets {
    /// Inward-facing closed pieces of the raw marching-cubes surface.
    pub found: u32,
    /// Those kept: a ball of radius 2 r free of particles fits inside.
    pub kept: u32,
}

/// The radius of the particle-free ball a kept pocket holds, in particle radii.
pub const POCKET_RADIUS: f32 = 2.0;

/// One connected piece of a triangle mesh.
struct Piece {
    triangles: Vec<u32>,
    /// Enclosed volume (negative for an inward-facing shell).
    volume: f64,
    lo: Vec3,
    hi: Vec3,
}

/// Deletes from `raw` every inward-facing shell inside which no ball of radius 2 r free of
/// `particles` (all of the frame's particle centres, radius `r`) fits, and whatever lies inside
/// those shells. `cell` is the marching-cubes cube size (the points tried lie on its grid).
pub fn fill_phantom_voids(raw: &mut RawMesh, particles: &[Vec3], r: f32, cell: f32) -> Pockets {
    let pieces = pieces(&raw.positions, &raw.triangles);
    let shells: Vec<usize> = (0..pieces.len())
        .filter(|&p| pieces[p].volume < 0.0)
        .collect();
    if shells.is_empty() {
        return Pockets::default();
    }
    let grid = ParticleGrid::new(particles, (POCKET_RADIUS + 1.0) * r);
    let keep: Vec<bool> = shells
        .par_iter()
        .map(|&s| holds_air(&pieces[s], &raw.positions, &raw.triangles, &grid, r, cell))
        .collect();
    let kept = keep.iter().filter(|&&k| k).count() as u32;
    let found = shells.len() as u32;
    let filled: Vec<usize> = shells
        .iter()
        .zip(&keep)
        .filter(|(_, &k)| !k)
        .map(|(&s, _)| s)
        .collect();
    if filled.is_empty() {
        return Pockets { found, kept };
    }
    // Pieces to delete: the filled shells, and any piece lying inside one of them.
    let doomed: Vec<bool> = (0..pieces.len())
        .into_par_iter()
        .map(|p| {
            filled.iter().any(|&s| {
                s == p || {
                    let (inner, outer) = (&pieces[p], &pieces[s]);
                    let first = raw.triangles[inner.triangles[0] as usize][0];
                    inner.lo.cmpge(outer.lo).all()
                        && inner.hi.cmple(outer.hi).all()
                        && winding_number(
                            raw.positions[first as usize],
                            &outer.triangles,
                            &raw.positions,
                            &raw.triangles,
                        ) < -0.5
                }
            })
        })
        .collect();
    let mut gone = vec![false; raw.triangles.len()];
    for (piece, _) in pieces.iter().zip(&doomed).filter(|(_, &d)| d) {
        for &t in &piece.triangles {
            gone[t as usize] = true;
        }
    }
    remove_triangles(raw, &gone);
    Pockets { found, kept }
}

/// Whether a ball of radius [`POCKET_RADIUS`] r free of particles fits inside `shell`: a
/// marching-cubes grid point inside it (winding number -1: the shell faces inwards) at least
/// that far from the shell and one particle radius further from every particle centre.
fn holds_air(
    shell: &Piece,
    positions: &[Vec3],
    triangles: &[[u32; 3]],
    grid: &ParticleGrid,
    r: f32,
    cell: f32,
) -> bool {
    let ball = POCKET_RADIUS * r;
    // A box narrower than the ball's diameter holds none (most phantoms end here).
    if (shell.hi - shell.lo).min_element() < 2.0 * ball {
        return false;
    }
    let clearance2 = (ball + r).powi(2);
    let lo = ((shell.lo + ball) / cell).ceil().as_ivec3();
    let hi = ((shell.hi - ball) / cell).floor().as_ivec3();
    for z in lo.z..=hi.z {
        for y in lo.y..=hi.y {
            for x in lo.x..=hi.x {
                let p = Vec3::new(x as f32, y as f32, z as f32) * cell;
                let mut clear = true;
                grid.for_each_near(p, |_, q, _| clear &= q.distance_squared(p) >= clearance2);
                if clear
                    && winding_number(p, &shell.triangles, positions, triangles) < -0.5
                    && distance_to(p, &shell.triangles, positions, triangles) >= ball
                {
                    return true;
                }
            }
        }
    }
    false
}

/// The distance from `p` to the surface `piece`.
fn distance_to(p: Vec3, piece: &[u32], positions: &[Vec3], triangles: &[[u32; 3]]) -> f32 {
    piece
        .iter()
        .map(|&t| {
            let [a, b, c] = triangles[t as usize].map(|v| positions[v as usize]);
            closest_point_on_triangle(p, a, b, c).distance_squared(p)
        })
        .fold(f32::INFINITY, f32::min)
        .sqrt()
}

/// The generalised winding number of the closed surface `piece` around `p` (Jacobson et al.
/// 2013): +1 inside an outward-facing surface, -1 inside an inward-facing one, 0 outside. Each
/// triangle adds its signed solid angle (Van Oosterom & Strackee 1983), so no ray has to
/// dodge the vertices that marching cubes puts on grid lines.
fn winding_number(p: Vec3, piece: &[u32], positions: &[Vec3], triangles: &[[u32; 3]]) -> f64 {
    let mut sum = 0.0f64;
    for &t in piece {
        let [a, b, c] = triangles[t as usize].map(|v| (positions[v as usize] - p).as_dvec3());
        let (la, lb, lc) = (a.length(), b.length(), c.length());
        let det = a.dot(b.cross(c));
        let div = la * lb * lc + a.dot(b) * lc + a.dot(c) * lb + b.dot(c) * la;
        sum += 2.0 * det.atan2(div);
    }
    sum / (4.0 * std::f64::consts::PI)
}

/// The connected pieces of a mesh (triangles sharing a vertex), in order of their first
/// triangle, each with its enclosed volume and bounding box.
fn pieces(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Piece> {
    let label = super::quality::component_labels(positions.len(), triangles);
    let mut piece_of_root = vec![u32::MAX; positions.len()];
    let mut out: Vec<Piece> = Vec::new();
    for (t, tri) in triangles.iter().enumerate() {
        let g = label[tri[0] as usize];
        if piece_of_root[g] == u32::MAX {
            piece_of_root[g] = out.len() as u32;
            out.push(Piece {
                triangles: Vec::new(),
                volume: 0.0,
                lo: Vec3::splat(f32::INFINITY),
                hi: Vec3::splat(f32::NEG_INFINITY),
            });
        }
        out[piece_of_root[g] as usize].triangles.push(t as u32);
    }
    out.par_iter_mut().for_each(|piece| {
        // Volumes relative to a vertex of the piece: far from the origin, the plain sum of
        // tetrahedra cancels most of its digits.
        let origin = positions[triangles[piece.triangles[0] as usize][0] as usize].as_dvec3();
        let mut volume = 0.0f64;
        for &t in &piece.triangles {
            let [a, b, c] = triangles[t as usize].map(|v| positions[v as usize]);
            for q in [a, b, c] {
                piece.lo = piece.lo.min(q);
                piece.hi = piece.hi.max(q);
            }
            let [a, b, c] = [a, b, c].map(|q| q.as_dvec3() - origin);
            volume += a.dot(b.cross(c)) / 6.0;
        }
        piece.volume = volume;
    });
    out
}

/// Deletes the triangles marked `gone` and the vertices only they used, keeping the order of
/// the rest.
fn remove_triangles(raw: &mut RawMesh, gone: &[bool]) {
    let mut used = vec![false; raw.positions.len()];
    let kept: Vec<[u32; 3]> = raw
        .triangles
        .iter()
        .zip(gone)
        .filter(|(_, &g)| !g)
        .map(|(t, _)| *t)
        .collect();
    for t in &kept {
        for &v in t {
            used[v as usize] = true;
        }
    }
    let mut new_index = vec![u32::MAX; raw.positions.len()];
    let mut next = 0u32;
    for (v, &u) in used.iter().enumerate() {
        if u {
            new_index[v] = next;
            next += 1;
        }
    }
    raw.positions = (0..raw.positions.len())
        .filter(|&v| used[v])
        .map(|v| raw.positions[v])
        .collect();
    raw.region = (0..raw.region.len())
        .filter(|&v| used[v])
        .map(|v| raw.region[v])
        .collect();
    raw.triangles = kept
        .into_iter()
        .map(|t| t.map(|v| new_index[v as usize]))
        .collect();
}

/// Inward-facing closed pieces of a finished mesh (what a renderer would show as a bubble).
pub fn inward_shells(positions: &[Vec3], triangles: &[[u32; 3]]) -> usize {
    inward_shell_volumes(positions, triangles).len()
}

/// The volume of air each inward-facing piece of a finished mesh encloses, in piece order.
pub fn inward_shell_volumes(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<f64> {
    pieces(positions, triangles)
        .iter()
        .filter(|p| p.volume < 0.0)
        .map(|p| -p.volume)
        .collect()
}
