//! Bake-wide settings: time stepping, resolution, solver tolerances, domain.

use glam::Vec3;
use serde::{Deserialize, Serialize};

/// How liquid viscosity is modelled.
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, Default)]
#[serde(rename_all = "snake_case")]
pub enum ViscosityModel {
    /// Steele et al. 2004's explicit momentum exchange, with its strength derived from the
    /// material's dynamic viscosity (see `sim::viscosity_classic`). It saturates far below
    /// honey at millimetre resolution and brakes spinning blobs; kept as the paper's model.
    Classic,
    /// Implicit, angular-momentum-conserving viscosity in physical units (Weiler et al. 2018;
    /// `sim::viscosity_implicit`): the measured viscosity is the requested one.
    #[default]
    Implicit,
}

/// The simulation domain: liquid particles leaving it are removed, except along periodic axes,
/// where they wrap around (used by validation scenes such as the viscometer).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct Domain {
    pub min: Vec3,
    pub max: Vec3,
    #[serde(default)]
    pub periodic: [bool; 3],
}

impl Domain {
    pub fn size(&self) -> Vec3 {
        self.max - self.min
    }
    pub fn contains(&self, p: Vec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }
}

/// The largest frame number (and the smallest is its negative): Blender's own limit
/// (`MAXFRAME`). A frame beyond it comes from no real scene, and bounding frames keeps every
/// frame sum, difference and count far from overflowing.
pub const MAX_FRAME: i32 = 1_048_574;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Settings {
    /// Frames per second of the exported animation.
    pub fps: f32,
    /// First frame to bake (the scene's initial state is this frame).
    pub frame_start: i32,
    /// Last frame to bake, inclusive.
    pub frame_end: i32,
    /// Liquid particle radius `r` in metres: the one resolution knob. Liquid starts on a 2r lattice.
    pub particle_radius: f32,
    /// The fewest force evaluations per frame (the paper's substeps, 2–8). Each frame takes
    /// more, up to `max_substeps`, when its liquid or obstacles move fast enough to need
    /// them (`sim::adaptive`): no particle moves more than a set share of `r` in one move.
    pub substeps: u32,
    /// The most substeps a frame may take (at least `substeps`; equal to it fixes the count).
    /// Files without it get `default_max_substeps`.
    #[serde(default = "default_max_substeps")]
    pub max_substeps: u32,
    /// Position updates per substep (the paper's moves, 3–8).
    pub moves: u32,
    /// Gravity in m/s².
    pub gravity: Vec3,
    /// Density correction stops when the largest compression is below this fraction (0.01 = 1%).
    pub density_tolerance: f32,
    /// Damping of the density Newton step (the paper's elastic coefficient, 0.1–0.5).
    pub elastic_coefficient: f32,
    /// Upper bound on density-correction passes per substep: a guard against a correction
    /// that cannot converge, not a way to trade volume for speed (see
    /// `default_max_density_iterations`).
    #[serde(default = "default_max_density_iterations")]
    pub max_density_iterations: u32,
    pub domain: Domain,
    /// Refuse scenes that would create more liquid + object particles than this.
    pub max_particles: u64,
    #[serde(default)]
    pub viscosity_model: ViscosityModel,
}

/// 100 passes. The cap was 30, and then the fan demo's gel stopped at it in 19% of its
/// substeps, where the blades strike it, left up to 28% compressed, and a 100k-particle
/// honey block dropped on a plate (`examples/honey_drop_bench.rs`) stopped at it in every
/// substep, up to 15%. At 100 the fan never reaches the cap and the block reached it in one
/// substep of 24 (1.7% compressed), while the honey and paint drops never reach 30 anyway.
/// More substeps do not do the cap's work: at twice the fan's substeps its impacts were
/// still capped, 25% compressed. A Jacobi pass carries a correction one kernel radius, so
/// the passes needed grow with the depth of liquid compressed, not with the time step.
fn default_max_density_iterations() -> u32 {
    100
}

/// 64 substeps per frame. A 5 m/s impact at r = 1 mm, 24 fps and 6 moves takes 38 (no
/// particle moving more than r per move, `sim::adaptive::MOVE_FRACTION`); 64 leaves room for
/// a faster fall or a finer radius before the cap is reached. A fixed number rather than a
/// multiple of `substeps`, so a scene's cap does not move when its minimum does.
pub fn default_max_substeps() -> u32 {
    64
}

impl Settings {
    /// Duration of one frame in seconds.
    pub fn frame_dt(&self) -> f32 {
        1.0 / self.fps
    }
    /// Duration of one substep in seconds when a frame takes `substeps` of them (the count
    /// varies from frame to frame, `sim::adaptive`).
    pub fn substep_dt(&self, substeps: u32) -> f32 {
        1.0 / (self.fps * substeps as f32)
    }
    /// Frames of the bake, the initial frame included. In i64: the difference of two i32
    /// frame numbers may not fit an i32 (validation bounds both by [`MAX_FRAME`]).
    pub fn frame_count(&self) -> u32 {
        let count = i64::from(self.frame_end) - i64::from(self.frame_start) + 1;
        count.clamp(0, i64::from(u32::MAX)) as u32
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            fps: 24.0,
            frame_start: 1,
            frame_end: 100,
            particle_radius: 0.0025,
            substeps: 4,
            max_substeps: default_max_substeps(),
            moves: 6,
            gravity: Vec3::new(0.0, 0.0, -9.81),
            density_tolerance: 0.01,
            elastic_coefficient: 0.5,
            max_density_iterations: default_max_density_iterations(),
            domain: Domain {
                min: Vec3::splat(-2.0),
                max: Vec3::splat(2.0),
                periodic: [false; 3],
            },
            max_particles: 5_000_000,
            viscosity_model: ViscosityModel::default(),
        }
    }
}
