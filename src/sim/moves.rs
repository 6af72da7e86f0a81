//! One move, repeated M times per substep (the inner loop of the paper's Figure 3):
//! accelerate, translate, friction, prevent interpenetration.

use glam::Vec3;
use rayon::prelude::*;

use super::neighbourhoods::Neighbourhoods;
use super::neighbours::{each_neighbour, NeighbourList, Row};
use super::objects::ObjectParticles;
use super::params::Params;
use super::rigid::reactions::{Taken, NO_BODY};
use super::LiquidParticles;
use crate::geometry::obstacle_spacing;

mod contact_push;
#[cfg(test)]
mod tests;

use contact_push::contact_push;

/// v += a·δt: the substep's forces act as one impulse before the moves. (The paper
/// accelerates a little in every move; with forces constant over the substep this is the same
/// impulse, and it keeps the position-based velocity at the end of the substep exact for a
/// freely flying particle.)
pub fn accelerate(liquid: &mut LiquidParticles, acceleration: &[Vec3], dt: f32) {
    liquid
        .velocity
        .par_iter_mut()
        .zip(acceleration.par_iter())
        .for_each(|(v, a)| *v += *a * dt);
}

/// x += v·δt_m.
pub fn translate(liquid: &mut LiquidParticles, moved: &mut [Vec3], dt: f32) {
    let steps: Vec<Vec3> = liquid.velocity.par_iter().map(|v| *v * dt).collect();
    shift(liquid, moved, &steps);
}

/// Moves every particle by `dx` and adds it to the particle's displacement over the substep.
/// The displacement is kept apart from the position because a position is rounded at its own
/// magnitude (6e-8 m at 1 m from the origin): slow viscous flow, and exact momentum balance,
/// would be lost if the velocity were taken from the difference of two rounded positions.
pub fn shift(liquid: &mut LiquidParticles, moved: &mut [Vec3], dx: &[Vec3]) {
    liquid
        .position
        .par_iter_mut()
        .zip(moved.par_iter_mut())
        .zip(dx.par_iter())
        .for_each(|((x, m), d)| {
            *x += *d;
            *m += *d;
        });
}

/// v = displacement/δt over the substep: position-based dynamics' velocity update.
pub fn velocity_from_motion(p: &Params, liquid: &mut LiquidParticles, moved: &[Vec3]) {
    let inv_dt = 1.0 / p.dt;
    liquid
        .velocity
        .par_iter_mut()
        .zip(moved.par_iter())
        .for_each(|(v, m)| *v = *m * inv_dt);
}

/// Liquid touching an obstacle loses a fraction of its velocity relative to the obstacle:
/// v_rel *= (1 − friction)^(30·δt_m), friction being the fraction lost per 1/30 s (the paper's
/// friction factor). Where several solids touch, the most frictional one acts.
///
/// `kept`: the share of a velocity change now that the substep's final velocity keeps (the
/// moves left over the moves, `rigid::reactions`): what a rigid body takes back.
pub fn apply_friction(
    p: &Params,
    liquid: &mut LiquidParticles,
    objects: &ObjectParticles,
    lists: &Neighbourhoods,
    dt: f32,
    kept: f32,
) {
    let touch2 = (p.object_contact * 1.05).powi(2);
    let positions = &liquid.position;
    let friction = |i: usize, v: &mut Vec3| -> Taken {
        let mut strongest: Option<(f32, usize)> = None;
        each_neighbour!(k in lists.objects.of(i) => {
            let k = k as usize;
            if p.space
                .delta(objects.position[k], positions[i])
                .length_squared()
                < touch2
            {
                let f = p.friction[objects.material[k] as usize];
                if strongest.is_none_or(|(g, _)| f > g) {
                    strongest = Some((f, k));
                }
            }
        });
        let Some((f, k)) = strongest else {
            return (NO_BODY, Vec3::ZERO);
        };
        let keep = (1.0 - f).max(0.0).powf(30.0 * dt);
        let vo = objects.velocity[k];
        let before = *v;
        *v = vo + (*v - vo) * keep;
        (objects.body_of(k), (*v - before) * kept)
    };
    let velocity = liquid.velocity.par_iter_mut().enumerate();
    if objects.has_bodies() {
        let taken: Vec<Taken> = velocity.map(|(i, v)| friction(i, v)).collect();
        objects.record(p, liquid, &taken);
    } else {
        velocity.for_each(|(i, v)| {
            friction(i, v);
        });
    }
}

/// Pushes overlapping pairs apart to their contact distance: liquid–liquid both halves,
/// liquid–object only the liquid particle. Positions only: the move derives velocities from
/// the corrected positions afterwards (position-based dynamics).
///
/// A particle that is behind every obstacle particle it touches (it has tunnelled into a
/// closed obstacle) is pushed out along their normals instead of away from their centres.
pub fn prevent_interpenetration(
    p: &Params,
    liquid: &mut LiquidParticles,
    moved: &mut [Vec3],
    objects: &ObjectParticles,
    lists: &Neighbourhoods,
    contacts: &NeighbourList,
    kept: f32,
) {
    let positions = &liquid.position;
    let corrections: Vec<Vec3> = (0..liquid.len())
        .into_par_iter()
        .map(|i| {
            let xi = positions[i];
            let dx = contact_push(&p.space, p.liquid_contact, positions, xi, contacts.of(i));
            dx.clamp_length_max(0.5 * p.radius)
        })
        .collect();
    shift(liquid, moved, &corrections);
    stop_at_obstacles(p, liquid, moved, objects, lists, kept);
}

/// Obstacles are hard and go last: liquid is projected out of them, and the part of its
/// velocity (relative to the obstacle) that still points into them is removed, so liquid
/// pressing down from above cannot drive the bottom layer through a wall over the moves. The
/// velocity change only removes motion into the wall; it never adds any. The density
/// correction, which knows nothing of obstacles, ends each of its passes with this too.
///
/// A rigid body takes back the push (as the velocity δ/δt it adds to the substep's) and
/// `kept` of the velocity removed (`apply_friction` says what `kept` is; 0 in the density
/// correction, after the moves).
pub fn stop_at_obstacles(
    p: &Params,
    liquid: &mut LiquidParticles,
    moved: &mut [Vec3],
    objects: &ObjectParticles,
    lists: &Neighbourhoods,
    kept: f32,
) {
    if objects.position.is_empty() {
        return;
    }
    let inv_dt = 1.0 / p.dt;
    let stop = |i: usize, x: &mut Vec3, v: &mut Vec3, m: &mut Vec3| -> Taken {
        let push = obstacle_push(p, *x, objects, lists.objects.of(i));
        if push == Vec3::ZERO {
            return (NO_BODY, Vec3::ZERO);
        }
        *x += push;
        *m += push;
        let normal = push.normalize_or_zero();
        let nearest = nearest_object(p, *x, objects, lists.objects.of(i));
        let wall_velocity = nearest.map_or(Vec3::ZERO, |k| objects.velocity[k]);
        let closing = (*v - wall_velocity).dot(normal);
        let mut change = push * inv_dt;
        if closing < 0.0 {
            *v -= normal * closing;
            change -= normal * (closing * kept);
        }
        (nearest.map_or(NO_BODY, |k| objects.body_of(k)), change)
    };
    let particles = liquid
        .position
        .par_iter_mut()
        .zip(liquid.velocity.par_iter_mut())
        .zip(moved.par_iter_mut())
        .enumerate();
    if objects.has_bodies() {
        let taken: Vec<Taken> = particles.map(|(i, ((x, v), m))| stop(i, x, v, m)).collect();
        objects.record(p, liquid, &taken);
    } else {
        particles.for_each(|(i, ((x, v), m))| {
            stop(i, x, v, m);
        });
    }
}

/// The obstacle particle nearest to `x` (ties to the lower index).
fn nearest_object(p: &Params, x: Vec3, objects: &ObjectParticles, near: Row) -> Option<usize> {
    near.into_iter().map(|k| k as usize).min_by(|&a, &b| {
        let da = p.space.delta(x, objects.position[a]).length_squared();
        let db = p.space.delta(x, objects.position[b]).length_squared();
        da.total_cmp(&db).then(a.cmp(&b))
    })
}

/// The push out of the obstacle particles within contact. Several particles of one wall
/// touch at once; summing their pushes would throw the liquid off, so the push goes along
/// their depth-weighted mean direction by the deepest overlap.
///
/// A particle behind a closed obstacle's particle, and within its patch of surface (less
/// than a sampling spacing from it sideways: every point of the surface is about that close
/// to a sample), is inside; if no particle it touches says it is in front, it has tunnelled
/// and goes out along the normal. One behind but farther sideways is beside the patch, past
/// the edge of its face: it is pushed away from it as from one in front, without counting as
/// in front. Counting it as inside threw liquid beside the fan's blade edges 2.5-3.8 r over
/// the blade, onto other liquid at 20-30% compression, and the density correction took
/// passes to undo that: the fan's 10 bench frames went from 8.0 to 7.0 passes per substep
/// (`gloop bench`), frames 2-12 from 726 to 635 (`examples/frame_profile.rs fan 11`).
///
/// (Tried and not kept: measuring the obstacle particles eight at a time with AVX2 and
/// passing over blocks of eight all beyond contact, here and in `apply_friction`, each
/// candidate then measured as before, so the same bits. Most of a wall's neighbours are
/// beyond contact, but a 30k honey block's 5 frames took the same CPU time, 5.77/5.76/5.90 s
/// before and 5.79/5.85/5.87 after.)
fn obstacle_push(p: &Params, xi: Vec3, objects: &ObjectParticles, near: Row) -> Vec3 {
    let mut direction = Vec3::ZERO;
    let mut deepest = 0.0f32;
    let mut in_front = false;
    let mut deepest_behind: Option<(f32, Vec3)> = None;
    // Farther sideways than this from a particle is beside its patch of surface.
    let patch2 = obstacle_spacing(p.radius).powi(2);
    each_neighbour!(k in near => {
        let k = k as usize;
        let d = p.space.delta(xi, objects.position[k]);
        let dist = d.length();
        if dist >= p.object_contact {
            continue;
        }
        let n = objects.normal[k];
        let height = d.dot(n);
        let behind = objects.one_sided[k] && height < 0.0;
        if behind && dist * dist - height * height < patch2 {
            let needed = p.object_contact - height;
            if deepest_behind.is_none_or(|(h, _)| needed > h) {
                deepest_behind = Some((needed, n));
            }
            continue;
        }
        // Behind but beside the patch, it is pushed away as from one in front, without
        // counting as in front.
        in_front |= !behind;
        let depth = p.object_contact - dist;
        let away = if dist > 0.0 { d / dist } else { n };
        direction += away * depth;
        deepest = deepest.max(depth);
    });
    match (in_front, deepest_behind) {
        (false, Some((needed, n))) => n * needed,
        _ => direction.normalize_or_zero() * deepest,
    }
}
