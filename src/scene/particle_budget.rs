//! How many particles each object will make, known before any is made, so the cap
//! `max_particles` refuses a scene before its particles fill the memory (issue 35: a liquid
//! scaled ×20 at the bake's first frame reached 3.6 GB before it was refused).
//!
//! Every object becomes particles at one pose, the bake's first frame (`settings.frame_start`,
//! which `--frames` moves): liquids are filled there, obstacles and emitter nozzles sampled
//! there, and their samples follow the surface from then on. So the count is taken at that
//! pose, whichever pose the scene's motion starts with:
//! - a liquid's count is exact: the fill's own count (its volume over (2r)³, settled by its ray
//!   crossings and the lattice points near its surface), and past the cap a count over it
//!   that the fill cannot be below, found from the crossings alone;
//! - an obstacle's is an upper bound from its triangles' areas and perimeters
//!   (`geometry::sampling_cost`);
//! - an emitter's is what it emits within the bake's frames, plus one.
//!
//! The work of the fill and of the sampling is bounded first (`limits`), so counting is cheap
//! whatever the mesh.

use super::limits::{max_fill_row_tests, max_sampling_candidates};
use super::{Role, SceneObject, Settings};
use crate::geometry;

/// Particles `object` makes over the bake, or why it cannot be made within the limits.
pub fn particles_made(object: &SceneObject, settings: &Settings) -> Result<u64, String> {
    let r = settings.particle_radius;
    let frame = settings.frame_start;
    let vertices = geometry::world_vertices(&object.mesh, &object.motion, frame as f32);
    let triangles = &object.mesh.triangles;
    let cap = settings.max_particles;
    match &object.role {
        Role::Liquid { .. } => {
            let limits = geometry::FillLimits {
                max_points: cap,
                max_row_tests: max_fill_row_tests(cap),
            };
            geometry::count_fill(&vertices, triangles, 2.0 * r, limits)
        }
        Role::Obstacle { .. } | Role::RigidBody { .. } => {
            let cost = sampling_within_limit(&vertices, triangles, settings, "its surface")?;
            Ok(cost.max_samples)
        }
        Role::Emitter { emission, .. } => {
            sampling_within_limit(&vertices, triangles, settings, "its nozzle")?;
            let area = geometry::surface_area(&vertices, triangles);
            let resolved = emission.resolve(area, r)?;
            // Each layer of the stream leaves from that many nozzle points, which the nozzle
            // holds as columns: a layer wider than the cap could never be emitted whole (a
            // nozzle stretched 2,000 km once made a throat of 10⁵ columns).
            let layer = resolved.stream_area / (4.0 * r as f64 * r as f64);
            if layer.is_nan() || layer > cap as f64 {
                return Err(format!(
                    "its stream is {layer:.3e} particles across (its cross-section over (2r)²), \
                     more than the cap max_particles = {cap}"
                ));
            }
            let per_second = resolved.particles_per_second;
            let from = emission.frame_start.max(settings.frame_start) as f64;
            let to = emission.frame_end.min(settings.frame_end) as f64;
            let seconds = (to - from).max(0.0) / settings.fps as f64;
            let count = (per_second * seconds).ceil() + 1.0;
            // Saturates (a float beyond u64 casts to its maximum) rather than wraps.
            Ok(count as u64)
        }
    }
}

/// An obstacle's exact sample count at the bake's first frame: the sampler itself, run only
/// when the upper bound of [`particles_made`] would refuse a scene (it can be 3× the count on
/// a plain box, while the Bake panel counts exactly). Its work is bounded by the same limit.
pub fn obstacle_samples(object: &SceneObject, settings: &Settings) -> u64 {
    let vertices =
        geometry::world_vertices(&object.mesh, &object.motion, settings.frame_start as f32);
    let spacing = geometry::obstacle_spacing(settings.particle_radius);
    geometry::sample_surface(&vertices, &object.mesh.triangles, spacing).len() as u64
}

/// The sampling's cost at the obstacle spacing, refused if it would test more candidates than
/// the cap allows.
fn sampling_within_limit(
    vertices: &[glam::Vec3],
    triangles: &[[u32; 3]],
    settings: &Settings,
    what: &str,
) -> Result<geometry::SamplingCost, String> {
    let spacing = geometry::obstacle_spacing(settings.particle_radius);
    let cost = geometry::sampling_cost(vertices, triangles, spacing);
    let limit = max_sampling_candidates(settings.max_particles);
    if cost.candidates > limit {
        return Err(format!(
            "sampling {what} would test {} candidate points, more than the {limit} the cap \
             max_particles = {} allows",
            cost.candidates, settings.max_particles
        ));
    }
    Ok(cost)
}

/// Particles `emission` (resolved as `resolved`) emits within the bake's frames: from the
/// start of `frame_start`, the bake's initial state, to the start of `frame_end`.
pub fn emitted_in_bake(
    emission: &super::Emission,
    resolved: &super::ResolvedEmission,
    settings: &Settings,
) -> u64 {
    let fps = settings.fps;
    let by = |frame: i32| emission.emitted_by(resolved, frame as f64, fps);
    by(settings.frame_end).saturating_sub(by(settings.frame_start))
}
