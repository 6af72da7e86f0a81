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
//!    obstacle. (The sweep counts the blob twice at the particle's height; adding only what
//!    reaches beyond the blob made a settled coat's top bumpier, 0.062 r RMS against 0.046.)
//! 2. **Clipping.** Near obstacles the field is `min(f, d / r - GAP)`, `d` the signed
//!    distance to the obstacle (positive outside): the surface is cut off [`GAP`] r above the
//!    obstacle, a flat contact face exactly where the liquid touches it. On the mesh as
//!    marched, that face and the band [`SINK_BAND`] r above it are sunk together onto the
//!    contact level ([`Walls::sink`]); the smoothing keeps the face and smooths the band as
//!    bulk liquid ([`Walls::weigh_rim`]); whatever later moves below the level is put back on
//!    it ([`Walls::lift`]).
//!
//! **Where the contact face lies.** Inside an opaque obstacle, [`OFFSET`] r below its surface
//! (as FLIP Fluids' obstacle meshing offset puts it): the liquid's surface then meets the
//! obstacle's at an angle along the contact line, and nowhere do two nearly coincident sheets
//! face each other, which Cycles renders as dark specks (the honey-drop film on the ball,
//! decimated, whose chords sank within 0.02 r of the ball). Hidden inside the opaque solid,
//! the face is never seen. A transparent obstacle (glass) shows what lies inside it, and a
//! liquid face inside glass is two dielectrics overlapping: Cycles would refract at the
//! liquid's face as if from air, inside the glass. There the face stays [`GAP`] r above the
//! obstacle, a thin film of air, which renders as light really passes (glass, air, liquid), and
//! decimation keeps its vertices (see `decimate`) so its chords never cross the glass.

use glam::Vec3;
use rayon::prelude::*;

use super::anisotropy::Kernel;
use crate::geometry::{closest_point_on_triangle, TriangleTree};

/// Particles closer than this to an obstacle (in particle radii) wet it fully.
pub const WET: f32 = 3.0;
/// ... and the wetting fades out over this much further (in particle radii).
pub const WET_FADE: f32 = 1.0;
/// How far particles resting on an obstacle keep their centres from it, in particle radii: the
/// solver holds them a particle radius plus an object particle's radius
/// ([`crate::geometry::OBJECT_PARTICLE_RADIUS_FACTOR`]) from its particles on the surface.
pub const REST: f32 = 1.0 + crate::geometry::OBJECT_PARTICLE_RADIUS_FACTOR;
/// How far above its contact level the contact line is smoothed (in particle radii).
pub const RIM_BAND: f32 = 1.5;
/// Laplacian steps that smooth the contact line: enough to round the scallops of the particle
/// spacing (2 r, four cubes), few enough that the rim keeps its place.
pub const RIM_ITERATIONS: usize = 10;
/// How far above the clipped face [`Walls::sink`] moves the surface down with it (in particle
/// radii): the rim band.
pub const SINK_BAND: f32 = RIM_BAND;
/// How near its contact level a vertex counts as lying on the contact face (in particle radii).
const FACE_TOLERANCE: f32 = 0.05;
/// On an opaque obstacle the mesh's contact face lies this far inside it (in particle radii):
/// five times decimation's error target (0.02 r, and chords on a concave obstacle rise by no
/// more), so the liquid's face never comes near the obstacle's, and a small fraction of any
/// real obstacle's thickness.
pub const OFFSET: f32 = 0.1;
/// On a transparent obstacle the mesh's contact face lies this far above it (in particle
/// radii): close enough to read as contact, far enough that Cycles' rays never confuse the two
/// surfaces.
pub const GAP: f32 = 0.05;

/// Relative difference of squared distances below which two triangles are equally near (they
/// share the closest point: an edge or a corner).
const TIE: f32 = 1e-6;

/// An obstacle's surface at the frame being meshed: world-space triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ObstacleSurface {
    pub vertices: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
    /// Renders see through it (glass): the contact face stays outside (see the module docs).
    pub transparent: bool,
}

impl ObstacleSurface {
    /// The contact level on this obstacle, in particle radii along its outward normal.
    pub fn contact_level(&self) -> f32 {
        if self.transparent {
            GAP
        } else {
            -OFFSET
        }
    }
}

impl ObstacleSurface {
    /// The surfaces of `scene`'s obstacles as they stand at `frame`.
    pub fn of_scene(scene: &crate::scene::Scene, frame: i32) -> Vec<ObstacleSurface> {
        scene
            .objects
            .iter()
            .filter_map(|o| match &o.role {
                crate::scene::Role::Obstacle { material } => Some(ObstacleSurface {
                    vertices: crate::geometry::world_vertices(&o.mesh, &o.motion, frame as f32),
                    triangles: o.mesh.triangles.clone(),
                    transparent: scene
                        .materials
                        .solids
                        .iter()
                        .any(|s| &s.name == material && s.see_through),
                }),
                _ => None,
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
    /// Each triangle's contact level (its obstacle's, in particle radii).
    levels: Vec<f32>,
    /// The highest level (in particle radii).
    highest: f32,
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
            levels: Vec::new(),
            highest: f32::NEG_INFINITY,
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
                let level = obstacle.contact_level();
                walls.levels.push(level);
                walls.highest = walls.highest.max(level);
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
        self.nearest_within(p, self.band)
            .map(|n| (n.distance, n.closest, n.normal))
    }

    /// The nearest obstacle within `reach` (at most the band), with its contact level.
    fn nearest_within(&self, p: Vec3, reach: f32) -> Option<Near> {
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
        (d <= reach).then_some(Near {
            distance: sign * d,
            closest: n.closest,
            normal,
            level: self.levels[n.triangle],
        })
    }

    /// Whether any obstacle lies within `band` of some point of the box `lo..hi`.
    pub fn near_box(&self, lo: Vec3, hi: Vec3) -> bool {
        self.tree.any_box_near(lo, hi, self.band)
    }

    /// `f` clipped to end [`GAP`] particle radii above the obstacles (see the module docs), at a
    /// point of a marching-cubes grid of cube size `cell`. The field is clipped outside every
    /// obstacle: a level inside one would let the wetted blobs' ends, which reach through a
    /// thin obstacle, make a sheet inside its far side (a slab 3 r thick did). The contact
    /// face is moved inside opaque obstacles afterwards, by [`Walls::lift`].
    ///
    /// Outside the liquid (f ≤ −GAP) only points within a cube of an obstacle are looked at:
    /// farther out the clip is above f anyway, and farther in every grid neighbour is inside
    /// the obstacle too, so negative after the clip, and no surface passes by the point. Most
    /// of the points near an obstacle are such, and the search for them is short.
    #[inline]
    pub fn clip(&self, f: f32, p: Vec3, particle_radius: f32, cell: f32) -> f32 {
        let reach = if f <= -GAP { cell } else { self.band };
        match self.nearest_within(p, reach) {
            Some(n) => f.min(n.distance / particle_radius - GAP),
            None => f,
        }
    }

    /// Which vertices lie on an obstacle's contact face (within `tolerance` of its level).
    pub fn touching(&self, vertices: &[Vec3], particle_radius: f32, tolerance: f32) -> Vec<bool> {
        vertices
            .par_iter()
            .map(|v| {
                self.nearest_within(*v, self.band)
                    .is_some_and(|n| n.distance < n.level * particle_radius + tolerance)
            })
            .collect()
    }

    /// Per region, the volume the mesh encloses between its contact faces (triangles whose
    /// corners are all `on_face`) and the liquid proper: particles rest [`REST`] r off an
    /// obstacle, so their lattice cells (2 r a side) end `REST - 1` r above it, and the mesh
    /// reaches down to the contact level. Volume restoration adds it to the liquid's own, or
    /// it shrinks the free surface by as much: on a puddle 1.5 particles thick by 0.5 r all
    /// round, above a contact face it cannot move, which left a flat foot around the rim.
    pub fn gap_volume(
        &self,
        vertices: &[Vec3],
        triangles: &[[u32; 3]],
        region: &[u32],
        on_face: &[bool],
        regions: usize,
        particle_radius: f32,
    ) -> Vec<f64> {
        let mut volume = vec![0.0f64; regions];
        for t in triangles {
            if !t.iter().all(|&v| on_face[v as usize]) {
                continue;
            }
            let [a, b, c] = t.map(|v| vertices[v as usize]);
            let Some(n) = self.nearest_within((a + b + c) / 3.0, self.band) else {
                continue;
            };
            let depth = (REST - 1.0 - n.level) * particle_radius;
            let area = 0.5 * (b - a).cross(c - a).length();
            volume[region[t[0] as usize] as usize] += (area * depth) as f64;
        }
        volume
    }

    /// Which vertices lie on a transparent obstacle's contact face (within `tolerance` of its
    /// level): decimation keeps them, so the thin film of air there stays open.
    pub fn touching_transparent(
        &self,
        vertices: &[Vec3],
        particle_radius: f32,
        tolerance: f32,
    ) -> Vec<bool> {
        if self.highest <= 0.0 {
            return vec![false; vertices.len()];
        }
        vertices
            .par_iter()
            .map(|v| {
                self.nearest_within(*v, self.band).is_some_and(|n| {
                    n.level > 0.0 && n.distance < n.level * particle_radius + tolerance
                })
            })
            .collect()
    }

    /// Moves the clipped field's contact face (at [`GAP`]) to the contact level, and the liquid's
    /// surface within [`SINK_BAND`] r above it down with it, by less the higher it lies: the
    /// band from the face up to [`GAP`] + [`SINK_BAND`] is compressed onto the band from the
    /// contact level up to the same height. Once, on the mesh as marched.
    ///
    /// Why not only the face: on an opaque obstacle the level lies [`OFFSET`] r inside it,
    /// 0.15 r below the marched face. Moving only the face's vertices down (those within a
    /// tolerance of it) left the wall's lowest row of vertices where it was, above the floor:
    /// where marching cubes and smoothing had put a crease vertex just under the tolerance it
    /// went down, its neighbour just over it stayed, and the rim became a saw-tooth of spikes
    /// reaching down to the face with gaps under the wall between them (Quick Honey's puddle,
    /// frames 6-48). Moving the band continuously keeps every vertex's order in height.
    pub fn sink(&self, vertices: &mut [Vec3], particle_radius: f32) {
        let r = particle_radius;
        vertices.par_iter_mut().for_each(|v| {
            let Some(n) = self.nearest_within(*v, self.band) else {
                return;
            };
            if n.level >= GAP {
                return; // see-through: the face stays where the clip made it
            }
            let (d, bottom, top) = (n.distance / r, GAP + FACE_TOLERANCE, GAP + SINK_BAND);
            let sunk = if d <= bottom {
                n.level
            } else if d < top {
                n.level + (d - bottom) * (top - n.level) / (top - bottom)
            } else {
                return;
            };
            *v = n.closest + n.normal * (sunk * r);
        });
    }

    /// Puts the vertices on a contact face (within [`FACE_TOLERANCE`] of its level) and those
    /// that lie below it on the contact level: inside an opaque obstacle, [`GAP`] above a
    /// transparent one. After [`Walls::sink`], whenever vertices have moved.
    pub fn lift(&self, vertices: &mut [Vec3], particle_radius: f32) {
        let r = particle_radius;
        vertices.par_iter_mut().for_each(|v| {
            if let Some(n) = self.nearest_within(*v, self.band) {
                let level = n.level * r;
                if n.distance < level + FACE_TOLERANCE * r {
                    *v = n.closest + n.normal * level;
                }
            }
        });
    }

    /// The mesh smoothing's weights at the contact line: 0 on a contact face (it stays on the
    /// obstacle), 1 on the rest of the rim band (within [`RIM_BAND`] r of the level).
    ///
    /// The weights elsewhere come from how much liquid lies a particle diameter under a vertex,
    /// which at the rim probes into the obstacle and finds little: from the face's 0 to the
    /// wall's 1 they changed over one or two vertices, differently from one column of marching
    /// cubes to the next, and the smoothing dragged some crease vertices up and left their
    /// neighbours, which made the rim's saw-tooth. The liquid at a contact line is bulk liquid.
    pub fn weigh_rim(&self, vertices: &[Vec3], weight: &mut [f32], particle_radius: f32) {
        let r = particle_radius;
        vertices
            .par_iter()
            .zip(weight.par_iter_mut())
            .for_each(|(v, w)| {
                if let Some(n) = self.nearest_within(*v, self.band) {
                    let level = n.level * r;
                    if n.distance < level + FACE_TOLERANCE * r {
                        *w = 0.0;
                    } else if n.distance < level + RIM_BAND * r {
                        *w = 1.0;
                    }
                }
            });
    }

    /// Smooths the contact line: `iterations` Laplacian steps for the vertices within
    /// [`RIM_BAND`] r of a contact level, those on the contact face kept on it (they slide
    /// along it) and the others lifted if they pass below it. The face's rim is where the
    /// rim particles' blobs, swept down, end: scalloped at the particle spacing. The mesh's
    /// smoothing cannot round it, as the lift put the face back where the field made it, and
    /// the vertices on the face stay fixed while the volume is restored.
    pub fn relax_rim(
        &self,
        vertices: &mut [Vec3],
        adjacency: &super::smooth::Adjacency,
        iterations: usize,
        particle_radius: f32,
    ) {
        let r = particle_radius;
        // The band's vertices, and whether each lies on its face.
        let band: Vec<(u32, bool)> = (0..vertices.len() as u32)
            .into_par_iter()
            .filter_map(|v| {
                let n = self.nearest_within(vertices[v as usize], self.band)?;
                let level = n.level * r;
                (n.distance < level + RIM_BAND * r)
                    .then_some((v, n.distance < level + FACE_TOLERANCE * r))
            })
            .collect();
        let mut moved = vec![Vec3::ZERO; band.len()];
        for _ in 0..iterations {
            moved
                .par_iter_mut()
                .zip(&band)
                .for_each(|(out, &(v, on_face))| {
                    let p = vertices[v as usize];
                    let ring = adjacency.of(v as usize);
                    let mut q = p;
                    if !ring.is_empty() {
                        let mean = ring.iter().map(|&n| vertices[n as usize]).sum::<Vec3>()
                            / ring.len() as f32;
                        q = p + 0.5 * (mean - p);
                    }
                    if let Some(n) = self.nearest_within(q, self.band) {
                        let level = n.level * r;
                        if on_face || n.distance < level {
                            q = n.closest + n.normal * level;
                        }
                    }
                    *out = q;
                });
            for (&(v, _), &q) in band.iter().zip(&moved) {
                vertices[v as usize] = q;
            }
        }
    }
}

/// The nearest obstacle to a point: signed distance (positive outside), closest point, outward
/// normal there, and that obstacle's contact level (in particle radii).
struct Near {
    distance: f32,
    closest: Vec3,
    normal: Vec3,
    level: f32,
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
            transparent: false,
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
            transparent: false,
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
    fn sinking_moves_the_face_to_the_level_and_keeps_every_vertex_in_order() {
        let r = 0.01;
        let walls = Walls::new(&[floor()], Vec3::splat(-0.5), Vec3::splat(0.5), 0.1, 0.005);
        let heights = [
            GAP,
            GAP + 0.5 * FACE_TOLERANCE,
            0.12,
            0.2,
            0.5,
            1.0,
            1.5,
            1.6,
            3.0,
        ];
        let mut vertices: Vec<Vec3> = heights
            .iter()
            .map(|&h| Vec3::new(0.1, 0.2, h * r))
            .collect();
        walls.sink(&mut vertices, r);
        let sunk: Vec<f32> = vertices.iter().map(|v| v.z / r).collect();
        assert!(
            (sunk[0] + OFFSET).abs() < 1e-5 && (sunk[1] + OFFSET).abs() < 1e-5,
            "{sunk:?}"
        );
        assert!(sunk.windows(2).all(|w| w[0] <= w[1]), "{sunk:?}");
        assert!(sunk[2] > -OFFSET && sunk[2] < 0.12, "{sunk:?}");
        // Above the band nothing moves.
        assert!(
            (sunk[7] - 1.6).abs() < 1e-5 && (sunk[8] - 3.0).abs() < 1e-5,
            "{sunk:?}"
        );
        // On glass the face stays where the clip made it.
        let glass = ObstacleSurface {
            transparent: true,
            ..floor()
        };
        let walls = Walls::new(&[glass], Vec3::splat(-0.5), Vec3::splat(0.5), 0.1, 0.005);
        let mut kept: Vec<Vec3> = heights
            .iter()
            .map(|&h| Vec3::new(0.1, 0.2, h * r))
            .collect();
        walls.sink(&mut kept, r);
        assert!(kept
            .iter()
            .zip(&heights)
            .all(|(v, h)| (v.z / r - h).abs() < 1e-5));
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
