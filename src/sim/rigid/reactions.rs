//! The liquid's pushes on the rigid bodies: every operation in which an object particle
//! changes a liquid particle's velocity records that change, and its body takes the equal and
//! opposite momentum.
//!
//! Velocities are position-based (`substep.rs`): a substep's final velocity is the liquid's
//! displacement over δt. A change is therefore recorded as what it adds to that final
//! velocity: a displacement δ as δ/δt, a velocity change made after move m of M (it moves the
//! particle in the M − m moves left) as Δv (M − m)/M, and a force's impulse before the moves
//! whole. What the operations record, with the body of the object particle that acted:
//! - adhesion (the solid's stickiness on the liquid), per pair;
//! - friction in the moves, from the most frictional particle touched;
//! - the stops at obstacles (in the moves and after each density pass), from the nearest
//!   particle: the push out and the removal of the velocity into the wall;
//! - the density correction's push away from the walls in a particle's density, per pair,
//!   scaled as the pass's limit scales the whole push, and the last pass's share cut back
//!   with it (`density::last_pass`).
//!
//! The implicit viscosity's exchange with a body (Weiler 2018's boundary term) is not recorded
//! here: the solve finds the body's velocity with the liquid's and hands it what its pairs
//! took (`viscosity_operator::BodyNodes`).
//!
//! Not exchanged: the density correction's lift (`density::lift`, taken only in a long
//! correction's tail), which lifts whole columns off the walls as a grid solve; and where one
//! liquid particle touches two bodies in one operation, all of it goes to one of them.
//!
//! Sums run in liquid-particle order on one thread, so the bodies' impulses are the same bits
//! at any thread count. The ledger sits behind a mutex so that the operations, which borrow
//! the object particles shared, can record.

use glam::{DVec3, Vec3};

/// No body: an obstacle's particle, or no particle at all.
pub const NO_BODY: u32 = u32::MAX;

/// One body's accumulated impulse: linear, and angular about the world origin.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Impulse {
    pub linear: DVec3,
    pub angular: DVec3,
}

/// What one operation did to one liquid particle: the body that acted (or `NO_BODY`) and the
/// change it made to the particle's final velocity.
pub type Taken = (u32, Vec3);

/// Adds to `ledger` the reactions of `taken`, one entry per liquid particle (at `x`, of mass
/// `mass(i)`): each body gets −m Δv and its moment about the origin.
pub fn add(ledger: &mut [Impulse], x: &[Vec3], mass: impl Fn(usize) -> f32, taken: &[Taken]) {
    for (i, &(body, dv)) in taken.iter().enumerate() {
        if body == NO_BODY || dv == Vec3::ZERO {
            continue;
        }
        let j = -(dv.as_dvec3() * mass(i) as f64);
        let total = &mut ledger[body as usize];
        total.linear += j;
        total.angular += x[i].as_dvec3().cross(j);
    }
}

/// `before` + `fraction` × (`after` − `before`), body by body: a pass's share cut back.
pub fn slide(before: &[Impulse], after: &[Impulse], fraction: f32) -> Vec<Impulse> {
    let f = fraction as f64;
    before
        .iter()
        .zip(after)
        .map(|(b, a)| Impulse {
            linear: b.linear + (a.linear - b.linear) * f,
            angular: b.angular + (a.angular - b.angular) * f,
        })
        .collect()
}
