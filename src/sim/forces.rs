//! Forces, once per substep: gravity and the adhesion matrix (the paper's F(p) = Σ f(p_i) + g).
//! Viscosity is in `viscosity_classic.rs`.

use glam::Vec3;
use rayon::prelude::*;

use super::neighbourhoods::Neighbourhoods;
use super::neighbours::each_neighbour;
use super::objects::ObjectParticles;
use super::params::{shared_value, Params};
use super::rigid::reactions::{Taken, NO_BODY};
use super::LiquidParticles;

mod liquid_adhesion;

use liquid_adhesion::liquid_adhesion;

/// Acceleration of every liquid particle from gravity and adhesion. Each pair's term is
/// computed identically from both ends (same distance, opposite direction), so liquid–liquid
/// adhesion between equal masses conserves momentum. The liquid neighbours' terms are summed
/// eight at a time (`liquid_adhesion`). (The walls' terms summed so too, through the same
/// lanes with the obstacle particles' positions, measured no faster: the honey drop's
/// forces 0.035/0.035 → 0.033/0.032 s over frames 2-13, a 30k honey block's CPU time
/// unchanged. They stay one at a time.)
pub fn gravity_and_adhesion(
    p: &Params,
    liquid: &LiquidParticles,
    objects: &ObjectParticles,
    lists: &Neighbourhoods,
) -> Vec<Vec3> {
    let inv_r = 1.0 / p.radius;
    let nl = p.liquid_mass.len();
    // One adhesion function for every pair of liquids (one liquid, or several alike): no pair
    // then looks up its materials.
    let liquid_pairs = (0..nl).flat_map(|a| (0..nl).map(move |b| p.adhesion.get(a, b)));
    let shared = shared_value(liquid_pairs);
    (0..liquid.len())
        .into_par_iter()
        .map(|i| {
            let xi = liquid.position[i];
            let mi = liquid.material[i] as usize;
            let mut a = p.gravity
                + liquid_adhesion(
                    &p.space,
                    inv_r,
                    &liquid.position,
                    xi,
                    lists.near.list.of(i),
                    shared,
                    |j| p.adhesion.get(mi, liquid.material[j] as usize),
                );
            each_neighbour!(k in lists.objects.of(i) => {
                let k = k as usize;
                let d = p.space.delta(objects.position[k], xi);
                let dist = d.length();
                let solid = objects.material[k] as usize;
                debug_assert!(solid >= nl);
                let f = p.adhesion.get(mi, solid).eval(dist * inv_r);
                if f != 0.0 && dist > 0.0 {
                    a += d * (f / dist);
                }
            });
            a
        })
        .collect()
}

/// The rigid bodies' share of the adhesion `gravity_and_adhesion` gives each liquid particle,
/// as the change of its final velocity over the substep (the impulse a·δt): the same terms,
/// of the bodies' particles only (`rigid::reactions`).
pub fn body_adhesion(
    p: &Params,
    liquid: &LiquidParticles,
    objects: &ObjectParticles,
    lists: &Neighbourhoods,
) -> Vec<Taken> {
    let inv_r = 1.0 / p.radius;
    (0..liquid.len())
        .into_par_iter()
        .map(|i| {
            let xi = liquid.position[i];
            let mi = liquid.material[i] as usize;
            let (mut body, mut a) = (NO_BODY, Vec3::ZERO);
            each_neighbour!(k in lists.objects.of(i) => {
                let k = k as usize;
                if objects.body_of(k) == NO_BODY {
                    continue;
                }
                let d = p.space.delta(objects.position[k], xi);
                let dist = d.length();
                let f = p.adhesion.get(mi, objects.material[k] as usize).eval(dist * inv_r);
                if f != 0.0 && dist > 0.0 {
                    a += d * (f / dist);
                    body = objects.body_of(k);
                }
            });
            (body, a * p.dt)
        })
        .collect()
}
