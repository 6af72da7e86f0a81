//! Forces, once per substep: gravity and the adhesion matrix (the paper's F(p) = Σ f(p_i) + g).
//! Viscosity is in `viscosity_classic.rs`.

use glam::Vec3;
use rayon::prelude::*;

use super::neighbourhoods::Neighbourhoods;
use super::neighbours::each_neighbour;
use super::objects::ObjectParticles;
use super::params::Params;
use super::LiquidParticles;

/// Acceleration of every liquid particle from gravity and adhesion. Each pair's term is
/// computed identically from both ends (same distance, opposite direction), so liquid–liquid
/// adhesion between equal masses conserves momentum.
pub fn gravity_and_adhesion(
    p: &Params,
    liquid: &LiquidParticles,
    objects: &ObjectParticles,
    lists: &Neighbourhoods,
) -> Vec<Vec3> {
    let inv_r = 1.0 / p.radius;
    let nl = p.liquid_mass.len();
    (0..liquid.len())
        .into_par_iter()
        .map(|i| {
            let xi = liquid.position[i];
            let mi = liquid.material[i] as usize;
            let mut a = p.gravity;
            each_neighbour!(j in lists.near.list.of(i) => {
                let j = j as usize;
                let d = p.space.delta(liquid.position[j], xi);
                let dist = d.length();
                let f = p
                    .adhesion
                    .get(mi, liquid.material[j] as usize)
                    .eval(dist * inv_r);
                if f != 0.0 && dist > 0.0 {
                    a += d * (f / dist);
                }
            });
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
