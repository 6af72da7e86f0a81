//! Iterative density correction (Steele et al. 2004, "Volume Preservation").
//! Obstacle particles count towards density (see `OBSTACLE_DENSITY_WEIGHT`) and push the
//! liquid away from them, but never move.
//!
//! ρ_i = Σ_j w(d_ij) over liquid neighbours, with w Steele's linear ramp and ρ0 the value in
//! the initial 2r lattice. A compressed particle pushes its neighbours apart along the lines
//! joining them by c·(ρ_i − ρ0)/|ρ'_i| (a damped Newton step, |ρ'_i| = n_i·|w'|); corrections
//! are gathered and applied together, and repeated until the largest compression is within
//! tolerance. Beyond the paper, each pass adds momentum from the previous one (`MOMENTUM`), so
//! tall liquid converges in far fewer passes.
//!
//! One change from the paper: the correction is one-sided (only compression pushes). The paper
//! instead scales the density of particles with fewer than 26 neighbours by 26/n so surface
//! particles are not mistaken for under-dense ones; at rest that scaling reads a flat surface
//! as 13% over-dense and pushes it outward. Holding the liquid together is the adhesion
//! matrix's job (its Lennard-Jones-like cohesion), as in position-based fluids.
//!
//! The velocity takes up each correction over the substep (v += Δx/δt), so liquid held up by
//! the correction stops falling into itself instead of building up speed.
//!
//! Tried and measured, not adopted (the resting tank of `gloop validate rest-tank` is the
//! judge that each failed; it is the scene most sensitive to this module; the demos' figures
//! were taken when they still ran at elastic coefficient 0.3):
//! - Carrying each particle's summed multiplier ("pressure") to the next substep, applied as a
//!   first pass and given back where it over-pushes: a third of the passes at rest, but an
//!   integral controller that bounces. Resting RMS speed 0.7–3e-2 m/s (2.7e-3 without), and
//!   more passes on the honey drop (13.7 → 22 per substep).
//!   Again at elastic coefficient 0.5, as a decaying carry: a first pass with 0.8 of the
//!   previous substep's summed steps (those carried in the particles across frames, which a
//!   resumed bake would need in its frame files), then passes to tolerance as usual. Passes
//!   per substep fell on every demo (honey drop 8.7 → 4.8, fan 9.5 → 7.8; 10-15% faster),
//!   and tall liquid finally converged: a 100k-particle honey block dropped on a plate
//!   (`examples/honey_drop_bench.rs`) ended its capped frames 1-3.5% compressed instead of
//!   3-13%, and resting columns of 16 and 30 layers reached 1.02-1.06% instead of 3.3-3.4%.
//!   But the carried steps feed their own noise back: the 8-layer resting tank's median
//!   frame RMS speed rose 1.0e-3 → 1.6e-3 m/s (0.5 of the steps: 2.2e-3; carried within a
//!   frame only: 7.3e-3), the 30-layer column's 4.3e-3 → 1.2e-2. Smoothing the carried
//!   steps over the neighbours (one or three Shepard rounds) did not lower it (1.3-2.1e-3),
//!   nor did applying them as a velocity before the moves, where the viscosity solve sees
//!   them (2.0-4.1e-3).
//! - A pressure solve before the moves, as IISPH and DFSPH do: the same pushes, solved by
//!   projected Jacobi (steps ≥ 0, so an over-push is given back) for the densities the
//!   substep's velocities predict (linearised at the substep's start), warm-started from the
//!   steps carried in the particles, and applied as a velocity change. (The prototype is on
//!   the branch `experiment/pressure-solve`.) With the walls weighted as here it held up only
//!   a third of a resting column's sink, because the floor's contact distance, not the
//!   density, decides where the bottom layer stands; weighted 1.5-2.1 it held it all, and the
//!   8-layer tank's passes fell 17 → 2.3-4.7 per substep, its run time 16.8 → 7-10 s. But the
//!   moves' contacts still left the layers above the floor up to 5.5% compressed, and the
//!   median frame's RMS speed was 0.8-1.7e-3 m/s over eight runs (worst 2.6-4.3e-3). On the
//!   honey drop the solve sat at its iteration cap (10-30) while saving a quarter of the
//!   passes: frames 0.28 → 0.34-0.53 s. Next step, if any: solve the wall contacts as
//!   constraints of the same system instead of as weighted density.
//! - One Gauss-Seidel sweep before the passes, bottom to top along gravity, each compressed
//!   particle moving itself (its lower neighbours already placed) to its rest density, so a
//!   resting column's sink is undone in one sweep, as shock propagation stacks rigid bodies
//!   (branch `experiment/bottom-up-sweep`): the resting tank churned at 0.10-0.12 m/s, since
//!   a particle moving alone goes sideways wherever its neighbourhood is lopsided (walls,
//!   surface), and no momentum is conserved.
//! - Pushing only what exceeds a threshold inside the tolerance (ρ > ρ0·(1 + α·tol), α 0.5
//!   or 0.8) instead of all compression, so the passes stop nearer their own fixed point and
//!   the lift of one pass more or less shrinks: the resting tank's median RMS speed stayed
//!   at 1.0-1.1e-3, its worst frame rose to 4.8-6.6e-3, and the passes grew.
//! - Higher momentum only while the compression is large (0.85 above 3× the tolerance): honey
//!   drop 16% fewer passes and 7% faster, paint drops 13% fewer passes, but the resting tank
//!   jitters 35% faster. Every substep at rest starts 15–16% compressed at the floor (gravity
//!   moves the liquid g·δt² ≈ 0.2 r into it), which is as large as most impacts' starts.
//! - Newton steps on C = ρ − ρ0 whose linear systems (K Kᵀ μ = C, K = ∇C, walls included)
//!   are solved by diagonally preconditioned CG, warm-started from the previous substep's μ
//!   (at elastic coefficient 0.5; the prototype was not kept, this is its outline). With
//!   the compressed particles alone as the active set, each Newton step only lifts the next
//!   layer of a column (the active set grows a layer at a time): 8–13 Newton steps of ~20 CG
//!   iterations per resting substep. Keeping every particle above 0.95 ρ0 active (target
//!   max(C, 0)) needs negative μ (tension) for 40% of them, and Newton still crawls, because
//!   `stop_at_obstacles` undoes part of every step: without it Newton converged in 2 steps
//!   (largest compression 0.30 → 0.04 → 0.005) but still took ~38 CG iterations, each two
//!   sweeps — about twice the sweeps of today's 16–19 passes — and the warm start raised the
//!   first residual instead of lowering it
//!   (each substep's compression comes from the moves' contacts as much as from gravity).
//!   With the obstacle stops kept, the resting tank's RMS speed rose to 6.2e-3 m/s, and the
//!   honey drop's impact substeps, starting up to 80% compressed where the linearisation
//!   is poor, made its impact frames 3× slower.
//! - Replaying each particle's previous correction (its displacement over the passes) before
//!   the first pass, limited to undoing the substep's own motion (the replay projected on the
//!   way back to where the particle started, at most that far). Carried within a frame only,
//!   it saved nothing: each frame's first substep starts cold and sits at the pass cap on a
//!   tall block. Carried across frames (which a resumed bake would need in the frame files),
//!   a resting tank took 1–2 passes per frame instead of ~65, a 30k honey block dropped on a
//!   plate ran 1.75 → 1.35 s/frame and ended its impact within tolerance instead of 1.2–3.5%
//!   over. Not adopted: a replay holds up what it held up before even when the support has
//!   gone (nothing measures that it is still needed), so liquid can hang in the air; and the
//!   resting tank, frozen in the state its first frame's impact left, crept 1.1% in volume
//!   over the 10 s window (limit 0.5%). Replaying the whole displacement instead made the
//!   column climb (RMS speed 1.4e-2 m/s), and carrying multipliers instead of displacements,
//!   with or without a projected give-back, 3.1–3.6e-2.
//! - Two coarse-grid solves (branch `experiment/coarse-poisson`, cells of two lattice
//!   spacings, walls as closed faces, empty cells as the free surface), so that a column's
//!   lift is solved at once instead of carried a kernel radius per pass:
//!   - a Poisson lift before the passes: the compression splatted trilinearly onto the cells,
//!     −∇²ψ = e, every particle moved by −∇ψ interpolated at it. Half of that displacement
//!     cut the fan's passes 15.0 → 9.9 per substep, but the lift itself (a splat and an
//!     interpolation of 8 cells per particle) cost what it saved: fan 2.01 → 1.98–2.05
//!     s/frame, honey drop 0.247 → 0.26–0.27, heap 294 → 314 B/particle (`gloop bench`, two
//!     rounds). The resting tank ran 9.9 → 8.0 s but jittered more, median frame 1.0e-3 →
//!     1.5e-3 m/s (worst 4.5e-3); the whole lift 3.1e-3; cell means without the splat jump
//!     as particles change cell, 3.7–6.5e-3; a cell's positive parts alone (rather than its
//!     mean) read a tank at rest as compressed and inflated it 0.8–4.8%.
//!   - a pressure projection of the velocities before the moves, as FLIP does (MAC faces,
//!     the particles taking the grid's change): it cancels a resting column's g·δt in the mean
//!     (−0.105 → −0.0004 m/s), but at two particles per cell and axis the interpolation
//!     leaves each particle 0.8–1.2e-2 m/s of its own, ten times the limit: median frame
//!     4.7e-3, volume drift 5%.
//!
//! How a resting tank comes to rest (`gloop validate rest-tank`: RMS speed in every frame
//! under 1e-3·√(gH), 8.9e-4 m/s for its 8 cm of honey). Three things together, each
//! measured at r = 5 mm and at r ± 0.6% (`examples/rest_probe.rs`; the worst frame over
//! 10 s at the three radii):
//! - The implicit viscosity acts on the velocities a frame ends with
//!   (`Simulation::viscous_frame_end`). A substep's velocities are what its particles did,
//!   and the passes' displacements are in them: 1e-5 m per substep (0.1% of the spacing),
//!   mostly sideways, 1e-3 m/s. The next substep's solve damps them before anything moves,
//!   but a frame used to end with them undamped. Median frame 1.0e-3 → 1.5-3e-4 m/s, but
//!   the worst frames stayed at 1.0-1.4e-3.
//! - The last pass is cut at the tolerance (`correct`). In those worst frames the RMS speed
//!   was the liquid's mean vertical velocity, ±7e-4 m/s from substep to substep with the
//!   pass count (14, 15, 14, ...): each substep gravity sinks the liquid g·δt² (0.1
//!   spacing) into the floor and the passes lift it back, and a whole pass more lifted the
//!   column by 1e-5 m, however little of it was needed. Without the cut (and with the rest
//!   of this list) the worst frames were 1.0-1.7e-3.
//! - The walls push the liquid in the passes (`pass`). A wall's weight in a particle's
//!   density used to enlarge only its step, whose pushes on its liquid neighbours drove the
//!   particle itself into the wall, to be sent back by the stops and the adhesion: one
//!   particle against a wall shuttled at 2e-2 m/s for seconds, a frame's RMS 1.2e-3 alone.
//!
//! Together, at seven radii from r − 2% to r + 2%: worst frames 3.9-7.4e-4 m/s (limits
//! 8.8-8.9e-4), median frames 1.2-2.0e-4. Before: 3.25e-3 (median 1.0e-3).
//!
//! Tried on the way, and not the cause (median frame's RMS speed before the above, 1.0e-3):
//! - The noise grows with the work the passes do per substep, which is the column's height
//!   in layers: at r = 2.5 mm the same 8 cm of honey is 16 layers, and its median frame's
//!   RMS speed was 5.7e-3 m/s (within the 1% tolerance at the pass cap of 100; at the
//!   former 30 it ended each substep at the cap, 3.3% compressed, 6.5e-3); a 30-layer
//!   column at r = 5 mm (cap 30), 3.4% and 4.3e-3.
//! - Fixed pass counts (18, 24), momentum 0 or 0.25, tolerance 0.5% (all 0.8-1.5e-3); a
//!   tighter viscosity solve (CG tolerance 1e-5: 1.3e-3; a looser 1e-2 is worse, 5e-3); the
//!   walls' push alone (1.2e-3). A smaller contact distance makes it worse (1.9r: 1.9e-3,
//!   r: 2.8e-3). More substeps do not help either: at 8 per frame the median frame was
//!   0.93e-3 and the worst 4.3e-3 (3.2e-3 at 4).
//! - A divergence pass on the velocities after they are taken from the motion, as DFSPH
//!   follows its density solve with one: the same pushes as here, on the compression rate
//!   Σ_j |w'|·x̂_ij·(v_j − v_i) (walls at their velocities), to a tenth of the tolerance per
//!   substep. One-sided, each substep: median 1.6e-3, worst 4.1e-3 (1.6 passes per
//!   substep); to a hundredth: 1.4e-3, 4.6e-3; two-sided: 1.1e-3, 6.3e-3; only at a
//!   frame's last substep: 1.1-1.2e-3, worst 3.1-8.3e-3. The noise is not a compression
//!   rate that such a pass sees.
//! - Pushing each pair along its line at the substep's start (x − moved) instead of its
//!   current line, in the passes and the contacts, conserves angular momentum exactly
//!   (x_end = x_start + v·δt, so corrections central at the start positions exert no
//!   torque): the cohesive spinning blob's 4.6%/s gain became 0. But the resting tank
//!   doubled its jitter (median 2.5e-3 m/s), so it was not adopted.
//! - Solving the viscosity after the correction in every substep (see substep.rs) also
//!   damps the jitter, but costs 40-50% more time on the honey drop. Forcing at least 18
//!   passes, which ends the pass count's alternation, made the worst frames worse (2.2-2.5e-3:
//!   passes past the tolerance lift the column further). Smoothing only the correction's
//!   share of the velocity does not work: that share is what holds the liquid up (zero at
//!   the floor, g·δt above), and smoothing it let the tank sink at 7 cm/s.

use glam::Vec3;
use rayon::prelude::*;

use super::moves;
use super::neighbourhoods::Neighbourhoods;
use super::neighbours::{each_neighbour, Row};
use super::objects::ObjectParticles;
use super::params::Params;
use super::LiquidParticles;

/// Weight of an obstacle particle in a liquid particle's density. Obstacles are one layer of
/// particles standing in for the liquid that would continue beyond the wall; without them,
/// liquid against a wall reads as a free surface and packs ever tighter under its own weight.
/// At 2r sampling one wall layer gives about 0.4 of the missing lattice neighbours' weight.
const OBSTACLE_DENSITY_WEIGHT: f32 = 1.0;

pub struct DensityOutcome {
    pub iterations: u32,
    /// Largest ρ/ρ0 − 1 over liquid particles after the last pass (0 if none is compressed).
    pub max_error: f32,
    pub pairs_visited: u64,
}

/// Largest compression ρ/ρ0 − 1 over liquid particles, and each particle's Newton step size.
fn measure(
    p: &Params,
    liquid: &LiquidParticles,
    objects: &ObjectParticles,
    lists: &Neighbourhoods,
) -> (f32, Vec<f32>) {
    let w = &p.density_kernel;
    let steps: Vec<(f32, f32)> = (0..liquid.len())
        .into_par_iter()
        .map(|i| {
            let xi = liquid.position[i];
            // Weights and slopes from squared distances: no square roots in the hot loop.
            let accumulate = |others: &[Vec3], near: Row| {
                near.into_iter().fold((0.0f32, 0.0f32), |(rho, slope2), j| {
                    let d2 = p.space.delta(others[j as usize], xi).length_squared();
                    let g = w.slope_over_distance_sq(d2);
                    (rho + w.weight_sq(d2), slope2 + g * g * d2)
                })
            };
            let (liquid_only, liquid_slope2) = accumulate(&liquid.position, lists.near.list.of(i));
            let (walls, walls_slope2) = accumulate(&objects.position, lists.objects.of(i));
            let rho = liquid_only + OBSTACLE_DENSITY_WEIGHT * walls;
            let slope2 = liquid_slope2 + OBSTACLE_DENSITY_WEIGHT * walls_slope2;
            let excess = (rho - p.rest_density).max(0.0);
            let step = if slope2 > 0.0 {
                p.elastic_coefficient * excess / slope2
            } else {
                0.0
            };
            // The stopping criterion is the paper's density (liquid neighbours only): a particle
            // wedged into a corner may not reach ρ0 with the walls counted, and must not keep
            // every other particle iterating.
            (
                (liquid_only - p.rest_density).max(0.0) / p.rest_density,
                step,
            )
        })
        .collect();
    let max_error = steps.iter().map(|s| s.0).fold(0.0, f32::max);
    (max_error, steps.into_iter().map(|s| s.1).collect())
}

/// Largest compression ρ/ρ0 − 1 over liquid particles (`measure`'s first half, without the
/// steps): what the last pass's cut looks for.
fn largest_compression(p: &Params, liquid: &LiquidParticles, lists: &Neighbourhoods) -> f32 {
    let w = &p.density_kernel;
    (0..liquid.len())
        .into_par_iter()
        .map(|i| {
            let xi = liquid.position[i];
            let rho = lists.near.list.of(i).into_iter().fold(0.0f32, |rho, j| {
                let d2 = p
                    .space
                    .delta(liquid.position[j as usize], xi)
                    .length_squared();
                rho + w.weight_sq(d2)
            });
            (rho - p.rest_density).max(0.0) / p.rest_density
        })
        .reduce(|| 0.0, f32::max)
}

/// Heavy-ball momentum (Polyak) on the Newton steps: a particle still compressed adds this
/// fraction of its previous pass's step. A Jacobi pass carries a correction only one kernel
/// radius, so lifting a column of liquid back up takes passes growing with the square of its
/// height; momentum brings that towards linear. On the honey drop's first 16 frames it
/// halved the passes (1,353 -> 777) and lowered the compression left at the pass cap
/// (5% -> 1.5% at impact). Larger values cut passes further but left a resting tank
/// jittering twice as fast. A rising (Nesterov) schedule, k/(k+3) capped at 0.7 or 0.85, did
/// worse on both: honey drop 349 → 377-385 passes over 10 frames, resting tank's median
/// RMS speed 1.0-1.2e-3 → 1.5-3.1e-3 m/s. Measured again once the resting tank came to
/// rest (the frame-end viscosity, the cut last pass and the walls' push; `examples/
/// rest_probe.rs` at r and r ± 0.6%), 0.5 is still the most it takes: worst frames
/// 4.2-7.4e-4 m/s at 0.5, 3.6-4.1e-3 at 0.6, 7.1-8.4e-3 at 0.7 and 5.3-8.0e-3 at 0.8,
/// against a limit of 8.9e-4.
const MOMENTUM: f32 = 0.5;

/// What the next pass's momentum builds on: the previous pass's steps and its largest
/// compression.
#[derive(Default)]
pub struct Momentum {
    step: Vec<f32>,
    max_error: f32,
}

/// One correction pass over all liquid particles (positions only). Returns the largest
/// compression measured before the pass; the pass is skipped when that is within tolerance.
pub fn pass(
    p: &Params,
    liquid: &mut LiquidParticles,
    moved: &mut [Vec3],
    objects: &ObjectParticles,
    lists: &Neighbourhoods,
    momentum: &mut Momentum,
) -> f32 {
    let (max_error, mut step) = measure(p, liquid, objects, lists);
    if max_error <= p.density_tolerance {
        return max_error;
    }
    // Restarted (no momentum this pass) when the largest compression grew: the usual guard
    // that keeps an accelerated iteration from running away.
    if momentum.step.len() == step.len() && max_error <= momentum.max_error {
        for (s, previous) in step.iter_mut().zip(&momentum.step) {
            if *s > 0.0 {
                *s += MOMENTUM * previous;
            }
        }
    }
    let w = &p.density_kernel;
    let positions = &liquid.position;
    // One pass never moves a particle more than half a radius: a violent impact could
    // otherwise throw it past an obstacle's shell of object particles in one step.
    let limit = 0.5 * p.radius;
    let correction: Vec<Vec3> = (0..liquid.len())
        .into_par_iter()
        .map(|i| {
            let xi = positions[i];
            let mut dx = Vec3::ZERO;
            each_neighbour!(j in lists.near.list.of(i) => {
                let j = j as usize;
                let s = step[i] + step[j];
                if s == 0.0 {
                    continue;
                }
                let d = p.space.delta(xi, positions[j]);
                dx += d * (s * w.slope_over_distance_sq(d.length_squared()));
            });
            // The walls in i's density push i away from them, as boundary particles do in
            // position-based fluids. Without this a wall's weight only enlarged i's step,
            // whose pushes on its liquid neighbours drove i itself into the wall, where
            // the stops and the adhesion's repulsion sent it back: a particle against a
            // wall could shuttle at 1-2 cm/s for seconds without going anywhere.
            if step[i] > 0.0 {
                each_neighbour!(k in lists.objects.of(i) => {
                    let d = p.space.delta(xi, objects.position[k as usize]);
                    let s = OBSTACLE_DENSITY_WEIGHT * step[i];
                    dx += d * (s * w.slope_over_distance_sq(d.length_squared()));
                });
            }
            dx.clamp_length_max(limit)
        })
        .collect();
    moves::shift(liquid, moved, &correction);
    momentum.step = step;
    momentum.max_error = max_error;
    max_error
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
    };
    let mut momentum = Momentum::default();
    // The displacements before this pass and before the last one that moved the liquid (two
    // buffers, swapped, rather than a copy allocated per pass), and the largest compression
    // then.
    let mut before_this_pass = Vec::with_capacity(moved.len());
    let mut before_last_pass = Vec::with_capacity(moved.len());
    let mut error_before_last_pass = None;
    loop {
        lists.refresh_for_density(p, &liquid.position);
        before_this_pass.clear();
        before_this_pass.extend_from_slice(moved);
        let max_error = pass(p, liquid, moved, objects, lists, &mut momentum);
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
                let (error, measures) = cut_last_pass(p, liquid, moved, lists, last);
                outcome.max_error = error;
                outcome.pairs_visited += measures as u64 * lists.near.list.pair_count();
            }
            return outcome;
        }
        std::mem::swap(&mut before_this_pass, &mut before_last_pass);
        error_before_last_pass = Some(max_error);
        outcome.iterations += 1;
        // The pass knows nothing of obstacles' hardness: they have the last word.
        moves::stop_at_obstacles(p, liquid, moved, objects, lists);
        if outcome.iterations >= p.max_density_iterations {
            return outcome;
        }
    }
}

/// The last pass's displacements from `before` to `after`, and the largest compression at
/// either end (above the tolerance before, within it after).
struct LastPass {
    before: Vec<Vec3>,
    after: Vec<Vec3>,
    error_before: f32,
    error_after: f32,
}

/// Measurements `cut_last_pass` may spend on finding the cut, where it aims (as a fraction
/// of the tolerance), and the least compression it accepts (the further under the
/// tolerance the cut lands, the more of the pass's lift it keeps).
const CUT_ATTEMPTS: u32 = 3;
const CUT_AIM: f32 = 0.995;
const CUT_ACCEPT: f32 = 0.99;

/// Moves the liquid, which stands at the end of its last pass, back along that pass to where
/// the largest compression meets the tolerance. The point is found by false position on
/// the compression measured along the pass, aiming just under the tolerance; it ends at the
/// first measurement within [`CUT_ACCEPT`, 1] of the tolerance, or else at the earliest
/// point measured within it (the whole pass at worst). Returns the largest compression where
/// the liquid ends and the measurements made.
///
/// (The positions stay clear of obstacles: they lie between two placements the stops have
/// checked, and an obstacle's surface is flat at the scale of one pass.)
fn cut_last_pass(
    p: &Params,
    liquid: &mut LiquidParticles,
    moved: &mut [Vec3],
    lists: &Neighbourhoods,
    pass: LastPass,
) -> (f32, u32) {
    let tolerance = p.density_tolerance;
    let aim = CUT_AIM * tolerance;
    // Fractions of the pass: `over` leaves the liquid too compressed, `within` does not;
    // the liquid stands at `at`.
    let (mut over, mut error_over) = (0.0f32, pass.error_before);
    let (mut within, mut error_within) = (1.0f32, pass.error_after);
    let mut at = 1.0f32;
    let mut measures = 0;
    while measures < CUT_ATTEMPTS && error_within < CUT_ACCEPT * tolerance {
        let next = over + (error_over - aim) / (error_over - error_within) * (within - over);
        if !(next > over && next < within) {
            break;
        }
        slide_along(liquid, moved, &pass, next - at);
        at = next;
        let error = largest_compression(p, liquid, lists);
        measures += 1;
        if error > tolerance {
            (over, error_over) = (next, error);
        } else {
            (within, error_within) = (next, error);
        }
    }
    slide_along(liquid, moved, &pass, within - at);
    (error_within, measures)
}

/// Moves every particle by `fraction` of its displacement over the last pass.
fn slide_along(liquid: &mut LiquidParticles, moved: &mut [Vec3], pass: &LastPass, fraction: f32) {
    if fraction == 0.0 {
        return;
    }
    liquid
        .position
        .par_iter_mut()
        .zip(moved.par_iter_mut())
        .zip(pass.before.par_iter().zip(pass.after.par_iter()))
        .for_each(|((x, m), (before, after))| {
            let d = (*after - *before) * fraction;
            *x += d;
            *m += d;
        });
}
