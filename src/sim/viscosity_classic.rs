//! Steele et al.'s viscosity: a momentum exchange between liquid neighbours,
//!
//!   P_exch = v · k(d) · (P_p − P_n) · δt / (2 Σ_i k(d_i)),   P_p −= P_exch,  P_n += P_exch.
//!
//! Written as a gather: particle i sums, over its neighbours j, the exchanges of the pair as
//! processed from i's side and from j's side,
//!
//!   ΔP_i = −Σ_j v_ij k_ij δt (1/S_i + 1/S_j)/2 · (P_i − P_j),   S_i = Σ_j k_ij,
//!
//! whose pair terms are bitwise antisymmetric, so total momentum is conserved to round-off and
//! the result does not depend on the thread count. The rate v comes from the liquid's viscosity
//! (ν = v⟨d²⟩_k/6) and is capped where the explicit exchange would overshoot.

use glam::Vec3;
use rayon::prelude::*;

use super::neighbourhoods::Neighbourhoods;
use super::neighbours::each_neighbour;
use super::params::Params;
use super::LiquidParticles;
use crate::scene::{Scene, ViscosityModel};

/// What to tell the artist before a classic-model bake: each liquid whose viscosity the
/// exchange cannot reach at this resolution and time step (it is capped where it would
/// overshoot, PHYSICS_NOTES §1.3), and by how much. Honey at r = 1 mm and 4 substeps gets
/// 0.7% of its viscosity, and nothing else in the bake said so. Empty for the implicit
/// model, which gives every liquid its viscosity.
pub fn shortfall_warnings(scene: &Scene, p: &Params) -> Vec<String> {
    if scene.settings.viscosity_model != ViscosityModel::Classic {
        return Vec::new();
    }
    let s = &scene.settings;
    scene
        .materials
        .liquids
        .iter()
        .zip(&p.exchange_achieved)
        .filter(|(_, &achieved)| achieved < 0.99)
        .map(|(liquid, &achieved)| {
            format!(
                "the classic viscosity model gives liquid '{}' only {:.1}% of its viscosity at \
                 particle radius {} m and {} substeps per frame (the fewest a frame takes); the \
                 implicit model gives all of it",
                liquid.name,
                100.0 * achieved,
                s.particle_radius,
                s.substeps
            )
        })
        .collect()
}

/// Velocity change of every liquid particle over one substep. Object particles take no part.
pub fn exchange(p: &Params, liquid: &LiquidParticles, lists: &Neighbourhoods) -> Vec<Vec3> {
    let n = liquid.len();
    let weight_sum: Vec<f32> = (0..n)
        .into_par_iter()
        .map(|i| {
            let xi = liquid.position[i];
            lists
                .near
                .list
                .of(i)
                .into_iter()
                .map(|j| {
                    p.viscosity_kernel.weight(
                        p.space
                            .delta(liquid.position[j as usize], xi)
                            .length_squared(),
                    )
                })
                .sum()
        })
        .collect();
    (0..n)
        .into_par_iter()
        .map(|i| {
            let xi = liquid.position[i];
            let mi = liquid.material[i] as usize;
            let pi = liquid.velocity[i] * p.liquid_mass[mi];
            let inv_si = if weight_sum[i] > 0.0 {
                1.0 / weight_sum[i]
            } else {
                0.0
            };
            let mut dp = Vec3::ZERO;
            each_neighbour!(j in lists.near.list.of(i) => {
                let j = j as usize;
                let k = p
                    .viscosity_kernel
                    .weight(p.space.delta(liquid.position[j], xi).length_squared());
                if k <= 0.0 {
                    continue;
                }
                let mj = liquid.material[j] as usize;
                let rate = 0.5 * (p.exchange_rate[mi] + p.exchange_rate[mj]);
                let inv_sj = 1.0 / weight_sum[j];
                let c = rate * k * p.dt * 0.5 * (inv_si + inv_sj);
                let pj = liquid.velocity[j] * p.liquid_mass[mj];
                dp -= c * (pi - pj);
            });
            dp / p.liquid_mass[mi]
        })
        .collect()
}
