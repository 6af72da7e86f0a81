//! The neighbour lists one substep works with, and when they must be rebuilt.
//!
//! Lists are built with a skin beyond each interaction's reach. They stay exact while no pair
//! can have closed the skin: for liquid pairs, while every particle has moved less than half
//! the skin relative to the mean motion (a falling drop keeps its lists); for liquid–object
//! pairs, while liquid and object displacements together stay under the skin.

use glam::Vec3;

use super::neighbours::{CellGrid, NeighbourList};
use super::params::Params;

pub struct Neighbourhoods {
    /// Liquid neighbours within the force reach (adhesion and viscosity) + skin.
    pub forces: NeighbourList,
    /// Liquid neighbours within the density support + skin.
    pub density: NeighbourList,
    /// Liquid neighbours within the contact distance + skin.
    pub contact: NeighbourList,
    /// Object particles within the object reach + skin of each liquid particle.
    pub objects: NeighbourList,
    liquid_at_build: Vec<Vec3>,
    objects_at_build: Vec<Vec3>,
    pub rebuilds: u32,
}

impl Neighbourhoods {
    pub fn build(p: &Params, liquid: &[Vec3], objects: &[Vec3]) -> Self {
        let mut n = Neighbourhoods {
            forces: NeighbourList::default(),
            density: NeighbourList::default(),
            contact: NeighbourList::default(),
            objects: NeighbourList::default(),
            liquid_at_build: Vec::new(),
            objects_at_build: Vec::new(),
            rebuilds: 0,
        };
        n.rebuild_liquid(p, liquid);
        n.rebuild_objects(p, liquid, objects);
        n
    }

    fn rebuild_liquid(&mut self, p: &Params, liquid: &[Vec3]) {
        let reach = p.force_reach + p.skin;
        let grid = CellGrid::build(liquid, reach, p.space);
        self.forces = grid.neighbour_lists(liquid, liquid, reach, true);
        self.density =
            self.forces
                .filtered(&p.space, liquid, liquid, p.density_kernel.support + p.skin);
        self.contact = self
            .density
            .filtered(&p.space, liquid, liquid, p.liquid_contact + p.skin);
        self.liquid_at_build = liquid.to_vec();
        self.rebuilds += 1;
    }

    fn rebuild_objects(&mut self, p: &Params, liquid: &[Vec3], objects: &[Vec3]) {
        let reach = p.object_reach + p.skin;
        if objects.is_empty() {
            self.objects = NeighbourList::from_lists(vec![Vec::new(); liquid.len()]);
        } else {
            let grid = CellGrid::build(objects, reach, p.space);
            self.objects = grid.neighbour_lists(objects, liquid, reach, false);
        }
        self.objects_at_build = objects.to_vec();
        self.liquid_at_build = liquid.to_vec();
    }

    /// Rebuilds whatever lists particle motion since their build may have made incomplete.
    pub fn refresh(&mut self, p: &Params, liquid: &[Vec3], objects: &[Vec3]) {
        let (relative, absolute) = displacement(&self.liquid_at_build, liquid);
        let objects_moved = max_displacement(&self.objects_at_build, objects);
        let liquid_stale = relative > 0.5 * p.skin;
        let objects_stale = absolute + objects_moved > p.skin;
        if liquid_stale {
            self.rebuild_liquid(p, liquid);
        }
        if liquid_stale || objects_stale {
            self.rebuild_objects(p, liquid, objects);
        }
    }
}

impl Neighbourhoods {
    /// `refresh` for when only liquid particles have moved (density correction).
    pub fn refresh_liquid_only(&mut self, p: &Params, liquid: &[Vec3]) {
        let objects = std::mem::take(&mut self.objects_at_build);
        self.refresh(p, liquid, &objects);
        if self.objects_at_build.is_empty() {
            self.objects_at_build = objects;
        }
    }
}

/// Largest displacement relative to the mean displacement, and largest absolute displacement.
fn displacement(before: &[Vec3], after: &[Vec3]) -> (f32, f32) {
    if before.is_empty() {
        return (0.0, 0.0);
    }
    let mean = before.iter().zip(after).map(|(a, b)| *b - *a).sum::<Vec3>() / before.len() as f32;
    before
        .iter()
        .zip(after)
        .fold((0.0f32, 0.0f32), |(rel, abs), (a, b)| {
            let d = *b - *a;
            (rel.max((d - mean).length()), abs.max(d.length()))
        })
}

fn max_displacement(before: &[Vec3], after: &[Vec3]) -> f32 {
    before
        .iter()
        .zip(after)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f32::max)
}
