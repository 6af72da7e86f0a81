//! Iterative density correction (Steele et al. 2004, "Volume Preservation").
//! Obstacle particles count towards density (see `OBSTACLE_DENSITY_WEIGHT`) and push the
//! liquid away from them, but never move.
//!
//! ρ_i = Σ_j w(d_ij) over liquid neighbours, with w Steele's linear ramp and ρ0 the value in
//! the initial 2r lattice. A compressed particle pushes its neighbours apart along the lines
//! joining them by c·(ρ_i − ρ0)/|ρ'_i| (a damped Newton step, |ρ'_i| = n_i·|w'|); corrections
//! are gathered and applied together, and repeated until the largest compression is within
//! tolerance. Beyond the paper, each pass adds momentum from the previous one
//! (`heavy_ball.rs`), so tall liquid converges in far fewer passes, and the last pass is cut
//! where the tolerance is met (`last_pass.rs`).
//!
//! One change from the paper: at a free surface the correction is one-sided (only compression
//! pushes). The paper instead scales the density of particles with fewer than 26 neighbours
//! by 26/n so surface particles are not mistaken for under-dense ones; at rest that scaling
//! reads a flat surface as 13% over-dense and pushes it outward. Inside the liquid, a particle
//! more than `tension::TENSION_BAND` under-dense pulls its neighbours in (`tension.rs`): the
//! liquid carries tension, so a stretched thread narrows instead of tearing.
//!
//! The velocity takes up each correction over the substep (v += Δx/δt), so liquid held up by
//! the correction stops falling into itself instead of building up speed.
//!
//! Each substep starts from a share of the last one's correction (`CARRY`): what held the
//! liquid up a substep ago mostly still does, so the passes only find the difference. A
//! correction that runs long (past `TAIL_AFTER_PASSES`, or past `EARLY_TAIL_AFTER_PASSES`
//! while still far from its tolerance) is lifting whole columns, which the passes do a
//! kernel support at a time: it takes one coarse step on a grid instead (`lift.rs`), and
//! more momentum from then on.
//!
//! What was tried and not adopted, and how a resting tank came to rest, is written up in
//! `density_notes.md` beside this file.

use std::time::Duration;

use glam::{Vec3, Vec3A};
use rayon::prelude::*;

use super::moves;
use super::neighbourhoods::Neighbourhoods;
use super::neighbours::{each_neighbour, Row};
use super::objects::ObjectParticles;
use super::params::Params;
use super::phases::timed;
use super::rigid::reactions::{self, Taken, NO_BODY};
use super::LiquidParticles;

mod eight_lanes;
mod heavy_ball;
mod last_pass;
mod lift;
mod tension;

use tension::Place;
pub(crate) use tension::TENSION_BAND;

use heavy_ball::Momentum;
pub use heavy_ball::{EARLY_TAIL_AFTER_PASSES, TAIL_AFTER_PASSES};
use last_pass::{cut_last_pass, LastPass};

/// Weight of an obstacle particle in a liquid particle's density. Obstacles are one layer of
/// particles standing in for the liquid that would continue beyond the wall; without them,
/// liquid against a wall reads as a free surface and packs ever tighter under its own weight.
/// At 2r sampling one wall layer gives about 0.4 of the missing lattice neighbours' weight.
const OBSTACLE_DENSITY_WEIGHT: f32 = 1.0;

pub struct DensityOutcome {
    pub iterations: u32,
    /// Largest ρ/ρ0 − 1 over liquid particles after the last pass (0 if none is compressed),
    /// or an interior particle's deficit beyond the tension band if that is larger.
    pub max_error: f32,
    pub pairs_visited: u64,
    /// Time spent keeping the neighbour lists exact between passes.
    pub list_upkeep: Duration,
}

/// Positions as 16-byte vectors, so the passes' pair loops read each neighbour with one load
/// and subtract in SIMD (the same operations per component, so the same bits). The copy is
/// the pass's own, made once per pass at a sweep's cost, so the particles keep their 12-byte
/// positions everywhere else, the viscosity solve's memory peak included. Measured
/// (alternating binaries, two rounds): a 30k honey block (`examples/honey_drop_bench.rs 34
/// 34 26 5`) 1.08/1.04 → 1.04/0.99 s per frame; the honey drop's frames 2-13 2.22/2.26 →
/// 2.18/2.21 s.
fn aligned(x: &[Vec3]) -> Vec<Vec3A> {
    x.par_iter().map(|&x| x.into()).collect()
}

/// What a pass reads its positions from: the liquid's, copied at the pass's start, and the
/// walls', copied once per correction (obstacles do not move during it).
struct Positions<'a> {
    liquid: Vec<Vec3A>,
    walls: &'a [Vec3A],
}

impl<'a> Positions<'a> {
    fn of(liquid: &LiquidParticles, walls: &'a [Vec3A]) -> Self {
        Positions {
            liquid: aligned(&liquid.position),
            walls,
        }
    }
}

/// What a pass measures of one liquid particle.
struct Measured {
    /// What the tolerance judges: ρ/ρ0 − 1 where positive, an interior particle's deficit
    /// beyond the tension band (1 − band − ρ/ρ0) where that is, else 0.
    error: f32,
    /// ρ/ρ0 − 1 where positive, else 0: what a lift undoes.
    compression: f32,
    /// The Newton step size.
    step: f32,
}

/// Each liquid particle's error, compression and Newton step size.
fn measure(p: &Params, x: &Positions, lists: &Neighbourhoods, places: &[Place]) -> Vec<Measured> {
    (0..x.liquid.len())
        .into_par_iter()
        .map(|i| measure_one(p, x, lists, i, places[i]))
        .collect()
}

/// Particle i's error, compression and Newton step size: a push where it is compressed, a pull
/// (a negative step) where it is inside the liquid and stretched beyond the tension band.
fn measure_one(
    p: &Params,
    x: &Positions,
    lists: &Neighbourhoods,
    i: usize,
    place: Place,
) -> Measured {
    let xi = x.liquid[i];
    let (liquid_only, liquid_slope2) = density_sums(p, xi, &x.liquid, lists.near.list.of(i));
    let (walls, walls_slope2) = density_sums(p, xi, x.walls, lists.objects.of(i));
    let rho = liquid_only + OBSTACLE_DENSITY_WEIGHT * walls;
    let slope2 = liquid_slope2 + OBSTACLE_DENSITY_WEIGHT * walls_slope2;
    let stretched_to = p.rest_density * (1.0 - tension::TENSION_BAND);
    let surface_to = p.rest_density * tension::STANDING_OFF;
    let excess = if rho > p.rest_density {
        rho - p.rest_density
    } else if place == Place::Interior && rho < stretched_to {
        rho - stretched_to
    } else if place == Place::Surface && rho < surface_to {
        rho - surface_to
    } else {
        0.0
    };
    let step = if slope2 > 0.0 {
        p.elastic_coefficient * excess / slope2
    } else {
        0.0
    };
    // The stopping criterion is the paper's density (liquid neighbours only): a particle
    // wedged into a corner may not reach ρ0 with the walls counted, and must not keep
    // every other particle iterating.
    let compression = (liquid_only - p.rest_density).max(0.0) / p.rest_density;
    // A surface particle's pull back (`tension::STANDING_OFF`) rides on the passes the
    // compression and the interior's tension ask for, and asks for none itself: a particle
    // standing off a thin strand may not reach it at all.
    let tension = if place == Place::Interior {
        (stretched_to - rho).max(0.0) / p.rest_density
    } else {
        0.0
    };
    Measured {
        error: compression.max(tension),
        compression,
        step,
    }
}

/// Σ w(d) and Σ |w'(d)|² over the particles `near` lists among `others`, seen from `xi`: a
/// particle's density and its slope's square, from squared distances (no square roots in the
/// hot loop), eight neighbours at a time (`eight_lanes`).
#[inline(always)]
fn density_sums(p: &Params, xi: Vec3A, others: &[Vec3A], near: Row) -> (f32, f32) {
    eight_lanes::density_sums(&p.space, &p.density_kernel, xi, others, near)
}

/// The most one lift moves a particle: it stays a step the passes could have taken, and
/// the stops at obstacles that follow it see no particle tunnel.
const LIFT_LIMIT_RADII: f32 = 1.0;

/// The share of the last substep's summed Newton steps that starts each correction, as one
/// push before the passes (a decaying carry: a step that is no longer needed is gone within
/// a frame, 0.7⁴ = 0.24 of it after four substeps). Gravity sinks a resting liquid g·δt²
/// into its floor every substep, and without the carry the passes lift a column of n layers
/// back from nothing each time, in passes that grow with n. Measured against no carry
/// (`examples/frame_profile.rs`, `examples/honey_drop_bench.rs`, one run each, alternating):
/// the honey drop's first 12 frames took 427 → 267 passes and 10% less time, the fan's
/// first 7 frames 1,141 → 840 passes and 16% less, and the 100k-particle honey block
/// 9.15 → 6.73 s per frame (−26%). 0.8 was faster still (−16%, −23%, −35%) and 0.6 slower
/// (−8% on the honey drop).
///
/// The price is noise at rest: a carried step is a guess, and the passes stop as soon as
/// the guess and their corrections are within tolerance together. Over seven radii within
/// ±1.2% of the resting tank's 5 mm, the RMS speed over the 10 s window was 2.9-5.9e-4 m/s
/// at 0.7 (0.8: 3.2-7.0e-4; 0.6: 2.0-3.8e-4; no carry: 1.9-2.9e-4 over 17 radii), against
/// a limit of 8.9e-4; the worst single frame 1.1-2.5e-3 (no carry: 5.9e-4-1.2e-3). The
/// carried steps persist across frames, so a frame file stores them and a resumed bake
/// continues bit-identically (`cache::particles`).
///
/// Measured again at `6cd3ece` (the same seven radii, `examples/rest_probe.rs RADIUS 10 10 8
/// 2 10`; `gloop bench --frames 10`, alternating binaries), the limit still binds: 0.7 gave
/// 3.1-5.8e-4 m/s over the window; 0.75 gave 3.3-7.0e-4, for a honey drop 0.134/0.122 →
/// 0.118/0.117 s per frame (5.8 → 5.5 passes per substep) and no gain on the fan; 0.8 went
/// over the limit at two radii (9.5e-4 and 9.7e-4 at 4.96 and 4.98 mm). Not changed: 5% on
/// one demo was not worth a resting tank a fifth noisier.
const CARRY: f32 = 0.7;

/// One correction pass over all liquid particles (positions only). Returns the largest error
/// measured before the pass (`Measured::error`); the pass is skipped when that is within
/// tolerance.
#[allow(clippy::too_many_arguments)]
fn pass(
    p: &Params,
    liquid: &mut LiquidParticles,
    moved: &mut [Vec3],
    objects: &ObjectParticles,
    walls: &[Vec3A],
    lists: &Neighbourhoods,
    places: &mut Option<Vec<Place>>,
    momentum: &mut Momentum,
) -> f32 {
    let x = Positions::of(liquid, walls);
    let places = places.get_or_insert_with(|| tension::places(p, &x, lists));
    let measured = measure(p, &x, lists, places);
    let max_error = measured.iter().map(|m| m.error).fold(0.0, f32::max);
    if max_error <= p.density_tolerance {
        return max_error;
    }
    if momentum.entering_tail(p, max_error) {
        let compression: Vec<f32> = measured.iter().map(|m| m.compression).collect();
        if let Some(dx) = lift_displacements(p, liquid, walls, &compression) {
            moves::shift(liquid, moved, &dx);
            momentum.lifted(max_error);
            return max_error;
        }
    }
    let mut step: Vec<f32> = measured.into_iter().map(|m| m.step).collect();
    momentum.add_to(p, &mut step, max_error);
    push(p, liquid, moved, &x, lists, &step, objects);
    momentum.pushed(step, max_error);
    max_error
}

/// A correction entering its tail (`Momentum::entering_tail`) lifts the liquid once
/// on a coarse grid (`lift.rs`) instead of pushing: what is left by then is the smooth
/// compression of whole columns, which the grid undoes at once and the passes only a
/// kernel support per pass. Measured on a 100k honey block's five frames
/// (`examples/honey_drop_bench.rs 50 50 40 5`): 559 passes without, 385 with (3.8 → 3.15
/// s/frame). A resting column of 30 layers (`examples/rest_probe.rs 0.005 10 10 30 2 10`),
/// whose substeps nearly all reach the tail, came to rest better: RMS speed over the window
/// 1.53e-3 → 0.87e-3 m/s (limit 1.7e-3), volume drift 1.0e-3 → 1.3e-3 (limit 5e-3).
///
/// Tried and not adopted: the lift taken 1.5, 2 or 3 times (325, 305 and 294 passes on
/// the block, but the column less still, 1.13e-3 and 1.00e-3 m/s at 1.5 and 2, and its
/// volume drifting 1.7e-3 and 2.1e-3); lifting again every 8 or 4 passes of the tail (386
/// and 367 passes, and the column churned: 5.0e-3 and 9.1e-3 m/s).
///
/// Each displacement is at most `LIFT_LIMIT_RADII`. `None` in a periodic domain (the grid
/// has no wrap) or for liquid too spread out for a grid.
fn lift_displacements(
    p: &Params,
    liquid: &LiquidParticles,
    walls: &[Vec3A],
    compression: &[f32],
) -> Option<Vec<Vec3>> {
    if p.space.is_periodic() {
        return None;
    }
    let cell = p.density_kernel.support;
    let u = lift::displacements(&liquid.position, compression, walls, cell)?;
    let limit = LIFT_LIMIT_RADII * p.radius;
    Some(
        u.into_par_iter()
            .map(|u| u.clamp_length_max(limit))
            .collect(),
    )
}

/// Moves the particles apart by their Newton steps, each pair along its line by the sum of
/// its two steps, and each particle away from the walls in its density by its own.
fn push(
    p: &Params,
    liquid: &mut LiquidParticles,
    moved: &mut [Vec3],
    x: &Positions,
    lists: &Neighbourhoods,
    step: &[f32],
    objects: &ObjectParticles,
) {
    // One pass never moves a particle more than half a radius: a violent impact could
    // otherwise throw it past an obstacle's shell of object particles in one step.
    let limit = 0.5 * p.radius;
    let limited = |i: usize| {
        let (dx, body, from_body) = push_one(p, x, lists, step, objects, i);
        let clamped = dx.clamp_length_max(limit);
        // The limit scales the bodies' share with the rest (`rigid::reactions`).
        let scale = if clamped == dx {
            1.0
        } else {
            clamped.length() / dx.length()
        };
        (clamped, (body, from_body * (scale / p.dt)))
    };
    let correction: Vec<Vec3> = if objects.has_bodies() {
        let (correction, taken): (Vec<Vec3>, Vec<Taken>) =
            (0..liquid.len()).into_par_iter().map(limited).unzip();
        objects.record(p, liquid, &taken);
        correction
    } else {
        (0..liquid.len())
            .into_par_iter()
            .map(|i| limited(i).0)
            .collect()
    };
    moves::shift(liquid, moved, &correction);
}

/// How far particle i's pairs and walls push it (before the pass's limit), and the part of
/// that the walls of one rigid body push, with that body (`NO_BODY` if none).
fn push_one(
    p: &Params,
    x: &Positions,
    lists: &Neighbourhoods,
    step: &[f32],
    objects: &ObjectParticles,
    i: usize,
) -> (Vec3, u32, Vec3) {
    let w = &p.density_kernel;
    let xi = x.liquid[i];
    let mut dx = eight_lanes::pair_push(&p.space, w, i, &x.liquid, lists.near.list.of(i), step);
    let (mut body, mut from_body) = (NO_BODY, Vec3A::ZERO);
    // Looked up once: without bodies the inner loop reads no body index per wall.
    let bodies = objects.has_bodies();
    // The walls in i's density push i away from them, as boundary particles do in
    // position-based fluids. Without this a wall's weight only enlarged i's step, whose
    // pushes on its liquid neighbours drove i itself into the wall, where the stops and the
    // adhesion's repulsion sent it back: a particle against a wall could shuttle at 1-2 cm/s
    // for seconds without going anywhere.
    if step[i] > 0.0 {
        each_neighbour!(k in lists.objects.of(i) => {
            let d = p.space.delta_aligned(xi, x.walls[k as usize]);
            let s = OBSTACLE_DENSITY_WEIGHT * step[i];
            let term = d * (s * w.slope_over_distance_sq(d.length_squared()));
            dx += term;
            if bodies && objects.body_of(k as usize) != NO_BODY {
                body = objects.body_of(k as usize);
                from_body += term;
            }
        });
    }
    (Vec3::from(dx), body, Vec3::from(from_body))
}

/// Corrects until the largest compression is within tolerance (or the iteration cap).
///
/// The last pass is taken only as far as it is needed (`cut_last_pass`). A whole last pass
/// lifts all the liquid it holds up, however little it was needed, so a resting tank whose
/// passes stopped one short or one over from substep to substep rose and sank by 1e-5 m
/// (±1e-3 m/s) with the pass count; cut at the tolerance, one pass more or less changes the
/// end state continuously.
pub fn correct(
    p: &Params,
    liquid: &mut LiquidParticles,
    moved: &mut [Vec3],
    objects: &ObjectParticles,
    lists: &mut Neighbourhoods,
) -> DensityOutcome {
    let mut outcome = DensityOutcome {
        iterations: 0,
        max_error: 0.0,
        pairs_visited: 0,
        list_upkeep: Duration::ZERO,
    };
    let mut momentum = Momentum::default();
    // Which particles are inside the liquid, decided at the first pass (`tension.rs`).
    let mut places = None;
    // The displacements before this pass and before the last one that moved the liquid (two
    // buffers, swapped, rather than a copy allocated per pass), and the largest compression
    // then.
    let mut before_this_pass = Vec::with_capacity(moved.len());
    let mut before_last_pass = Vec::with_capacity(moved.len());
    let mut error_before_last_pass = None;
    // The rigid bodies' impulses recorded before each of those (the last pass's share is cut
    // back with it).
    let mut recorded_before_this_pass;
    let mut recorded_before_last_pass = Vec::new();
    let walls = aligned(&objects.position);
    let mut summed_steps = push_carried_steps(
        p,
        liquid,
        moved,
        objects,
        &walls,
        lists,
        &mut outcome.list_upkeep,
    );
    loop {
        timed(&mut outcome.list_upkeep, || {
            lists.refresh_for_density(p, &liquid.position)
        });
        before_this_pass.clear();
        before_this_pass.extend_from_slice(moved);
        // Without bodies there is nothing recorded to keep: no lock, no copy per pass.
        recorded_before_this_pass = match objects.has_bodies() {
            true => objects.recorded(),
            false => Vec::new(),
        };
        let max_error = pass(
            p,
            liquid,
            moved,
            objects,
            &walls,
            lists,
            &mut places,
            &mut momentum,
        );
        outcome.max_error = max_error;
        outcome.pairs_visited += lists.near.list.pair_count();
        if max_error <= p.density_tolerance {
            if let Some(error_before) = error_before_last_pass {
                // This pass measured and did not move: the liquid stands where the last one
                // (and its stops) left it.
                let last = LastPass {
                    before: before_last_pass,
                    after: before_this_pass,
                    error_before,
                    error_after: max_error,
                };
                let (error, measures, kept) = cut_last_pass(p, liquid, moved, lists, last);
                if objects.has_bodies() {
                    let after = &recorded_before_this_pass;
                    let cut = reactions::slide(&recorded_before_last_pass, after, kept);
                    objects.set_recorded(cut);
                }
                outcome.max_error = error;
                outcome.pairs_visited += measures as u64 * lists.near.list.pair_count();
            }
            break;
        }
        std::mem::swap(&mut before_this_pass, &mut before_last_pass);
        std::mem::swap(
            &mut recorded_before_this_pass,
            &mut recorded_before_last_pass,
        );
        error_before_last_pass = Some(max_error);
        // The pass's steps, momentum included, as pushed. (The last pass counts whole,
        // though it is then cut: the carry was measured so.)
        summed_steps
            .par_iter_mut()
            .zip(momentum.last_step())
            .for_each(|(sum, step)| *sum += step);
        outcome.iterations += 1;
        // The pass knows nothing of obstacles' hardness: they have the last word.
        moves::stop_at_obstacles(p, liquid, moved, objects, lists, 0.0);
        if outcome.iterations >= p.max_density_iterations {
            break;
        }
    }
    liquid.density_steps = summed_steps;
    outcome
}

/// Pushes the liquid by `CARRY` of the steps the last substep's correction summed (none at
/// a bake's start, or for particles that joined since: an emitter's are zero), then stops
/// it at the obstacles. Returns that push's steps, from which this substep's sum starts.
/// The time its lists' refresh takes is added to `list_upkeep`.
fn push_carried_steps(
    p: &Params,
    liquid: &mut LiquidParticles,
    moved: &mut [Vec3],
    objects: &ObjectParticles,
    walls: &[Vec3A],
    lists: &mut Neighbourhoods,
    list_upkeep: &mut Duration,
) -> Vec<f32> {
    let mut carried = std::mem::take(&mut liquid.density_steps);
    // Nothing carried and all zero are one case (a frame file stores no carry as zeros).
    if carried.len() != liquid.len() || carried.iter().all(|&s| s == 0.0) {
        return vec![0.0; liquid.len()];
    }
    carried.par_iter_mut().for_each(|s| *s *= CARRY);
    timed(list_upkeep, || {
        lists.refresh_for_density(p, &liquid.position)
    });
    let x = Positions::of(liquid, walls);
    push(p, liquid, moved, &x, lists, &carried, objects);
    moves::stop_at_obstacles(p, liquid, moved, objects, lists, 0.0);
    carried
}
