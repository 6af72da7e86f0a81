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
pub(crate) const TENSION_BAND: f32 = 0.15;

/// Below this share of ρ0 a particle at the free surface stands off the liquid rather than
/// in it, and pulls its neighbours in as a stretched interior particle does, towards this
/// density. A particle in a flat lattice surface is at 0.81 ρ0, on an edge 0.65, at a corner
/// 0.51 (so a lattice block is left as it is); one standing 3r off a rope's surface about 0.25.
/// One-sided, nothing brought such a particle back: as a poured rope stretched and thinned,
/// its surface particles were left standing off it in nubs and, past the mesher's reach of
/// about 3r, as specks around single particles (the `honey-pour` demo's frames 48, 60 and 72:
/// 42, 23 and 39 pieces of fewer than 8 particles). Over the first 0.75 s of that pour at 24
/// fps (`examples/rope_sweep.rs`), pieces of fewer than 8 particles per frame after
/// touchdown: up to 82 one-sided, at most 1 (a particle-less mesh fragment) with the pull;
/// the meshed upper rope's outer surface off its cylinder 0.15-0.17 → 0.045-0.055 of its
/// radius. 0.45 and 0.5 did no better.
pub(super) const STANDING_OFF: f32 = 0.4;

/// A particle is at a free surface when its neighbours' centroid lies this many radii or more
/// away from it: about 1.06 for a flat lattice surface (17 of the 26 neighbours, 9 of them a
/// layer down), 0 inside a lattice, and near 0 inside a liquid stretched evenly.
const SURFACE_CENTROID_RADII: f32 = 0.5;

/// Fewer neighbours than this is a droplet or a strand a particle or two thick: no interior.
const MIN_INTERIOR_NEIGHBOURS: u32 = 8;

/// A drop of this many particles or fewer is left as it is: two or three particles cannot
/// reach `STANDING_OFF` at any spacing the contacts allow, and would be drawn onto each other.
const MAX_LONE_NEIGHBOURS: u32 = 2;

/// Where a liquid particle is, for the correction's pulls.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Place {
    /// Inside the liquid: pulls beyond `TENSION_BAND`.
    Interior,
    /// At a free surface: pulls below `STANDING_OFF`.
    Surface,
    /// A particle of a drop too small to have a surface (`MAX_LONE_NEIGHBOURS`): never pulls.
    Lone,
}

/// Where each liquid particle is, counting liquid and wall neighbours within the density
/// kernel. Decided once per correction: the passes move particles by a fraction of a radius.
pub(super) fn places(p: &Params, x: &Positions, lists: &Neighbourhoods) -> Vec<Place> {
    (0..x.liquid.len())
        .into_par_iter()
        .map(|i| place(p, x, lists, i))
        .collect()
}

fn place(p: &Params, x: &Positions, lists: &Neighbourhoods, i: usize) -> Place {
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
    if count >= MIN_INTERIOR_NEIGHBOURS
        && (offsets / count as f32).length() < SURFACE_CENTROID_RADII * p.radius
    {
        Place::Interior
    } else if count > MAX_LONE_NEIGHBOURS {
        Place::Surface
    } else {
        Place::Lone
    }
}
