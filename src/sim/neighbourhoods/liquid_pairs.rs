//! Liquid–liquid pairs within a reach, kept exact as the liquid moves: particles are
//! measured against the liquid's mean motion, and only the movers are searched again and
//! patched in (the parent module's doc gives the reasoning and its bounds).

use glam::{DVec3, Vec3};
use rayon::prelude::*;

use super::PATCH_LIMIT;
use crate::sim::neighbours::{CellGrid, NeighbourList, Space};
use crate::sim::picking::indices_where;

/// Liquid–liquid pairs within `reach`, patched for movers.
pub struct LiquidPairs {
    pub list: NeighbourList,
    reach: f32,
    /// Mean position at the last full build: the mean's displacement since is the reference
    /// motion. (The positions themselves were kept for it, 12 bytes per particle.)
    built_mean: DVec3,
    /// Each particle's position minus the reference motion when its neighbours were found.
    anchor: Vec<Vec3>,
}

impl LiquidPairs {
    pub(super) fn build(space: Space, liquid: &[Vec3], reach: f32) -> Self {
        LiquidPairs {
            list: CellGrid::build(liquid, reach, space)
                .neighbour_lists(liquid, liquid, reach, true),
            reach,
            built_mean: mean(liquid),
            anchor: liquid.to_vec(),
        }
    }

    pub(super) fn from_list(list: NeighbourList, liquid: &[Vec3], reach: f32) -> Self {
        LiquidPairs {
            list,
            reach,
            built_mean: mean(liquid),
            anchor: liquid.to_vec(),
        }
    }

    pub(super) fn refresh(&mut self, space: Space, liquid: &[Vec3], skin: f32) {
        let n = liquid.len();
        if n == 0 {
            return;
        }
        let shift = (mean(liquid) - self.built_mean).as_vec3();
        // How far a particle has moved, against the mean motion, since its neighbours were
        // searched.
        let drift = |i: usize| (liquid[i] - shift - self.anchor[i]).length();
        let is_mover = |drifted: f32| drifted > 0.5 * skin;
        let movers = indices_where(n, |i| is_mover(drift(i)));
        if movers.is_empty() {
            return;
        }
        if movers.len() as f32 > PATCH_LIMIT * n as f32 {
            // The old lists go first: they are the largest array of the substep, and holding
            // them while the new ones are built was the solver's memory peak.
            self.list = NeighbourList::default();
            *self = LiquidPairs::build(space, liquid, self.reach);
            return;
        }
        // A mover lists the neighbours within the lists' reach plus how far each has
        // drifted (see the module's doc), which a search half a skin further finds. (Listing
        // all it finds, the extra pairs slowed the fan by 5-12%.)
        let mut replaced = search_around(space, liquid, &movers, self.reach + 0.5 * skin);
        replaced.par_iter_mut().for_each(|(m, near)| {
            let xm = liquid[*m as usize];
            near.retain(|&j| {
                let drifted = drift(j as usize);
                // A mover's drift starts again from nothing at this search.
                let allowance = if is_mover(drifted) { 0.0 } else { drifted };
                space.delta(xm, liquid[j as usize]).length() <= self.reach + allowance
            });
        });
        let added = joined(&self.list, &movers, &replaced);
        self.list.patch(&replaced, &added);
        for &m in &movers {
            self.anchor[m as usize] = liquid[m as usize] - shift;
        }
    }
}

/// Each mover's neighbours within `reach`, in the order a grid over all the liquid would
/// list them. The grid holds only the liquid within reach of the movers' bounding box: the
/// movers are a splash or an impact's front, and bucketing all the liquid for them at every
/// patch (hundreds per frame on the fan) cost more than searching.
fn search_around(
    space: Space,
    liquid: &[Vec3],
    movers: &[u32],
    reach: f32,
) -> Vec<(u32, Vec<u32>)> {
    let margin = Vec3::splat(reach);
    let (lo, hi) = movers.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), &m| (lo.min(liquid[m as usize]), hi.max(liquid[m as usize])),
    );
    let (lo, hi) = (lo - margin, hi + margin);
    let around: Vec<u32> = if space.is_periodic() {
        Vec::new()
    } else {
        indices_where(liquid.len(), |i| {
            let x = liquid[i];
            x.cmpge(lo).all() && x.cmple(hi).all()
        })
    };
    if around.is_empty() || around.len() == liquid.len() {
        let grid = CellGrid::build(liquid, reach, space);
        return movers
            .par_iter()
            .map(|&m| {
                (
                    m,
                    grid.points_near(liquid, liquid[m as usize], reach, Some(m)),
                )
            })
            .collect();
    }
    // Cells are keyed from the domain's corner, so the subset's grid lists each mover's
    // neighbours in the same order as the whole liquid's would.
    let subset: Vec<Vec3> = around.iter().map(|&i| liquid[i as usize]).collect();
    let grid = CellGrid::build(&subset, reach, space);
    movers
        .par_iter()
        .map(|&m| {
            let own = around.binary_search(&m).ok().map(|k| k as u32);
            let near = grid.points_near(&subset, liquid[m as usize], reach, own);
            (m, near.into_iter().map(|k| around[k as usize]).collect())
        })
        .collect()
}

/// The movers join the lists of the particles they came near (other than movers, whose
/// lists are replaced whole): for each such particle in order, the movers to add, in order.
fn joined(
    list: &NeighbourList,
    movers: &[u32],
    replaced: &[(u32, Vec<u32>)],
) -> Vec<(u32, Vec<u32>)> {
    let mut pairs: Vec<(u32, u32)> = replaced
        .par_iter()
        .flat_map_iter(|(m, near)| {
            near.iter()
                .filter(|&&j| {
                    movers.binary_search(&j).is_err() && !list.of(j as usize).contains(*m)
                })
                .map(move |&j| (j, *m))
        })
        .collect();
    pairs.par_sort_unstable();
    let mut added: Vec<(u32, Vec<u32>)> = Vec::new();
    for (j, m) in pairs {
        match added.last_mut() {
            Some((last, joining)) if *last == j => joining.push(m),
            _ => added.push((j, vec![m])),
        }
    }
    added
}

/// Mean of the positions, summed in f64 in order.
fn mean(x: &[Vec3]) -> DVec3 {
    x.iter().map(|p| p.as_dvec3()).sum::<DVec3>() / x.len().max(1) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validation::noise::uniform_noise;

    /// A block of liquid on a jittered 2r lattice, r = 1 cm.
    fn block(cells: i32) -> Vec<Vec3> {
        let mut noise = uniform_noise(3);
        let mut x = Vec::new();
        for k in 0..cells {
            for j in 0..cells {
                for i in 0..cells {
                    let jitter = Vec3::new(noise(), noise(), noise()) * 0.004;
                    x.push(Vec3::new(i as f32, j as f32, k as f32) * 0.02 + jitter);
                }
            }
        }
        x
    }

    #[test]
    fn movers_in_one_corner_are_searched_as_on_a_grid_of_all_the_liquid() {
        let space = Space::from_parts(Vec3::splat(-1.0), Vec3::splat(2.0), [false; 3]);
        let mut liquid = block(12);
        let reach = 0.045;
        // A splash in one corner: the particles there jump up to 1.5 r along each axis.
        let mut noise = uniform_noise(11);
        let movers: Vec<u32> = (0..liquid.len() as u32)
            .filter(|&i| liquid[i as usize].max_element() < 0.06)
            .collect();
        for &m in &movers {
            liquid[m as usize] += Vec3::new(noise(), noise(), noise()) * 0.03;
        }
        let whole = CellGrid::build(&liquid, reach, space);
        let expected: Vec<(u32, Vec<u32>)> = movers
            .iter()
            .map(|&m| {
                (
                    m,
                    whole.points_near(&liquid, liquid[m as usize], reach, Some(m)),
                )
            })
            .collect();
        assert!(expected.iter().all(|(_, near)| !near.is_empty()));
        assert_eq!(search_around(space, &liquid, &movers, reach), expected);
    }
    /// A pair a mover's new search missed, but that a neighbour's swing back brings into
    /// reach: every particle stays within half the skin of where it was when its neighbours
    /// were last searched (none is a mover again), yet the two close by 1.35 skins in all. A
    /// mover's search must reach half a skin further than the lists.
    #[test]
    fn a_pair_a_mover_missed_is_listed_when_its_neighbour_swings_back() {
        let space = Space::from_parts(Vec3::splat(-1.0), Vec3::splat(2.0), [false; 3]);
        let (force_reach, skin) = (0.04, 0.005);
        let reach = force_reach + skin;
        // Particle 0 at the origin, particle 1 just within reach of it along x, and a block
        // far from both that holds the mean motion still.
        let mut liquid = vec![Vec3::ZERO, Vec3::new(force_reach + 0.1 * skin, 0.0, 0.0)];
        liquid.extend(block(10).into_iter().map(|x| x + Vec3::splat(0.5)));
        let mut pairs = LiquidPairs::build(space, &liquid, reach);
        assert!(pairs.list.of(0).contains(1));
        let lists_hold_every_pair_in_force_reach = |pairs: &LiquidPairs, liquid: &[Vec3]| {
            let d = liquid[0].distance(liquid[1]);
            d > force_reach || (pairs.list.of(0).contains(1) && pairs.list.of(1).contains(0))
        };
        // Particle 1 drifts away by 0.45 skin (not a mover), particle 0 by 0.55 skin the other
        // way (a mover): its new search finds particle 1 just beyond the lists' reach.
        liquid[1].x += 0.45 * skin;
        liquid[0].x -= 0.55 * skin;
        pairs.refresh(space, &liquid, skin);
        assert!(lists_hold_every_pair_in_force_reach(&pairs, &liquid));
        // Both swing back, particle 1 by 0.9 skin and particle 0 by 0.45: neither is a mover,
        // and the two are now well within the force reach.
        liquid[1].x -= 0.9 * skin;
        liquid[0].x += 0.45 * skin;
        pairs.refresh(space, &liquid, skin);
        assert!(liquid[0].distance(liquid[1]) < force_reach - 0.2 * skin);
        assert!(lists_hold_every_pair_in_force_reach(&pairs, &liquid));
    }
}
