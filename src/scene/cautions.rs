//! What a valid scene may ask for but an artist rarely means, so a fresh bake asks before it
//! starts (issue 42): a liquid object below the resolution, which bakes as a few loose
//! particles, and obstacles sampled into over a million object particles (an unscaled 2 m
//! floor under a pour at r = 0.5 mm: 4.2 million, a bake of 40 s where the pour alone takes 5).
//!
//! Neither is an error: a scene may mean a few droplets, or a large floor. The CLI refuses
//! such a bake without `--confirm` (`bake::BakeOptions::confirmed`); the add-on's Bake panel
//! draws the same cases red and its Bake button asks first (`blender_addon/preflight.py`
//! mirrors these thresholds).

use glam::Vec3;

use super::{particle_budget, Role, Scene};
use crate::geometry;

/// A liquid object with fewer particles than this does not flow or mesh as a liquid: a
/// 2 mm cube at r = 0.5 mm holds 8, which bake as a clump of beads.
pub const FEWEST_LIQUID_PARTICLES: u64 = 50;

/// Object particles over this many make the bake's start (sampling every obstacle) and every
/// substep (they are copied into the density correction's arrays) noticeably slower, for
/// particles the liquid mostly never reaches.
pub const MOST_OBJECT_PARTICLES: u64 = 1_000_000;

impl Scene {
    /// The sentences a fresh bake of this (valid) scene asks the artist to confirm, each
    /// naming the object and the fix; empty when there is nothing to ask. Counts at the
    /// bake's first frame, as the bake makes its particles.
    pub fn cautions(&self) -> Vec<String> {
        let mut found = self.tiny_liquids();
        found.extend(self.obstacles_over_the_limit());
        found.extend(self.rigid_bodies_away_from_liquid());
        found
    }

    /// A rigid body that starts away from all liquid and would not fall into any moves only
    /// under gravity, untouched: likely a body placed in the wrong spot. "Near" is the body's
    /// box, stretched along gravity to the domain's edge (the path it falls) and grown by its
    /// own size, meeting a liquid object's box or an emitter's (stretched the same way: its
    /// stream falls).
    fn rigid_bodies_away_from_liquid(&self) -> Vec<String> {
        let s = &self.settings;
        let frame = s.frame_start as f32;
        let fall = |(mut lo, mut hi): (Vec3, Vec3)| {
            for axis in 0..3 {
                if s.gravity[axis] < 0.0 {
                    lo[axis] = lo[axis].min(s.domain.min[axis]);
                } else if s.gravity[axis] > 0.0 {
                    hi[axis] = hi[axis].max(s.domain.max[axis]);
                }
            }
            (lo, hi)
        };
        let bounds = |object: &super::SceneObject| {
            geometry::bounds(&geometry::world_vertices(
                &object.mesh,
                &object.motion,
                frame,
            ))
        };
        let liquids: Vec<(Vec3, Vec3)> = self
            .objects
            .iter()
            .filter_map(|object| match object.role {
                Role::Liquid { .. } => Some(bounds(object)),
                Role::Emitter { .. } => Some(fall(bounds(object))),
                _ => None,
            })
            .collect();
        self.objects
            .iter()
            .filter(|object| matches!(object.role, Role::RigidBody { .. }))
            .filter_map(|object| {
                let (lo, hi) = bounds(object);
                let margin = Vec3::splat((hi - lo).max_element().max(4.0 * s.particle_radius));
                let (lo, hi) = fall((lo, hi));
                let (lo, hi) = (lo - margin, hi + margin);
                let near = liquids
                    .iter()
                    .any(|(l, h)| l.cmple(hi).all() && h.cmpge(lo).all());
                (!near).then(|| {
                    format!(
                        "rigid body '{}' has no liquid near it, nor any in the path it falls:                          it would move only under gravity, untouched; move it into or above                          the liquid, or give it the obstacle role",
                        object.name
                    )
                })
            })
            .collect()
    }

    fn tiny_liquids(&self) -> Vec<String> {
        let s = &self.settings;
        let r = s.particle_radius;
        self.objects
            .iter()
            .filter(|object| matches!(object.role, Role::Liquid { .. }))
            .filter_map(|object| {
                let count = particle_budget::particles_made(object, s).ok()?;
                if count == 0 || count >= FEWEST_LIQUID_PARTICLES {
                    return None; // none at all is an error of `validate`
                }
                // The count goes as r⁻³: the radius at which it would hold enough.
                let enough = r * (count as f32 / FEWEST_LIQUID_PARTICLES as f32).cbrt();
                Some(format!(
                    "liquid object '{}' holds only {count} particles at particle_radius {r} m, \
                     too few to flow and mesh as a liquid ({FEWEST_LIQUID_PARTICLES} at \
                     least); enlarge it, or lower particle_radius to {enough:.2e} m or less",
                    object.name
                ))
            })
            .collect()
    }

    /// One sentence naming the obstacle with the most particles when all of them together
    /// exceed `MOST_OBJECT_PARTICLES`. The cheap upper bound decides first; the sampler
    /// itself counts only when that bound is over the limit.
    fn obstacles_over_the_limit(&self) -> Option<String> {
        let s = &self.settings;
        let obstacles: Vec<_> = self
            .objects
            .iter()
            .filter(|object| matches!(object.role, Role::Obstacle { .. }))
            .collect();
        // An obstacle beyond the sampler's limits is `validate`'s to refuse: none is sampled.
        let bounds: Result<Vec<u64>, String> = obstacles
            .iter()
            .map(|object| particle_budget::particles_made(object, s))
            .collect();
        let bound = bounds.ok()?.iter().fold(0u64, |t, &c| t.saturating_add(c));
        if bound <= MOST_OBJECT_PARTICLES {
            return None;
        }
        let counts: Vec<u64> = obstacles
            .iter()
            .map(|object| particle_budget::obstacle_samples(object, s))
            .collect();
        let total: u64 = counts.iter().sum();
        if total <= MOST_OBJECT_PARTICLES {
            return None;
        }
        let (most, count) = obstacles.iter().zip(&counts).max_by_key(|(_, &c)| c)?;
        let of_all = if *count == total {
            String::new()
        } else {
            format!(" ({total} in all)")
        };
        Some(format!(
            "obstacle '{}' makes {count} object particles at particle_radius {} m{of_all}, \
             over {MOST_OBJECT_PARTICLES}: each slows the bake's start and every substep; \
             scale it down to where the liquid reaches, or raise particle_radius",
            most.name, s.particle_radius
        ))
    }
}
