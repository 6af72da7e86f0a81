//! Adaptive substeps: how many substeps a frame takes, chosen at its start.
//!
//! Two bounds, the larger wins, within the scene's `substeps ..= max_substeps`:
//!
//! - **Speed (CFL).** No particle may move more than `MOVE_FRACTION · r` in one move, or it can
//!   jump past an obstacle's particles (or a liquid neighbour) between two contact checks. The
//!   fastest thing in the frame is taken as the largest of the liquid's speeds, the moving
//!   obstacles' and emitters' surface speeds, and the emitters' exit speeds, plus what
//!   gravity adds over the frame (|g|/fps): `n = ⌈v · (1/fps) / (moves · MOVE_FRACTION · r)⌉`.
//! - **Adhesion.** The adhesion matrix is an explicit spring; it stays stable while
//!   `ω·δt ≤ ADHESION_OMEGA_DT` with `ω` from the stiffest slope any pair can act on at or
//!   beyond its contact distance (contacts keep pairs no closer than that).
//!
//! The count depends only on the state a frame starts from (the particles a frame file stores)
//! and on the scene, so a resumed bake takes the same counts as an uninterrupted one; the
//! largest speed is a max over particles, which no thread count or order changes.

use rayon::prelude::*;

use super::emitters::Emitter;
use super::params::Params;
use super::LiquidParticles;
use crate::geometry;
use crate::scene::{AdhesionFunction, Motion, Role, Scene};

/// The most a particle may move in one move, in particle radii. Measured on a 256-particle
/// honey block thrown at a 1 mm steel plate at r = 1 mm, 6 moves, fixed substep counts set
/// for a largest move of 4, 2, 1.5, 1, 0.75, 0.5, 0.35 and 0.25 r, four frames each
/// (`tests/adaptive_substeps.rs`, `measure_tunnelling_by_move_fraction`): at 4 r per move 15
/// (2 m/s), 64 (5 m/s) and 84 (10 m/s) of its particles went through; at 2 r and below none
/// did at any impact from 1 to 7 m/s. At 10 m/s 1-4 went through at every move from 1.5 r
/// down to 0.5 r, and none at 0.35 r: there the impact's compression, not the moves' length,
/// carries them. 1 r keeps twice the margin the measurement asks for up to 7 m/s, and
/// leaves liquid at rest at the minimum of 4 substeps down to r = 0.75 mm at 24 fps (gravity's
/// gain over a frame alone, 0.41 m/s, asks for 3 at r = 1 mm; at 0.5 r it asked for 6).
pub const MOVE_FRACTION: f32 = 1.0;

/// The largest ω·δt the adhesion matrix's stiffest pair is given: half the explicit
/// oscillator's limit of 2, leaving room for a few neighbours pulling along one line.
pub const ADHESION_OMEGA_DT: f32 = 1.0;

/// Why a frame takes the substeps it does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The substeps the frame takes.
    pub substeps: u32,
    /// The speed the bound was taken from, m/s (gravity's gain over the frame included).
    pub speed: f32,
    /// The speed bound asked for more than `max_substeps`: particles may move further than
    /// `MOVE_FRACTION · r` per move this frame.
    pub capped: bool,
}

/// The substeps of the frame starting at `frame`.
pub fn choose(
    scene: &Scene,
    p: &Params,
    liquid: &LiquidParticles,
    emitters: &[Emitter],
    frame: i32,
) -> Choice {
    let s = &scene.settings;
    let frame_dt = s.frame_dt();
    let speed = fastest_liquid(liquid)
        .max(fastest_surface(scene, frame))
        .max(fastest_emission(emitters, s.fps, frame))
        + s.gravity.length() * frame_dt;
    let per_substep = s.moves as f32 * MOVE_FRACTION * p.radius;
    let for_speed = ceil_count(speed * frame_dt / per_substep);
    let for_adhesion = ceil_count(stiffest_adhesion(p).sqrt() * frame_dt / ADHESION_OMEGA_DT);
    let wanted = for_speed.max(for_adhesion).max(s.substeps);
    Choice {
        substeps: wanted.min(s.max_substeps),
        speed,
        capped: wanted > s.max_substeps,
    }
}

/// ⌈x⌉ as a count, at least 1 (and saturating for huge or non-finite values).
fn ceil_count(x: f32) -> u32 {
    if x.is_nan() {
        return 1;
    }
    (x.ceil().min(u32::MAX as f32) as u32).max(1)
}

/// The largest liquid speed (non-finite velocities are skipped: the frame's end reports them).
fn fastest_liquid(liquid: &LiquidParticles) -> f32 {
    liquid
        .velocity
        .par_iter()
        .map(|v| v.length_squared())
        .filter(|s| s.is_finite())
        .reduce(|| 0.0, f32::max)
        .sqrt()
}

/// The largest speed of a moving obstacle's or emitter's vertices over the frame, from their
/// poses at `substeps + 1` instants (a surface point moves as a blend of its triangle's
/// vertices, so no point of it is faster than the fastest vertex).
fn fastest_surface(scene: &Scene, frame: i32) -> f32 {
    let s = &scene.settings;
    let steps = s.substeps.max(1);
    let step_seconds = s.frame_dt() / steps as f32;
    let mut fastest = 0.0f32;
    for object in &scene.objects {
        let reads_motion = matches!(object.role, Role::Obstacle { .. } | Role::Emitter { .. });
        if !reads_motion || matches!(object.motion, Motion::Static { .. }) {
            continue;
        }
        let at = |k: u32| {
            let t = frame as f64 + k as f64 / steps as f64;
            geometry::world_vertices(&object.mesh, &object.motion, t as f32)
        };
        let mut before = at(0);
        for k in 1..=steps {
            let after = at(k);
            for (a, b) in before.iter().zip(&after) {
                fastest = fastest.max(a.distance(*b) / step_seconds);
            }
            before = after;
        }
    }
    fastest
}

/// The largest exit speed of the emitters pouring during the frame.
fn fastest_emission(emitters: &[Emitter], fps: f32, frame: i32) -> f32 {
    emitters
        .iter()
        .filter_map(|e| e.exit_speed_during(frame as f64, frame as f64 + 1.0, fps))
        .fold(0.0, f32::max)
}

/// The stiffest adhesion any liquid particle can feel, 1/s²: the steepest slope of the
/// functions between liquids (doubled: both ends of the pair move) and between a liquid and
/// a solid, at or beyond their contact distances.
fn stiffest_adhesion(p: &Params) -> f32 {
    let nl = p.liquid_mass.len();
    let r = p.radius;
    let liquid_contact = p.liquid_contact / r;
    let object_contact = p.object_contact / r;
    let mut stiffest = 0.0f32;
    for a in 0..nl {
        for b in 0..p.adhesion.size {
            let f = p.adhesion.get(a, b);
            let k = if b < nl {
                2.0 * steepest_slope(f, liquid_contact)
            } else {
                steepest_slope(f, object_contact)
            };
            stiffest = stiffest.max(k / r);
        }
    }
    stiffest
}

/// The steepest |slope| of `f` (acceleration per particle radius) over distances from `from`
/// radii outwards.
fn steepest_slope(f: &AdhesionFunction, from: f32) -> f32 {
    f.points
        .windows(2)
        .filter(|w| w[1][0] > from && w[1][0] > w[0][0])
        .map(|w| ((w[1][1] - w[0][1]) / (w[1][0] - w[0][0])).abs())
        .fold(0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slopes_count_only_beyond_contact() {
        let lj = AdhesionFunction::lennard_jones_like(0.6);
        // The repulsive ramp (1..2 radii, slope 6) lies inside the contact distance.
        assert!((steepest_slope(&lj, 2.0) - 1.0).abs() < 1e-6);
        assert!((steepest_slope(&lj, 0.0) - 6.0).abs() < 1e-6);
        assert_eq!(steepest_slope(&AdhesionFunction::zero(), 0.0), 0.0);
    }

    #[test]
    fn counts_round_up_and_never_vanish() {
        assert_eq!(ceil_count(0.0), 1);
        assert_eq!(ceil_count(3.01), 4);
        assert_eq!(ceil_count(f32::NAN), 1);
        assert_eq!(ceil_count(f32::INFINITY), u32::MAX);
    }
}
