//! Emitters: liquid enters the scene through an object's surface, its nozzle, at a volume
//! flow and speed over a frame range.
//!
//! Emission is continuous. The stream leaves the nozzle as densely as liquid at rest is packed:
//! each of the nozzle's `stream area / (2r)²` points (rounded) sends a particle every
//! `2r / speed` seconds (exactly so when that count is whole: the rounding leaves the spacing
//! within `0.5 / count` of 2r). Each particle has its own instant, the points taking turns in
//! an order that scatters consecutive ones over the nozzle (`Emitter::point_of`), and joins the
//! liquid at the end of the substep it left in, where the flow has carried it by then. The
//! stream is then even at any substep count. (Releasing each substep's particles together
//! poured one slab per substep with gaps between them: beads. Releasing each layer of points
//! together poured a stack of flat discs, which rendered as a ribbed rope and stayed a stack
//! until the fall stretched it.)
//!
//! How many particles have been emitted is a pure function of time, `floor(R · t)` for R
//! particles per second, so the volume is the flow's to within one particle, and a resumed
//! bake emits exactly what an uninterrupted one would.

use glam::Vec3;
use rayon::prelude::*;

use super::LiquidParticles;
use crate::geometry::{self, SurfaceSample};
use crate::scene::limits::max_sampling_candidates;
use crate::scene::{Emission, ResolvedEmission, Role, Scene, SceneObject};

pub struct Emitter {
    object: usize,
    /// Nozzle points, centre first: each round of emission has one particle at each.
    points: Vec<SurfaceSample>,
    /// The step through `points` from one particle to the next (`point_of`).
    stride: u64,
    emission: Emission,
    resolved: ResolvedEmission,
    material: u16,
    colour: [f32; 3],
}

impl Emitter {
    /// Every emitter of the scene, its nozzle sampled at the scene's first frame.
    pub fn all(scene: &Scene) -> Vec<Emitter> {
        let r = scene.settings.particle_radius;
        let frame = scene.settings.frame_start;
        scene
            .objects
            .iter()
            .enumerate()
            .filter_map(|(index, object)| {
                let Role::Emitter { material, emission } = &object.role else {
                    return None;
                };
                let m = scene.materials.liquid_index(material).expect("validated");
                let area = geometry::nozzle_area(object, frame);
                let resolved = emission.resolve(area, r).expect("validated");
                let per_layer = (resolved.stream_area / (4.0 * r as f64 * r as f64)).round();
                let vertices = geometry::world_vertices(&object.mesh, &object.motion, frame as f32);
                let triangles = &object.mesh.triangles;
                let budget = max_sampling_candidates(scene.settings.max_particles);
                let points =
                    nozzle_points(&vertices, triangles, r, per_layer.max(1.0) as usize, budget);
                Some(Emitter {
                    object: index,
                    stride: golden_stride(points.len() as u64),
                    points,
                    emission: emission.clone(),
                    resolved,
                    material: m as u16,
                    colour: scene.materials.liquids[m].colour,
                })
            })
            .collect()
    }

    /// Particles emitted from the start of the bake up to `frame` (fractional).
    pub fn emitted_by(&self, frame: f64, fps: f32) -> u64 {
        self.emission.emitted_by(&self.resolved, frame, fps)
    }

    /// The exit speed of the stream if any of it leaves between `from` and `to` (fractional
    /// frames).
    pub fn exit_speed_during(&self, from: f64, to: f64, fps: f32) -> Option<f32> {
        (self.emitted_by(to, fps) > self.emitted_by(from, fps)).then_some(self.resolved.speed)
    }

    /// The fractional frame at which particle `k` leaves the nozzle.
    fn leaving_frame(&self, k: u64, fps: f32) -> f64 {
        self.emission.frame_start as f64
            + k as f64 * fps as f64 / self.resolved.particles_per_second
    }

    /// The nozzle point particle `k` leaves from. Every point sends one particle in each
    /// round of `n` (so each point's particles are 2r apart), in the order of a golden-ratio
    /// stride through the points, which are sorted centre outwards: consecutive particles
    /// leave far apart, and any stretch of the round covers the nozzle about evenly.
    fn point_of(&self, k: u64) -> &SurfaceSample {
        let n = self.points.len() as u64;
        &self.points[((k % n) * self.stride % n) as usize]
    }

    /// Emits the particles due between `from` and `to` (fractional frames), each where the
    /// flow has carried it by `to`: out along the nozzle's normal at the emission speed, with
    /// the nozzle's own motion, and falling since its layer left.
    pub fn emit(&self, scene: &Scene, from: f64, to: f64, liquid: &mut LiquidParticles) -> usize {
        let fps = scene.settings.fps;
        let (first, end) = (self.emitted_by(from, fps), self.emitted_by(to, fps));
        if end <= first || self.points.is_empty() {
            return 0;
        }
        let object = &scene.objects[self.object];
        let nozzle_then = Nozzle::at(object, from);
        let nozzle_now = Nozzle::at(object, to);
        let substep_seconds = ((to - from) / fps as f64) as f32;
        let r = scene.settings.particle_radius;
        let gravity = scene.settings.gravity;
        for k in first..end {
            let point = self.point_of(k);
            let left = self.leaving_frame(k, fps).min(to);
            let (start, start_normal) = nozzle_then.point(point);
            let (end_point, end_normal) = nozzle_now.point(point);
            // The nozzle is where it was when the layer left (held at the substep's start
            // for a layer that left before it).
            let share = ((left - from) / (to - from)).clamp(0.0, 1.0) as f32;
            let at_exit = start.lerp(end_point, share);
            let normal = start_normal
                .lerp(end_normal, share)
                .normalize_or(end_normal);
            let nozzle_velocity = (end_point - start) / substep_seconds;
            let exit_velocity = normal * self.resolved.speed + nozzle_velocity;
            let age = ((to - left) / fps as f64) as f32;
            let position = at_exit + normal * r + exit_velocity * age + 0.5 * gravity * age * age;
            liquid.push(
                position,
                exit_velocity + gravity * age,
                self.material,
                self.colour,
            );
        }
        (end - first) as usize
    }

    /// The nozzle's throat between `from` and `to` (fractional frames), while the emitter
    /// pours: the liquid within `HELD_LAYERS` layers of the exit, which the liquid behind the
    /// nozzle holds at the exit velocity, as the honey in a jar's spout does (SPlisHSPlasH's
    /// emitters likewise keep the particles in their box at the emit velocity). Without it
    /// nothing pulls back on the stream's top, which the rope's weight tears away from the
    /// layers still leaving.
    ///
    /// Each nozzle point holds a column along its normal, √2 r across (half a lattice cell's
    /// diagonal), from the nozzle out to `HELD_LAYERS` layers and the radius a layer leaves at.
    pub fn throat(&self, scene: &Scene, from: f64, to: f64) -> Option<Throat> {
        let e = &self.emission;
        if self.points.is_empty() || to <= e.frame_start as f64 || from >= e.frame_end as f64 {
            return None;
        }
        let r = scene.settings.particle_radius;
        let object = &scene.objects[self.object];
        let (then, now) = (Nozzle::at(object, from), Nozzle::at(object, to));
        let seconds = ((to - from) / scene.settings.fps as f64) as f32;
        let columns: Vec<Column> = self
            .points
            .iter()
            .map(|point| {
                let (before, _) = then.point(point);
                let (at, normal) = now.point(point);
                Column {
                    at,
                    normal,
                    exit_velocity: normal * self.resolved.speed + (at - before) / seconds,
                }
            })
            .collect();
        let depth = r + 2.0 * r * HELD_LAYERS;
        let centre = columns.iter().map(|c| c.at).sum::<Vec3>() / columns.len() as f32;
        let reach = columns
            .iter()
            .map(|c| c.at.distance(centre))
            .fold(0.0f32, f32::max)
            + depth
            + r;
        Some(Throat {
            columns,
            depth,
            column_radius_squared: 2.0 * r * r,
            centre,
            reach,
        })
    }
}

/// The liquid a pouring nozzle holds (`Emitter::throat`): its points' columns, and a sphere
/// around them outside which no particle need be tested.
pub struct Throat {
    columns: Vec<Column>,
    depth: f32,
    column_radius_squared: f32,
    centre: Vec3,
    reach: f32,
}

impl Throat {
    /// Sets the velocity of every liquid particle in a column to its exit velocity.
    pub fn hold(&self, liquid: &mut LiquidParticles) {
        let reach_squared = self.reach * self.reach;
        liquid
            .position
            .par_iter()
            .zip(liquid.velocity.par_iter_mut())
            .filter(|(x, _)| x.distance_squared(self.centre) <= reach_squared)
            .for_each(|(x, v)| {
                if let Some(c) = self.columns.iter().find(|c| self.holds(c, *x)) {
                    *v = c.exit_velocity;
                }
            });
    }

    fn holds(&self, c: &Column, x: Vec3) -> bool {
        let d = x - c.at;
        let along = d.dot(c.normal);
        (0.0..=self.depth).contains(&along)
            && (d - along * c.normal).length_squared() <= self.column_radius_squared
    }
}

/// Layers of liquid the nozzle holds at its exit velocity (`Emitter::throat`). Measured on the
/// `honey-pour` scene (r = 0.5 mm, 1 s, `examples/pour_probe.rs`): frames after touchdown
/// whose stream was not one piece, 0 of 110 with 4 layers, 16 with 2; without the tension
/// inside the liquid (`density/tension.rs`), 109 with none, 103 with 2, 34 with 4.
const HELD_LAYERS: f32 = 4.0;

/// One nozzle point's column of held liquid.
struct Column {
    at: Vec3,
    normal: Vec3,
    exit_velocity: Vec3,
}

/// A speed raised by less than this share is not worth a warning: a flow and speed chosen to
/// fit a round nozzle meet its polygon's slightly smaller area (a 4 mm circle of 32 sides
/// holds 0.6% less), and "leaves at 0.100 m/s" instead of 0.1 m/s told the artist nothing.
const SPEED_RAISE_WORTH_SAYING: f32 = 0.01;

/// Emitters that pour faster than they ask: a flow too large to leave the nozzle at the
/// given speed leaves at the speed the nozzle's area makes it (`Emission::resolve`).
pub fn speed_warnings(scene: &Scene) -> Vec<String> {
    let r = scene.settings.particle_radius;
    scene
        .objects
        .iter()
        .filter_map(|object| {
            let Role::Emitter { emission, .. } = &object.role else {
                return None;
            };
            let asked = emission.speed?;
            let area = geometry::nozzle_area(object, scene.settings.frame_start);
            let resolved = emission.resolve(area, r).ok()?;
            (resolved.speed > asked * (1.0 + SPEED_RAISE_WORTH_SAYING)).then(|| {
                format!(
                    "emitter '{}': a flow of {:.3} mL/s cannot leave its {:.1} mm² nozzle at \
                     {asked} m/s; it leaves at {:.3} m/s",
                    object.name,
                    resolved.flow * 1e6,
                    area * 1e6,
                    resolved.speed
                )
            })
        })
        .collect()
}

/// An emitter's surface posed at one instant.
struct Nozzle<'a> {
    vertices: Vec<Vec3>,
    triangles: &'a [[u32; 3]],
}

impl<'a> Nozzle<'a> {
    fn at(object: &'a SceneObject, frame: f64) -> Self {
        Nozzle {
            vertices: geometry::world_vertices(&object.mesh, &object.motion, frame as f32),
            triangles: &object.mesh.triangles,
        }
    }

    /// A nozzle point's position and the outward normal of its triangle.
    fn point(&self, sample: &SurfaceSample) -> (Vec3, Vec3) {
        let triangle = self.triangles[sample.triangle as usize];
        (
            sample.position(&self.vertices, self.triangles),
            geometry::triangle_normal(&self.vertices, triangle),
        )
    }
}

/// `count` points on the nozzle, spread at the liquid lattice's density of one per (2r)² and
/// ordered centre first; only the `count` nearest its centre are kept, so a stream narrower
/// than its nozzle leaves through the middle.
///
/// The surface sampler keeps its points at least 0.85 of its spacing apart, which packs them
/// denser than the lattice. Its spacing is widened by the square root of that excess, twice,
/// which brings the density within a few percent of the lattice's; then narrowed, if need be,
/// until there are `count` points. A resampling that would test more than `max_candidates`
/// points is skipped (validation checked the first, at 2r), so no nozzle runs away.
fn nozzle_points(
    vertices: &[Vec3],
    triangles: &[[u32; 3]],
    r: f32,
    count: usize,
    max_candidates: u64,
) -> Vec<SurfaceSample> {
    let area = geometry::surface_area(vertices, triangles);
    let lattice_density = 1.0 / (4.0 * r * r);
    let mut spacing = 2.0 * r;
    let affordable = |spacing: f32| {
        geometry::sampling_cost(vertices, triangles, spacing).candidates <= max_candidates
    };
    let mut samples = geometry::sample_surface(vertices, triangles, spacing);
    for _ in 0..2 {
        if area <= 0.0 || samples.len() < 2 {
            break;
        }
        let density = samples.len() as f32 / area;
        let wider = spacing * (density / lattice_density).sqrt();
        if !affordable(wider) {
            break;
        }
        spacing = wider;
        samples = geometry::sample_surface(vertices, triangles, spacing);
    }
    for _ in 0..20 {
        if samples.len() >= count || !affordable(spacing * 0.9) {
            break;
        }
        spacing *= 0.9;
        samples = geometry::sample_surface(vertices, triangles, spacing);
    }
    let centre = area_centroid(vertices, triangles);
    let distance = |s: &SurfaceSample| s.position(vertices, triangles).distance_squared(centre);
    // A stable sort: points equally far from the centre keep the sampler's order.
    samples.sort_by(|a, b| distance(a).total_cmp(&distance(b)));
    samples.truncate(count.max(1));
    samples
}

/// The whole number nearest n/φ that shares no factor with n (so stepping by it visits every
/// one of n points once per round), 1 for n ≤ 2.
fn golden_stride(n: u64) -> u64 {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    if n <= 2 {
        return 1;
    }
    let nearest = (n as f64 / 1.618_034).round() as u64;
    (0..n)
        .flat_map(|d| [nearest + d, nearest.saturating_sub(d)])
        .find(|&s| s > 0 && s < n && gcd(s, n) == 1)
        .unwrap_or(1)
}

/// The centroid of a surface, each triangle weighted by its area.
fn area_centroid(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Vec3 {
    let (mut weighted, mut total) = (Vec3::ZERO, 0.0f32);
    for t in triangles {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        let area = 0.5 * (b - a).cross(c - a).length();
        weighted += area * (a + b + c) / 3.0;
        total += area;
    }
    if total > 0.0 {
        weighted / total
    } else {
        vertices.iter().copied().sum::<Vec3>() / vertices.len().max(1) as f32
    }
}
