//! One substep, as the paper's Figure 3:
//!
//! ```text
//! for each sub-timestep
//!     for each particle: calculate adhesion, viscosity and gravity forces
//!     do M times: accelerate, translate, apply friction, prevent inter-penetration
//!     apply iterative density correction
//! ```
//!
//! with one structural change that makes a liquid at rest actually rest: velocities are
//! position-based. The substep's forces act as one impulse, the moves translate and resolve
//! contacts, the density correction moves particles, and the substep's velocity is then what
//! each particle actually did, (x_end − x_start)/δt. Corrections thus never leave behind
//! velocity that pushes back in the next substep (the paper's scheme keeps a stack of liquid
//! shimmering at ~0.1 m/s; this one settles to ~1 mm/s).
//!
//! plus what a production bake needs around it: liquid sorted by grid cell for memory
//! locality (`Neighbourhoods::sort_and_build`), moving obstacles placed at each move's
//! instant, emitters, and the domain.

use std::time::Instant;

use super::density;
use super::emitters::Emitter;
use super::forces;
use super::moves;
use super::neighbourhoods::Neighbourhoods;
use super::objects::ObjectParticles;
use super::params::Params;
use super::phases::timed;
use super::viscosity_classic;
use super::viscosity_implicit;
use super::{FrameStats, LiquidParticles};
use crate::scene::{Scene, ViscosityModel};

/// Advances the liquid by one substep, from fractional frame `start` to `end`. `carried`
/// holds the previous substep's neighbour lists within a frame (None at a frame's start); it
/// is left holding this substep's lists when they are still valid for the next one.
/// `already_viscous`: the velocities have had the implicit viscosity applied (a frame's end).
#[allow(clippy::too_many_arguments)]
pub fn substep(
    scene: &Scene,
    p: &Params,
    liquid: &mut LiquidParticles,
    objects: &mut ObjectParticles,
    emitters: &[Emitter],
    start: f64,
    end: f64,
    already_viscous: bool,
    carried: &mut Option<Neighbourhoods>,
    stats: &mut FrameStats,
) {
    let phases = &mut stats.phases;
    let mut lists = timed(&mut phases.lists, || match carried.take() {
        // The skin and the movers' patches keep the lists exact from substep to substep, as
        // they do from move to move; sorting the liquid and building them afresh was a fifth
        // of a quiet substep. Each frame still starts with a fresh build, so a resumed bake
        // (which starts from a frame file) stays bit-identical. (Sorting afresh at every
        // substep anyway, for memory locality in the passes, measured slower: the fan's frames
        // 2-7 +4-5%, the honey drop's 2-13 +6%.)
        Some(mut lists) => {
            lists.refresh_for_substep(p, &liquid.position, objects.moved_positions());
            lists
        }
        None => {
            let object_grid = objects.grid(p);
            Neighbourhoods::sort_and_build(p, liquid, &objects.position, object_grid)
        }
    });

    // Forces, once per substep.
    let model = scene.settings.viscosity_model;
    let mut acceleration = timed(&mut phases.forces, || {
        let mut acceleration = forces::gravity_and_adhesion(p, liquid, objects, &lists);
        if model == ViscosityModel::Classic {
            let viscous = viscosity_classic::exchange(p, liquid, &lists);
            for (a, dv) in acceleration.iter_mut().zip(&viscous) {
                *a += *dv / p.dt;
            }
        }
        if objects.has_bodies() {
            objects.record(
                p,
                liquid,
                &forces::body_adhesion(p, liquid, objects, &lists),
            );
        }
        acceleration
    });
    stats.neighbour_pairs += 2 * lists.near.list.pair_count() + lists.objects.pair_count();

    // Moves: the substep's impulse, then M translations with contacts resolved after each.
    // A frame's first substep after the scene's first frame starts from velocities the
    // implicit viscosity has already been applied to (`Simulation::viscous_frame_end`): its
    // solve takes the impulse apart.
    moves::accelerate(liquid, &acceleration, p.dt);
    let impulse = if model == ViscosityModel::Implicit && already_viscous {
        for a in &mut acceleration {
            *a *= p.dt;
        }
        Some(acceleration)
    } else {
        // Nothing per particle that the viscosity solve does not need is held across it: the
        // solve is the substep's memory peak.
        drop(acceleration);
        None
    };
    if model == ViscosityModel::Implicit {
        // Viscosity acts on the velocities the substep's forces produced (backward Euler), so
        // forces and viscosity are integrated together.
        // (Solved after the density correction instead, on the velocities it leaves, it smooths
        // the correction's jitter: the resting tank's median RMS speed fell 1.1e-3 → 3e-4 m/s
        // over three perturbed runs. But the cohesion's impulse then reaches the moves
        // undamped and compresses the liquid: the honey drop needed 8.7 → 12 passes per
        // substep and ran 40-50% slower, and a cohesive spinning blob gained 34% of its
        // angular momentum per second (4.6% in this order). Only a frame's last velocities
        // get that smoothing, `Simulation::viscous_frame_end`; see density.rs on the jitter.)
        timed(&mut phases.viscosity, || {
            viscosity_implicit::apply(scene, p, liquid, objects, &mut lists, impulse)
        });
    }
    // Liquid in a nozzle's throat moves at its exit velocity whatever the viscosity did.
    let throats: Vec<_> = emitters
        .iter()
        .filter_map(|e| e.throat(scene, start, end))
        .collect();
    for throat in &throats {
        throat.hold(liquid);
    }
    let moves_started = Instant::now();
    let mut moved = vec![glam::Vec3::ZERO; liquid.len()];
    let dt_move = p.dt / p.moves as f32;
    let mut contacts = timed(&mut phases.moves_list_upkeep, || {
        lists.contacts(p, &liquid.position)
    });
    for m in 1..=p.moves {
        if objects.any_moving() {
            objects.place_at(scene, start + (end - start) * m as f64 / p.moves as f64);
        }
        moves::translate(liquid, &mut moved, dt_move);
        timed(&mut phases.moves_list_upkeep, || {
            lists.refresh_for_contacts(
                &mut contacts,
                p,
                &liquid.position,
                objects.moved_positions(),
            )
        });
        // The share of a velocity change made now that the substep's velocity keeps: it moves
        // the particle in the moves left (`rigid::reactions`).
        let kept = (p.moves - m) as f32 / p.moves as f32;
        moves::apply_friction(p, liquid, objects, &lists, dt_move, kept);
        moves::prevent_interpenetration(
            p,
            liquid,
            &mut moved,
            objects,
            &lists,
            &contacts.list,
            kept,
        );
        stats.neighbour_pairs += contacts.list.pair_count() + 2 * lists.objects.pair_count();
    }
    drop(contacts);
    phases.moves += moves_started.elapsed();

    // Density correction.
    let outcome = timed(&mut phases.density, || {
        density::correct(p, liquid, &mut moved, objects, &mut lists)
    });
    phases.density_list_upkeep += outcome.list_upkeep;
    stats.density_iterations += outcome.iterations;
    stats.max_density_error = outcome.max_error;
    stats.worst_density_error = stats.worst_density_error.max(outcome.max_error);
    if outcome.max_error > p.density_tolerance {
        stats.capped_substeps += 1;
    }
    stats.neighbour_pairs += outcome.pairs_visited;

    // Velocities are what the particles did over the substep (position-based dynamics), so
    // the corrections above leave no velocity behind that would push back next substep.
    moves::velocity_from_motion(p, liquid, &moved);
    // The rigid bodies reach the substep's end and take what the liquid gave them.
    objects.finish_substep(p, end);
    // And leaves the substep at it: the next substep's forces and solve start from it.
    for throat in &throats {
        throat.hold(liquid);
    }

    let before = liquid.len();
    for emitter in emitters {
        emitter.emit(scene, start, end, liquid);
    }
    let removed = keep_inside_domain(scene, p, liquid);
    stats.removed += removed;
    // New or removed particles renumber the lists, and wrapping across a periodic side is a
    // jump the movers' test does not see as one: then the next substep builds afresh.
    if liquid.len() == before && removed == 0 && !p.space.is_periodic() {
        *carried = Some(lists);
    }
}

/// Wraps particles along periodic axes and removes those that left the domain elsewhere.
/// Returns how many were removed. (Non-finite particles are kept: `Simulation` reports them
/// as an error rather than hiding them.)
fn keep_inside_domain(scene: &Scene, p: &Params, liquid: &mut LiquidParticles) -> usize {
    if p.space.is_periodic() {
        for x in &mut liquid.position {
            *x = p.space.wrap(*x);
        }
    }
    let domain = &scene.settings.domain;
    let before = liquid.len();
    let (position, velocity) = (&liquid.position, &liquid.velocity);
    let keep: Vec<bool> = (0..before)
        .map(|i| {
            let x = position[i];
            let outside = (0..3)
                .any(|a| !domain.periodic[a] && (x[a] < domain.min[a] || x[a] > domain.max[a]));
            !outside || !velocity[i].is_finite()
        })
        .collect();
    if keep.iter().all(|&k| k) {
        return 0;
    }
    liquid.retain(|i| keep[i]);
    before - liquid.len()
}
