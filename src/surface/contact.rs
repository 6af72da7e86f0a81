//! Contact with obstacles: where liquid rests on or clings to an obstacle, the mesh reaches the
//! obstacle's surface and never passes through it.
//!
//! Why it is needed: particles rest with their centres about 2 r off an obstacle (the solver
//! keeps them from its object particles), and the field ends about 1 r beyond the centres. On
//! its own the mesh therefore floats 1-1.5 r above what the liquid sits on: light leaks under
//! it, and a coat looks like a shell around the ball.
//!
//! The method, in two parts:
//! 1. **Wetting.** A particle within [`WET`] of an obstacle also draws its blob down to its
//!    foot on the obstacle's surface (the closest point): the blob swept along the way, a
//!    capsule of the ellipsoid, so the gap between them is filled (a copy of the blob laid at
//!    the foot left a void between a thin coat's flattened blobs and their copies). Its weight
//!    goes from 1 at `WET` down to 0 at [`WET`] + [`WET_FADE`], so the surface changes
//!    continuously as a drop comes near. Under resting liquid the field then reaches into the
//!    obstacle.
//! 2. **Clipping.** Near obstacles the field is `min(f, d / r - GAP)`, `d` the signed distance
//!    to the obstacle (positive outside): the surface is cut off [`GAP`] r above the
//!    obstacle, a flat contact face exactly where the liquid touches it. After the mesh is
//!    smoothed, vertices that moved below that level are put back on it.

use glam::Vec3;
use rayon::prelude::*;

use super::anisotropy::Kernel;
use crate::geometry::{closest_point_on_triangle, TriangleTree};

/// Particles closer than this to an obstacle (in particle radii) wet it fully.
pub const WET: f32 = 3.0;
/// ... and the wetting fades out over this much further (in particle radii).
pub const WET_FADE: f32 = 1.0;
/// The mesh's contact face lies this far above the obstacle (in particle radii): close enough
/// to read as contact, far enough that Cycles' rays never confuse the two surfaces.
pub const GAP: f32 = 0.05;

/// Relative difference of squared distances below which two triangles are equally near (they
/// share the closest point: an edge or a corner).
const TIE: f32 = 1e-6;

/// An obstacle's surface at the frame being meshed: world-space triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObstacleSurface {
    pub vertices: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
}

impl ObstacleSurface {
    /// The surfaces of `scene`'s obstacles as they stand at `frame`.
    pub fn of_scene(scene: &crate::scene::Scene, frame: i32) -> Vec<ObstacleSurface> {
        scene
            .objects
            .iter()
            .filter(|o| matches!(o.role, crate::scene::Role::Obstacle { .. }))
            .map(|o| ObstacleSurface {
                vertices: crate::geometry::world_vertices(&o.mesh, &o.motion, frame as f32),
                triangles: o.mesh.triangles.clone(),
            })
            .collect()
    }
}

/// The obstacles' triangles near the liquid, in a bounding-volume tree for distance queries
/// within `band` of them.
pub struct Walls {
    /// A length of the liquid's scale: distances far below it count as zero.
    cell: f32,
    band: f32,
    triangles: Vec<[Vec3; 3]>,
    normals: Vec<Vec3>,
    tree: TriangleTree,
}

impl Walls {
    /// The obstacles near the liquid whose blobs are `kernels`, for distances as far as any
    /// blob reaches (and two cubes beyond), or none if no obstacle is that near.
    pub fn around(
        obstacles: &[ObstacleSurface],
        kernels: &[Kernel],
        support: f32,
        cell: f32,
    ) -> Option<Walls> {
        if obstacles.is_empty() {
            return None;
        }
        let reach = kernels
            .iter()
            .map(|k| k.reach.max_element())
            .fold(support, f32::max);
        let centres: Vec<Vec3> = kernels.iter().map(|k| k.centre).collect();
        let (lo, hi) = crate::geometry::bounds(&centres);
        let walls = Walls::new(obstacles, lo, hi, reach + 2.0 * cell, support);
        (!walls.is_empty()).then_some(walls)
    }

    /// Triangles of `obstacles` within `band` of the box `lo..hi` (the liquid's reach), for a
    /// liquid whose scale is `cell`. Degenerate and non-finite triangles are skipped.
    pub fn new(obstacles: &[ObstacleSurface], lo: Vec3, hi: Vec3, band: f32, cell: f32) -> Walls {
        let mut walls = Walls {
            cell,
            band,
            triangles: Vec::new(),
            normals: Vec::new(),
            tree: TriangleTree::new(&[]),
        };
        let (lo, hi) = (lo - band, hi + band);
        for obstacle in obstacles {
            for t in &obstacle.triangles {
                let Some(corners) = t
                    .iter()
                    .map(|&i| obstacle.vertices.get(i as usize).copied())
                    .collect::<Option<Vec<Vec3>>>()
                else {
                    continue;
                };
                let [a, b, c] = [corners[0], corners[1], corners[2]];
                let normal = (b - a).cross(c - a);
                if !(a.is_finite() && b.is_finite() && c.is_finite()) || normal.length() == 0.0 {
                    continue;
                }
                let (t_lo, t_hi) = (a.min(b).min(c) - band, a.max(b).max(c) + band);
                if t_hi.cmplt(lo).any() || t_lo.cmpgt(hi).any() {
                    continue;
                }
                walls.triangles.push([a, b, c]);
                walls.normals.push(normal.normalize());
            }
        }
        walls.tree = TriangleTree::new(&walls.triangles);
        walls
    }

    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// The signed distance from `p` to the nearest obstacle (positive outside), the closest
    /// point on it and the obstacle's outward normal there, if one lies within `band`.
    ///
    /// The sign is that of the nearest triangle's normal; where several triangles share the
    /// closest point (an edge or corner), the one whose plane is farthest from `p` decides,
    /// which is right on both convex and concave edges.
    pub fn signed_distance(&self, p: Vec3) -> Option<(f32, Vec3, Vec3)> {
        self.signed_distance_within(p, self.band)
    }

    /// [`Walls::signed_distance`] for an obstacle within `reach` (at most the band) only.
    fn signed_distance_within(&self, p: Vec3, reach: f32) -> Option<(f32, Vec3, Vec3)> {
        struct Nearest {
            d2: f32,
            plane: f32,
            closest: Vec3,
            triangle: usize,
        }
        let mut best: Option<Nearest> = None;
        self.tree.visit_near(p, reach, |t| {
            let t = t as usize;
            let [a, b, c] = self.triangles[t];
            let closest = closest_point_on_triangle(p, a, b, c);
            let d2 = p.distance_squared(closest);
            let plane = (p - closest).dot(self.normals[t]);
            let better = match &best {
                None => true,
                Some(n) if (d2 - n.d2).abs() <= TIE * n.d2.max(1e-30) => {
                    plane.abs() > n.plane.abs()
                }
                Some(n) => d2 < n.d2,
            };
            if better {
                let d2 = best.as_ref().map_or(d2, |n| d2.min(n.d2));
                best = Some(Nearest {
                    d2,
                    plane,
                    closest,
                    triangle: t,
                });
            }
            // Triangles as near as the best (sharing its closest point) must still be seen.
            best.as_ref()
                .map_or(f32::INFINITY, |n| n.d2 * (1.0 + 2.0 * TIE) + 1e-30)
        });
        let n = best?;
        let d = n.d2.sqrt();
        let sign = if n.plane < 0.0 { -1.0 } else { 1.0 };
        // Off the surface the normal points from it to p (outward); on it, the face's.
        let normal = if d > 1e-6 * self.cell {
            (p - n.closest) * (sign / d)
        } else {
            self.normals[n.triangle]
        };
        (d <= reach).then_some((sign * d, n.closest, normal))
    }

    /// Whether any obstacle lies within `band` of some point of the box `lo..hi`.
    pub fn near_box(&self, lo: Vec3, hi: Vec3) -> bool {
        self.tree.any_box_near(lo, hi, self.band)
    }

    /// `f` clipped to end [`GAP`] particle radii above the obstacles (see the module docs), at a
    /// point of a marching-cubes grid of cube size `cell`.
    ///
    /// Outside the liquid (f ≤ −GAP) only points within a cube of an obstacle are looked at:
    /// farther out the clip is above f anyway, and farther in every grid neighbour is inside
    /// the obstacle too, so negative after the clip, and no surface passes by the point. Most
    /// of the points near an obstacle are such, and the search for them is short.
    #[inline]
    pub fn clip(&self, f: f32, p: Vec3, particle_radius: f32, cell: f32) -> f32 {
        let reach = if f <= -GAP { cell } else { self.band };
        match self.signed_distance_within(p, reach) {
            Some((d, _, _)) => f.min(d / particle_radius - GAP),
            None => f,
        }
    }

    /// Which vertices lie on an obstacle's contact face (within `tolerance` of its level).
    pub fn touching(&self, vertices: &[Vec3], particle_radius: f32, tolerance: f32) -> Vec<bool> {
        let level = GAP * particle_radius;
        vertices
            .par_iter()
            .map(|v| {
                self.signed_distance(*v)
                    .is_some_and(|(d, _, _)| d < level + tolerance)
            })
            .collect()
    }

    /// Puts vertices that lie below the contact level back on it.
    pub fn lift(&self, vertices: &mut [Vec3], particle_radius: f32) {
        let level = GAP * particle_radius;
        vertices.par_iter_mut().for_each(|v| {
            if let Some((d, q, n)) = self.signed_distance(*v) {
                if d < level {
                    *v = q + n * level;
                }
            }
        });
    }
}

/// The particles' blobs swept down to the obstacles they are near (see the module docs), each with
/// its particle's region.
pub fn wetted_copies(
    walls: &Walls,
    kernels: &[Kernel],
    region: &[u32],
    particle_radius: f32,
) -> (Vec<Kernel>, Vec<u32>) {
    kernels
        .par_iter()
        .zip(region.par_iter())
        .filter_map(|(k, &g)| {
            let (d, foot, _) = walls.signed_distance(k.centre)?;
            let weight = wetting(d / particle_radius);
            let sweep = foot - k.centre;
            // A particle on the obstacle itself already reaches it.
            (weight > 0.0 && sweep != Vec3::ZERO).then_some((
                Kernel {
                    sweep,
                    weight,
                    ..*k
                },
                g,
            ))
        })
        .unzip()
}

/// The weight of a particle's blob laid on an obstacle at signed distance `d` (in particle
/// radii): 1 up to [`WET`], 0 beyond [`WET`] + [`WET_FADE`], smooth between; 0 inside it.
pub fn wetting(d: f32) -> f32 {
    if d < 0.0 {
        return 0.0;
    }
    let t = ((WET + WET_FADE - d) / WET_FADE).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn floor() -> ObstacleSurface {
        ObstacleSurface {
            vertices: vec![
                Vec3::new(-1.0, -1.0, 0.0),
                Vec3::new(1.0, -1.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
                Vec3::new(-1.0, 1.0, 0.0),
            ],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        }
    }

    #[test]
    fn distance_to_a_floor_is_signed_by_its_normal() {
        let walls = Walls::new(&[floor()], Vec3::splat(-0.5), Vec3::splat(0.5), 0.1, 0.05);
        let (d, q, n) = walls.signed_distance(Vec3::new(0.2, 0.3, 0.04)).unwrap();
        assert!((d - 0.04).abs() < 1e-6 && q.distance(Vec3::new(0.2, 0.3, 0.0)) < 1e-6);
        assert!(n.distance(Vec3::Z) < 1e-5, "{n}");
        let (d, _, n) = walls.signed_distance(Vec3::new(0.0, 0.0, -0.03)).unwrap();
        assert!((d + 0.03).abs() < 1e-6, "{d}");
        assert!(n.distance(Vec3::Z) < 1e-5, "{n}");
        // On the diagonal both triangles are nearest: the same answer.
        let (d, _, _) = walls.signed_distance(Vec3::new(0.25, 0.25, 0.02)).unwrap();
        assert!((d - 0.02).abs() < 1e-6);
        assert!(walls.signed_distance(Vec3::new(0.0, 0.0, 0.3)).is_none());
    }

    #[test]
    fn a_box_edge_is_outside_on_both_faces_and_inside_below_them() {
        let b = crate::geometry::box_mesh(Vec3::splat(-0.5), Vec3::splat(0.5));
        let surface = ObstacleSurface {
            vertices: b.vertices.clone(),
            triangles: b.triangles.clone(),
        };
        let walls = Walls::new(&[surface], Vec3::splat(-1.0), Vec3::splat(1.0), 0.2, 0.1);
        // Beyond the edge x = z = 0.5 (closest point on it): outside.
        let (d, _, _) = walls.signed_distance(Vec3::new(0.55, 0.0, 0.55)).unwrap();
        assert!((d - 0.05 * 2f32.sqrt()).abs() < 1e-5, "{d}");
        // Just inside, near the same edge: inside.
        let (d, _, _) = walls.signed_distance(Vec3::new(0.45, 0.0, 0.48)).unwrap();
        assert!((d + 0.02).abs() < 1e-5, "{d}");
    }

    #[test]
    fn wetting_fades_continuously() {
        assert_eq!(wetting(0.5), 1.0);
        assert_eq!(wetting(WET), 1.0);
        assert_eq!(wetting(WET + WET_FADE), 0.0);
        assert!((wetting(WET + 0.5 * WET_FADE) - 0.5).abs() < 1e-6);
        assert_eq!(wetting(-0.1), 0.0);
    }
}
