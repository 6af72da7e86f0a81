//! The neighbour lists one substep works with, and when they must be rebuilt.
//!
//! Each list is built with a skin beyond its interaction's reach and stays exact while no pair
//! can have closed the skin: for liquid pairs, while every particle has moved less than half
//! the skin relative to the mean motion (a falling drop keeps its lists); for liquid–object
//! pairs, while liquid and object displacements together stay under the skin. The three lists
//! are tracked separately because they are needed at different times: `near` for the forces and
//! the density correction, `contact` (much smaller) in every move, `objects` throughout.

use glam::Vec3;

use super::neighbours::{CellGrid, NeighbourList};
use super::params::Params;

pub struct Neighbourhoods {
    /// Liquid neighbours within the reach of forces and density (4r) + skin.
    pub near: NeighbourList,
    /// Liquid neighbours within the contact distance + skin.
    pub contact: NeighbourList,
    /// Object particles within the object reach + skin of each liquid particle.
    pub objects: NeighbourList,
    near_built_at: Vec<Vec3>,
    contact_built_at: Vec<Vec3>,
    objects_built_at: (Vec<Vec3>, Vec<Vec3>),
}

impl Neighbourhoods {
    pub fn build(p: &Params, liquid: &[Vec3], objects: &[Vec3]) -> Self {
        let mut n = Neighbourhoods {
            near: NeighbourList::default(),
            contact: NeighbourList::default(),
            objects: NeighbourList::default(),
            near_built_at: Vec::new(),
            contact_built_at: Vec::new(),
            objects_built_at: (Vec::new(), Vec::new()),
        };
        n.rebuild_near(p, liquid);
        n.contact = n
            .near
            .filtered(&p.space, liquid, liquid, p.liquid_contact + p.skin);
        n.contact_built_at = liquid.to_vec();
        n.rebuild_objects(p, liquid, objects);
        n
    }

    fn rebuild_near(&mut self, p: &Params, liquid: &[Vec3]) {
        self.near = liquid_pairs(p, liquid, p.force_reach + p.skin);
        self.near_built_at = liquid.to_vec();
    }

    fn rebuild_objects(&mut self, p: &Params, liquid: &[Vec3], objects: &[Vec3]) {
        let reach = p.object_reach + p.skin;
        self.objects = if objects.is_empty() {
            NeighbourList {
                start: vec![0; liquid.len() + 1],
                index: Vec::new(),
            }
        } else {
            CellGrid::build(objects, reach, p.space).neighbour_lists(objects, liquid, reach, false)
        };
        self.objects_built_at = (liquid.to_vec(), objects.to_vec());
    }

    /// Before a move's contacts: keeps `contact` and `objects` exact.
    pub fn refresh_for_contacts(&mut self, p: &Params, liquid: &[Vec3], objects: &[Vec3]) {
        if relative_displacement(&self.contact_built_at, liquid) > 0.5 * p.skin {
            self.contact = liquid_pairs(p, liquid, p.liquid_contact + p.skin);
            self.contact_built_at = liquid.to_vec();
        }
        self.refresh_objects(p, liquid, objects);
    }

    /// Before a density pass: keeps `near` and `objects` exact.
    pub fn refresh_for_density(&mut self, p: &Params, liquid: &[Vec3]) {
        if relative_displacement(&self.near_built_at, liquid) > 0.5 * p.skin {
            self.rebuild_near(p, liquid);
        }
        let objects = std::mem::take(&mut self.objects_built_at.1);
        self.objects_built_at.1 = objects.clone();
        self.refresh_objects(p, liquid, &objects);
    }

    fn refresh_objects(&mut self, p: &Params, liquid: &[Vec3], objects: &[Vec3]) {
        let moved = max_displacement(&self.objects_built_at.0, liquid)
            + max_displacement(&self.objects_built_at.1, objects);
        if moved > p.skin {
            self.rebuild_objects(p, liquid, objects);
        }
    }
}

fn liquid_pairs(p: &Params, liquid: &[Vec3], reach: f32) -> NeighbourList {
    CellGrid::build(liquid, reach, p.space).neighbour_lists(liquid, liquid, reach, true)
}

/// Largest displacement relative to the mean displacement.
fn relative_displacement(before: &[Vec3], after: &[Vec3]) -> f32 {
    if before.is_empty() {
        return 0.0;
    }
    let mean = before.iter().zip(after).map(|(a, b)| *b - *a).sum::<Vec3>() / before.len() as f32;
    before
        .iter()
        .zip(after)
        .map(|(a, b)| (*b - *a - mean).length_squared())
        .fold(0.0, f32::max)
        .sqrt()
}

fn max_displacement(before: &[Vec3], after: &[Vec3]) -> f32 {
    before
        .iter()
        .zip(after)
        .map(|(a, b)| a.distance_squared(*b))
        .fold(0.0, f32::max)
        .sqrt()
}
