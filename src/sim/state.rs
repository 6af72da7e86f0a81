//! The liquid particles: everything a frame file stores and a resumed bake starts from.

use glam::{DQuat, DVec3, Vec3};

use super::phases::PhaseTimes;

/// A rigid body's state between substeps (issue 44), in double precision: its centre of mass
/// in the world, its orientation relative to the pose it started the bake in (the body frame
/// is the world frame at `settings.frame_start`, about the centre of mass then), and its
/// linear and angular velocity in the world frame.
///
/// Rapier's `RigidBody` holds the same four (translation, rotation, linvel, angvel), so a
/// later step can hand integration and body-body contact to it and keep this as the state
/// the cache stores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyState {
    pub position: DVec3,
    pub orientation: DQuat,
    pub velocity: DVec3,
    pub angular_velocity: DVec3,
}

/// Liquid particles as parallel arrays (structure of arrays).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiquidParticles {
    pub position: Vec<Vec3>,
    pub velocity: Vec<Vec3>,
    /// Index into `Materials::liquids`.
    pub material: Vec<u16>,
    /// Linear RGB.
    pub colour: Vec<[f32; 3]>,
    /// The last implicit viscosity solve's velocity change per particle: the next solve's
    /// starting guess (`viscosity_implicit`). Carried from substep to substep within a frame
    /// and emptied at the frame's end, so between frames the particles hold exactly what a
    /// frame file stores and a resumed bake continues bit-identically.
    pub viscous_change: Vec<Vec3>,
    /// The last density correction's summed Newton steps per particle, a share of which
    /// starts the next one (`density::CARRY`). Carried across frames, so frame files store
    /// it; empty until the first correction (and after reading a file that has none).
    pub density_steps: Vec<f32>,
    /// The rigid bodies' states, in the scene's order of rigid bodies: not particles, but
    /// part of what a frame stores and a resumed bake starts from, so they travel with the
    /// liquid's state and its frame file (`cache::particles`). Empty without rigid bodies.
    pub bodies: Vec<BodyState>,
}

impl LiquidParticles {
    pub fn len(&self) -> usize {
        self.position.len()
    }
    pub fn is_empty(&self) -> bool {
        self.position.is_empty()
    }
    pub fn push(&mut self, position: Vec3, velocity: Vec3, material: u16, colour: [f32; 3]) {
        self.position.push(position);
        self.velocity.push(velocity);
        self.material.push(material);
        self.colour.push(colour);
        if !self.viscous_change.is_empty() {
            self.viscous_change.push(Vec3::ZERO);
        }
        if !self.density_steps.is_empty() {
            self.density_steps.push(0.0);
        }
    }
    /// Keeps the particles for which `keep` is true, in order.
    pub fn retain(&mut self, keep: impl Fn(usize) -> bool) {
        let idx: Vec<usize> = (0..self.len()).filter(|&i| keep(i)).collect();
        self.permute(&idx);
    }
    /// Reorders (and possibly drops) particles: particle `k` becomes old particle `order[k]`.
    pub fn permute(&mut self, order: &[usize]) {
        self.position = order.iter().map(|&i| self.position[i]).collect();
        self.velocity = order.iter().map(|&i| self.velocity[i]).collect();
        self.material = order.iter().map(|&i| self.material[i]).collect();
        self.colour = order.iter().map(|&i| self.colour[i]).collect();
        if !self.viscous_change.is_empty() {
            self.viscous_change = order.iter().map(|&i| self.viscous_change[i]).collect();
        }
        if !self.density_steps.is_empty() {
            self.density_steps = order.iter().map(|&i| self.density_steps[i]).collect();
        }
    }
}

/// What one baked frame cost and how the solver did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FrameStats {
    pub frame: i32,
    pub liquid_particles: usize,
    pub object_particles: usize,
    /// Substeps the frame took (`sim::adaptive`): between the scene's `substeps` and
    /// `max_substeps`.
    pub substeps: u32,
    /// The speed the frame's substeps were chosen for, m/s: the fastest liquid, obstacle or
    /// emitter, plus gravity's gain over the frame.
    pub substep_speed: f32,
    /// The speed asked for more substeps than `max_substeps`: particles moved further than
    /// the bound per move this frame.
    pub substeps_capped: bool,
    /// Which bound set the frame's substeps (`sim::adaptive::Bound`).
    pub substep_bound: super::adaptive::Bound,
    /// Density-correction passes over the frame's substeps.
    pub density_iterations: u32,
    /// Largest compression (ρ/ρ0 − 1) left after the last correction of the frame.
    pub max_density_error: f32,
    /// Largest compression left after any of the frame's corrections.
    pub worst_density_error: f32,
    /// Substeps whose correction stopped at the pass cap (`max_density_iterations`) before
    /// reaching the tolerance: where the figures above exceed it.
    pub capped_substeps: u32,
    /// Liquid-liquid and liquid-object neighbour pairs visited over the frame.
    pub neighbour_pairs: u64,
    /// Particles removed for leaving the domain this frame.
    pub removed: usize,
    /// Wall-clock time per phase of the frame.
    pub phases: PhaseTimes,
}

/// Where a run's density correction stopped at its pass cap short of the tolerance: the frames
/// and substeps it did so in, and the largest compression (ρ/ρ0 − 1) those left. All zero when
/// the correction always reached the tolerance.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassCapReport {
    pub frames: u32,
    pub substeps: u32,
    pub worst_compression: f32,
}

impl PassCapReport {
    pub fn of(stats: &[FrameStats]) -> Self {
        stats
            .iter()
            .filter(|s| s.capped_substeps > 0)
            .fold(Self::default(), |r, s| PassCapReport {
                frames: r.frames + 1,
                substeps: r.substeps + s.capped_substeps,
                worst_compression: r.worst_compression.max(s.worst_density_error),
            })
    }
}
