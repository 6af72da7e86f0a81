//! Implicit viscosity in physical units (Weiler, Koschier, Brand & Bender 2018; PHYSICS_NOTES
//! §1.2–1.4, §3.3).
//!
//! The viscous force on particle i is the (d+2)-scaled SPH Laplacian projected on the line
//! between each pair,
//!
//!   F_i = 2(d+2) Σ_j μ_ij V² · (−W'(r)/(r (r² + 0.01h²))) · ((v_j − v_i)·x_ij) x_ij,
//!
//! with V = (2r)³ the particle volume, μ_ij the mean dynamic viscosity of the pair and W the
//! cubic spline of support h = 4r (the solver's force reach). Every pair term lies along x_ij
//! and is antisymmetric, so linear and angular momentum are conserved and rigid rotation
//! produces no force at all (Steele's exchange brakes it, §1.4).
//!
//! Integrated with backward Euler, (M − δt K) v = M v*, an SPD system solved by matrix-free
//! CG over the `near` lists (`cg.rs`; the operator and its couplings are in
//! `viscosity_operator.rs`), preconditioned by block Jacobi plus a coarse level over blocks
//! of about 90 particles (`cg/coarse.rs`), which carries the slow, liquid-wide modes (honey
//! dragged along a ball) that block Jacobi alone took most of the iterations over. The
//! guess is warm: v* (the velocities after the substep's impulse) plus the velocity change
//! the previous substep's solve made, since the viscous change varies slowly from substep to
//! substep. CG stops at the same accuracy as from a cold start (a fraction of the residual
//! at v*), so the warm guess saves iterations: about a fifth of them on the fan demo and on
//! a 100k honey block. The change is carried within a frame only
//! (`LiquidParticles::viscous_change`); the first substep of a frame starts cold, so a
//! resumed bake, which starts from a frame file, stays bit-identical.
//!
//! A frame's end velocities are solved too (`Simulation::viscous_frame_end`), so that frame
//! files hold velocities without the density correction's jitter; the next frame's first
//! substep then solves only its impulse (`apply`'s `impulse`).
//!
//! Two details make the numbers right:
//! - Calibration: at support 2 lattice spacings the cubic spline is sampled by only three
//!   neighbour shells, and the lattice sum of the discrete Laplacian is 0.698 of the continuum
//!   integral; the coefficient is divided by the lattice's long-wave value, so a shear wave
//!   decays at the requested ν (the `viscometer` validation measures it within 2%).
//! - Exact conservation: CG stops at a tolerance, and a partially converged solution does not
//!   conserve momentum. The new velocity is CG's solution plus the smallest rigid motion
//!   (`momentum.rs`) that gives it v*'s linear and angular momentum less what the walls
//!   took: conserved to round-off whatever the tolerance, and never more than the residual
//!   away from CG's answer.
//!
//! The update this replaced was exact too: v* + δt M⁻¹ K v_cg, the solved velocity's force
//! applied once as antisymmetric pair terms. But it differs from v_cg by M⁻¹ times CG's
//! residual, and where the system is stiff (δt·ν/h² ≈ 9 for honey at 1 mm) the residual's
//! stiff part came back amplified, as an explicit step would: one solve doubled the kinetic
//! energy of a jittered ball of golden syrup (`implicit_viscosity_never_adds_kinetic_energy`),
//! the honey drop threw 400 particles off its ball at 1.5 m/s in 30 frames (with the rigid
//! correction it keeps all 9,220 and creeps round the ball at 2 cm/s), and at 200 Pa·s, or at
//! a CG tolerance of 1e-2, the drop exploded on impact.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use glam::Vec3;
use rayon::prelude::*;

use super::cg;
use super::momentum;
use super::neighbourhoods::Neighbourhoods;
use super::objects::ObjectParticles;
use super::params::{shared_value, Params};
use super::viscosity_operator::Couplings;
use super::LiquidParticles;
use crate::scene::Scene;

/// CG stops when the residual fell to this fraction of the initial one (the initial residual
/// is the viscous change of this substep, so this is the relative accuracy of that change).
/// Looser loses the honey drop's coat: at 3e-3 the honey slid off the ball (2,356 of 9,220
/// particles within 4r of it at frame 60 instead of 5,259, measured before the density
/// correction's carry), since the ball's drag is a slow global mode of the system that CG
/// converges last. The frame-end solve, which only smooths what a frame file stores, was
/// tried looser too (`Simulation::viscous_frame_end`).
///
/// The coarse level (`cg/coarse.rs`) converges exactly that mode first, and so at 1e-3 the
/// honey now holds on as a ten times tighter solve says it should. Liquid left in the honey
/// drop's domain at frames 46 / 61 / 76 (`examples/frame_profile.rs honey-drop 90`):
/// block Jacobi at 1e-3 8,231 / 6,403 / 5,765 of 9,220; at 1e-4 9,220 / 9,115 / 7,067; with
/// the coarse level at 1e-3 9,220 / 9,220 / 7,236 (at 1e-4 9,220 / 9,220 / 7,137).
const TOLERANCE: f32 = 1e-3;
const MAX_ITERATIONS: u32 = 200;

/// Nanoseconds spent in `apply` and CG iterations done, since the process started (a probe
/// for benchmarks; it does not influence the simulation).
static SOLVE_NANOS: AtomicU64 = AtomicU64::new(0);
static SOLVE_ITERATIONS: AtomicU64 = AtomicU64::new(0);

/// Time spent in the implicit viscosity solve and CG iterations done so far in this process.
pub fn profile() -> (std::time::Duration, u64) {
    (
        std::time::Duration::from_nanos(SOLVE_NANOS.load(Ordering::Relaxed)),
        SOLVE_ITERATIONS.load(Ordering::Relaxed),
    )
}

/// Replaces the liquid velocities v* (after the substep's impulse) by the solution of
/// (M − δt K) v = M v*. Returns the CG iterations used.
///
/// With `impulse` given, v* is velocities this viscosity was already applied to (with the
/// walls moving as they were then) plus that impulse, and only the impulse is solved for:
/// A Δ = M·impulse (A = M − δt K, the walls at rest), so that v = v* − impulse + Δ, which
/// is the whole solve's answer because A is linear. (`Simulation::viscous_frame_end` solves
/// a frame's end velocities; the next frame's first substep adds only its impulse.)
pub fn apply(
    scene: &Scene,
    p: &Params,
    liquid: &mut LiquidParticles,
    objects: &mut ObjectParticles,
    lists: &mut Neighbourhoods,
    impulse: Option<Vec<Vec3>>,
) -> u32 {
    let started = Instant::now();
    let mu: Vec<f32> = scene
        .materials
        .liquids
        .iter()
        .map(|l| l.viscosity)
        .collect();
    if liquid.is_empty() || mu.iter().all(|&m| m <= 0.0) {
        return 0;
    }
    let previous_change = std::mem::take(&mut liquid.viscous_change);
    // Looked up rather than stored: one array fewer through the solve. When the liquids share
    // one particle mass (most scenes; the paints of one density too) the lookup, a dependent
    // load in every operator application, is skipped: it measured 1-4% of the fan's time.
    let material = &liquid.material;
    let shared_mass = shared_value(&p.liquid_mass).copied();
    let mass = |i: usize| shared_mass.unwrap_or_else(|| p.liquid_mass[material[i] as usize]);
    // The momenta the solve must keep: v*'s, less what the walls take (measured after it).
    let body = momentum::Body::new(&liquid.position, mass, !p.space.is_periodic());
    let before = body.totals(&liquid.position, |i| liquid.velocity[i] * mass(i));
    let walls_move = impulse.is_none();
    if let Some(impulse) = &impulse {
        // v* − impulse, which the impulse's solution is added to, in v*'s memory.
        liquid
            .velocity
            .par_iter_mut()
            .zip(impulse)
            .for_each(|(v, a)| *v -= *a);
    }
    // The preconditioner's aggregates: the runs the liquid was sorted into. (The lists are
    // built afresh whenever a particle is added or removed, so they always match; block
    // Jacobi alone would still do if they did not.) Each rigid body's two unknowns are an
    // aggregate of their own.
    let n = liquid.len();
    let aggregates = Some(lists.blocks.clone())
        .filter(|starts| starts.last() == Some(&(n as u32)))
        .map(|mut starts| {
            starts.extend((0..objects.rigid.len()).map(|b| (n + 2 * b + 2) as u32));
            starts
        });
    // The rigid bodies' velocities (`BodyNodes`): as they are, or for an impulse's solve
    // none (they took their last impulses before the frame-end solve that this one adds to,
    // `ObjectParticles::finish_substep`).
    let bodies_now: Vec<Vec3> = objects
        .rigid
        .iter()
        .flat_map(|b| match walls_move {
            true => [
                b.state.velocity.as_vec3(),
                b.state.angular_velocity.as_vec3(),
            ],
            false => [Vec3::ZERO; 2],
        })
        .collect();
    let couplings = Couplings::build(p, &mu, liquid, objects, lists);
    let v_star = &liquid.velocity;
    let operator = |v: &[Vec3], out: &mut [Vec3]| {
        let (liquid_rows, body_rows) = out.split_at_mut(n);
        liquid_rows.par_iter_mut().enumerate().for_each(|(i, o)| {
            *o = mass(i) * v[i]
                + couplings.pair_sum(i, v)
                + couplings.wall_drag(i, v[i])
                + couplings.body_wall_sum(i, v[i], v)
        });
        couplings.body_rows(v, body_rows);
    };
    // The bodies' rows' right side: their momenta.
    let body_b = |b: &mut Vec<Vec3>| {
        for (k, u) in bodies_now.iter().enumerate() {
            let body = k / 2;
            b.push(match k % 2 {
                0 => couplings.nodes_mass(body) * *u,
                _ => couplings.nodes_inertia(body) * *u,
            });
        }
    };
    // The system's right side, the starting guess and the scale of CG's tolerance.
    let (b, mut v, cold_residual) = match impulse {
        None => {
            // The walls' velocities are known: their part of the operator moves to the right.
            let mut b: Vec<Vec3> = (0..n)
                .into_par_iter()
                .map(|i| v_star[i] * mass(i) - couplings.wall_sum(i, Vec3::ZERO))
                .collect();
            body_b(&mut b);
            let v_all: Vec<Vec3>;
            let (v_star_all, previous_change) = match bodies_now.is_empty() {
                true => (v_star.as_slice(), previous_change),
                false => {
                    v_all = v_star.iter().chain(&bodies_now).copied().collect();
                    let mut change = previous_change;
                    if change.len() == n {
                        change.resize(couplings.unknowns(), Vec3::ZERO);
                    }
                    (v_all.as_slice(), change)
                }
            };
            let (v, cold_residual) = warm_guess(&operator, &b, v_star_all, previous_change);
            (b, v, cold_residual)
        }
        // The impulse itself is the guess (as v* is for a whole solve), in the same memory.
        Some(mut impulse) => {
            let mut b: Vec<Vec3> = (0..n)
                .into_par_iter()
                .map(|i| impulse[i] * mass(i))
                .collect();
            body_b(&mut b);
            impulse.extend_from_slice(&bodies_now);
            (b, impulse, None)
        }
    };
    let system = couplings.with_mass(mass);
    let preconditioner = match aggregates {
        Some(starts) => cg::Preconditioner::two_level(&system, starts),
        None => cg::Preconditioner::block_jacobi(&system, v.len()),
    };
    let (outcome, residual) = cg::solve(
        operator,
        &preconditioner,
        b,
        &mut v,
        TOLERANCE,
        cold_residual,
        MAX_ITERATIONS,
    );
    jacobi_step(&mut v, &preconditioner, &residual);
    drop((preconditioner, residual));
    // CG's solution, with the momentum its residual lost restored by a rigid correction.
    let mut updated: Vec<Vec3> = if walls_move {
        v[..n].to_vec()
    } else {
        (0..n).into_par_iter().map(|i| v_star[i] + v[i]).collect()
    };
    // What the walls and the bodies took. The bodies get exactly that (their own unknowns
    // only made the exchange implicit), so liquid and bodies together keep their momentum.
    let walls_took = body.totals(&liquid.position, |i| {
        let walls = if walls_move {
            couplings.wall_sum(i, v[i])
        } else {
            couplings.wall_drag(i, v[i])
        };
        walls + couplings.body_wall_sum(i, v[i], &v)
    });
    let bodies_took: Vec<(Vec3, Vec3)> = (0..couplings.body_count())
        .map(|b| couplings.body_takes(b, &v))
        .collect();
    let reached = body.totals(&liquid.position, |i| updated[i] * mass(i));
    body.correct(
        &liquid.position,
        &mut updated,
        before - walls_took - reached,
    );
    drop(couplings);
    for (b, (force, torque)) in bodies_took.into_iter().enumerate() {
        objects.body_takes(b, force.as_dvec3(), torque.as_dvec3());
    }
    // The next guess is the change CG made. (After an impulse's solve there is no such
    // change to hand on: the impulse it would be measured from was the solve's memory.)
    if walls_move {
        v.truncate(n);
        v.par_iter_mut()
            .zip(liquid.velocity.par_iter())
            .for_each(|(v, s)| *v -= *s);
        liquid.viscous_change = v;
    }
    liquid.velocity = updated;
    SOLVE_NANOS.fetch_add(started.elapsed().as_nanos() as u64, Ordering::Relaxed);
    SOLVE_ITERATIONS.fetch_add(outcome.iterations as u64, Ordering::Relaxed);
    outcome.iterations
}

/// Ends the solve with one block-Jacobi step on CG's last residual, x += D̃⁻¹ r (D̃⁻¹ the
/// preconditioner's inverse diagonal blocks, D̃⁻¹ ≼ D⁻¹). CG stops once the residual is small
/// overall, and what is left of the error is mostly particle-to-particle; this step damps
/// that part at the cost of one pass, without an operator application, and it cannot enlarge
/// the error in the energy norm (`cg::Preconditioner::block_jacobi_step` has the argument).
/// On the resting tank (17 radii within ±2% of 5 mm, `examples/rest_probe.rs`) the RMS speed
/// over the 10 s window was 1.9-2.9e-4 m/s with this step and 1.8-3.6e-4 without it (11 of
/// the radii); the update this solve used to end with gave 1.7-2.7e-4, and a CG tolerance of
/// 3e-4 instead of 1e-3 (more iterations, no step) 1.8-2.6e-4 on six of them (all measured
/// with exact f32 blocks and block Jacobi alone).
fn jacobi_step(x: &mut [Vec3], preconditioner: &cg::Preconditioner, residual: &[Vec3]) {
    preconditioner.block_jacobi_step(x, residual);
}

/// The solve's starting guess: v* plus the previous substep's viscous change when there is
/// one (same particles), and then also the residual at v* alone, the scale CG's tolerance
/// refers to (so the warm guess saves iterations instead of tightening the target).
fn warm_guess(
    operator: &impl Fn(&[Vec3], &mut [Vec3]),
    b: &[Vec3],
    v_star: &[Vec3],
    previous_change: Vec<Vec3>,
) -> (Vec<Vec3>, Option<f64>) {
    if previous_change.len() != v_star.len() {
        return (v_star.to_vec(), None);
    }
    // The residual at v*, formed in place of A v*.
    let mut cold = vec![Vec3::ZERO; v_star.len()];
    operator(v_star, &mut cold);
    cold.par_iter_mut().zip(b).for_each(|(a, b)| *a = *b - *a);
    let cold_norm = cg::dot(&cold, &cold).sqrt();
    drop(cold);
    // The guess takes the previous change's place.
    let mut guess = previous_change;
    guess
        .par_iter_mut()
        .zip(v_star)
        .for_each(|(dv, v)| *dv += *v);
    (guess, Some(cold_norm))
}
