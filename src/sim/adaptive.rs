//! Adaptive substeps: how many substeps a frame takes, chosen at its start.
//!
//! Three bounds, the largest wins, within the scene's `substeps ..= max_substeps`:
//!
//! - **Speed (CFL).** No particle may move more than `MOVE_FRACTION · r` in one move, or it can
//!   jump past an obstacle's particles (or a liquid neighbour) between two contact checks. The
//!   fastest thing in the frame is taken as the largest of the liquid's speeds, the moving
//!   obstacles' and emitters' surface speeds, and the emitters' exit speeds, plus what
//!   gravity adds over the frame (|g|/fps): `n = ⌈v · (1/fps) / (moves · MOVE_FRACTION · r)⌉`.
//! - **Adhesion.** The adhesion matrix is an explicit spring; it stays stable while
//!   `ω·δt ≤ ADHESION_OMEGA_DT` with `ω` from the stiffest slope any pair can act on at or
//!   beyond its contact distance (contacts keep pairs no closer than that).
//! - **Stretch.** While an emitter pours, its throat holds liquid at the exit speed
//!   (`Emitter::throat`) and the stream hangs from it: within one substep the free liquid
//!   gains g·δt of speed and moves g·δt² further than the held liquid before the implicit
//!   viscosity (at the next substep's start) and the density correction's tension (at this
//!   one's end) can answer. That stretch of the 2r spacing must stay within the
//!   under-density the correction lets stand before it pulls, `density::TENSION_BAND`:
//!   g·δt² ≤ TENSION_BAND · 2r, so `n = ⌈(1/fps) · √(g / (2r · TENSION_BAND))⌉`
//!   (see `STRETCH_PER_SUBSTEP` for the measurements). Liquid hanging from a surface it
//!   sticks to is held by adhesion rather than by a throat, and is not bounded so: the
//!   bound was measured on pours only (`timestep_notes.md`), and applied to every scene it
//!   would nearly double the honey drop's substeps (8 at r = 1 mm, 24 fps, against the 5
//!   its adhesion bound asks).
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

/// The largest stretch of the 2r spacing that gravity may make in one substep between held
/// and hanging liquid, g·δt² / 2r: the correction's own tension band, the under-density it
/// lets stand before it pulls. Measured on a pour next to `honey-pour` (nozzle radius
/// 3.5 mm, 8 mL/s, 7 cm high, r = 0.5 mm, 96 fps, 6 moves; `examples/step_probe.rs`; the
/// table is in `src/sim/timestep_notes.md`): the thread broke just below the nozzle's held
/// throat (gaps of 22r) at 2 substeps a frame (g·δt² = 0.53r, a stretch of 0.27), and held
/// at 3 (0.12) and 4 (0.07). It broke only when both the viscosity solve and the density
/// correction ran at the 2-substep step: either of them at the 4-substep step, the other
/// kept at 2, held it. (The physical stretch rate there, measured from the particles'
/// velocities at frame starts, was only 14-27/s, 0.07-0.14 per substep at 2 substeps: the
/// tear comes from the split, not from the flow outrunning the step.)
pub const STRETCH_PER_SUBSTEP: f32 = crate::sim::density::TENSION_BAND;

/// Which bound set a frame's substeps.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Bound {
    /// The scene's minimum: no bound asked for more.
    #[default]
    Floor,
    /// The fastest particle's move (CFL).
    Speed,
    /// The adhesion spring's stability.
    Adhesion,
    /// How fast the liquid is stretched.
    Stretch,
}

impl Bound {
    /// The name status files, stats lines and benchmarks show.
    pub fn name(self) -> &'static str {
        match self {
            Bound::Floor => "floor",
            Bound::Speed => "speed",
            Bound::Adhesion => "adhesion",
            Bound::Stretch => "stretch",
        }
    }
}

/// "stretch 8, speed 2": each bound among `bounds` (one per frame) and how many frames it
/// set, most first (ties in the order the frames met them).
pub fn set_by_summary(bounds: impl IntoIterator<Item = Bound>) -> String {
    let mut counts: Vec<(Bound, u32)> = Vec::new();
    for bound in bounds {
        match counts.iter_mut().find(|(b, _)| *b == bound) {
            Some((_, n)) => *n += 1,
            None => counts.push((bound, 1)),
        }
    }
    counts.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
    let named: Vec<String> = counts
        .iter()
        .map(|(b, n)| format!("{} {n}", b.name()))
        .collect();
    named.join(", ")
}

/// Why a frame takes the substeps it does.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Choice {
    /// The substeps the frame takes.
    pub substeps: u32,
    /// The speed the bound was taken from, m/s (gravity's gain over the frame included).
    pub speed: f32,
    /// The bound that asked for the most substeps (`Floor` when none asked for more than the
    /// scene's minimum).
    pub bound: Bound,
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
    let for_stretch = if pouring(emitters, s.fps, frame) {
        ceil_count(frame_dt / longest_unstretched_step(s.gravity.length(), p.radius))
    } else {
        1
    };
    let (mut wanted, mut bound) = (s.substeps, Bound::Floor);
    for (count, why) in [
        (for_speed, Bound::Speed),
        (for_adhesion, Bound::Adhesion),
        (for_stretch, Bound::Stretch),
    ] {
        if count > wanted {
            (wanted, bound) = (count, why);
        }
    }
    Choice {
        substeps: wanted.min(s.max_substeps),
        speed,
        bound,
        capped: wanted > s.max_substeps,
    }
}

/// The longest substep whose gravity `g` (m/s²) stretches the spacing of particles of radius
/// `r` by at most `STRETCH_PER_SUBSTEP`: √(2r · STRETCH_PER_SUBSTEP / g). Infinite without
/// gravity.
fn longest_unstretched_step(g: f32, r: f32) -> f32 {
    (2.0 * r * STRETCH_PER_SUBSTEP / g).sqrt()
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

/// Whether an emitter pours during the frame (its throat then holds liquid).
fn pouring(emitters: &[Emitter], fps: f32, frame: i32) -> bool {
    emitters.iter().any(|e| {
        e.exit_speed_during(frame as f64, frame as f64 + 1.0, fps)
            .is_some()
    })
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
    fn gravity_stretches_the_spacing_by_the_band_per_substep() {
        let (g, r) = (9.81, 0.0005);
        let dt = longest_unstretched_step(g, r);
        assert!((g * dt * dt / (2.0 * r) - STRETCH_PER_SUBSTEP).abs() < 1e-6);
        // r = 0.5 mm at 96 fps: 2.66 substeps' worth, so 3.
        assert_eq!(ceil_count((1.0 / 96.0) / dt), 3);
        assert!(longest_unstretched_step(0.0, r).is_infinite());
    }

    #[test]
    fn summary_counts_each_bound_most_first() {
        use Bound::*;
        assert_eq!(
            set_by_summary([Speed, Stretch, Stretch, Floor]),
            "stretch 2, speed 1, floor 1"
        );
        assert_eq!(set_by_summary([]), "");
    }

    #[test]
    fn counts_round_up_and_never_vanish() {
        assert_eq!(ceil_count(0.0), 1);
        assert_eq!(ceil_count(3.01), 4);
        assert_eq!(ceil_count(f32::NAN), 1);
        assert_eq!(ceil_count(f32::INFINITY), u32::MAX);
    }
}
