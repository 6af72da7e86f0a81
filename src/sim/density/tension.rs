//! Tension inside the liquid: where the liquid is stretched, its particles pull each other in.
//!
//! The correction is one-sided at a free surface, where a particle is under-dense only because
//! it has no neighbours beyond the surface. Inside the liquid, an under-dense particle means
//! the liquid is being pulled apart, and a real liquid answers that with tension (negative
//! pressure): a stretched honey thread narrows, it does not open voids. Corrected one-sided
//! everywhere, a poured stream kept the lattice it left the nozzle in, its layers drifting
//! apart to 3r without narrowing, and it broke at a lattice plane (`density_notes.md`,
//! "Why a poured thread breaks apart").
//!
//! So an interior particle that is more than `TENSION_BAND` under-dense pulls its neighbours
//! in, by the same Newton step that pushes them out when compressed, towards ρ0(1 − band).
//! The band keeps the pulls to liquid that is being torn: a resting or flowing liquid sits
//! within a few percent of ρ0 and is corrected exactly as before, so only stretched threads
//! and sheets cost passes.

use glam::Vec3A;
use rayon::prelude::*;

use super::super::neighbourhoods::Neighbourhoods;
use super::super::neighbours::each_neighbour;
use super::super::params::Params;
use super::Positions;

/// How far under ρ0 an interior particle may be before it pulls (a fraction of ρ0). On the
/// `honey-pour` scene (r = 0.5 mm, 1 s, `examples/pour_probe.rs`, nozzle holding 4 layers),
/// frames after touchdown whose stream was not one piece, and the density passes it took:
/// one-sided 34 of 110 and 1,055 passes; band 0.25: 37 and 1,629; 0.15: none and 2,770;
/// 0.10: none and 4,184; 0.05: none and 6,390; no band (pull at any deficit): 6-9 and
/// 11,000-20,000 (each pull then compresses a neighbour that the next pass pushes back).
pub(super) const TENSION_BAND: f32 = 0.15;

/// A particle is at a free surface when its neighbours' centroid lies this many radii or more
/// away from it: about 1.06 for a flat lattice surface (17 of the 26 neighbours, 9 of them a
/// layer down), 0 inside a lattice, and near 0 inside a liquid stretched evenly.
const SURFACE_CENTROID_RADII: f32 = 0.5;

/// Fewer neighbours than this is a droplet or a strand a particle or two thick: no interior.
const MIN_INTERIOR_NEIGHBOURS: u32 = 8;

/// Whether each liquid particle is inside the liquid (not at a free surface), counting liquid
/// and wall neighbours within the density kernel. Decided once per correction: the passes move
/// particles by a fraction of a radius.
pub(super) fn interior(p: &Params, x: &Positions, lists: &Neighbourhoods) -> Vec<bool> {
    (0..x.liquid.len())
        .into_par_iter()
        .map(|i| is_interior(p, x, lists, i))
        .collect()
}

fn is_interior(p: &Params, x: &Positions, lists: &Neighbourhoods, i: usize) -> bool {
    let xi = x.liquid[i];
    let support2 = p.density_kernel.support * p.density_kernel.support;
    let (mut offsets, mut count) = (Vec3A::ZERO, 0u32);
    let mut add = |d: Vec3A| {
        if d.length_squared() < support2 {
            offsets += d;
            count += 1;
        }
    };
    each_neighbour!(j in lists.near.list.of(i) => {
        if j as usize != i {
            add(p.space.delta_aligned(x.liquid[j as usize], xi));
        }
    });
    each_neighbour!(k in lists.objects.of(i) => {
        add(p.space.delta_aligned(x.walls[k as usize], xi));
    });
    count >= MIN_INTERIOR_NEIGHBOURS
        && (offsets / count as f32).length() < SURFACE_CENTROID_RADII * p.radius
}
