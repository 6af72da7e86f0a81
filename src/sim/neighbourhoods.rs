//! The neighbour lists one substep works with, and how they are kept exact while particles
//! move.
//!
//! Each list is built with a skin beyond its interaction's reach. A liquid pair can only have
//! come within reach if the two particles moved more than the skin relative to each other, so
//! particles are measured against the mean motion (a falling drop keeps its lists) and only
//! those that moved more than half the skin — the *movers*, typically a few splashing or
//! falling particles — get their neighbours searched again, and are added to the lists of the
//! particles they came near. A mover lists each neighbour within the lists' reach plus how far
//! that neighbour has drifted since its own search: a neighbour may stand up to half a skin
//! from where its list was made and swing as far back the other way without becoming a mover,
//! so the two can close by one and a half skins before either is searched again. (Listing only
//! the neighbours within the lists' reach, such a pair went missing while within reach:
//! `a_pair_a_mover_missed_is_listed_when_its_neighbour_swings_back` builds one; the object
//! lists' counterpart is in `refresh_objects`.) Only when movers are many is everything
//! rebuilt. The three lists are tracked apart because they are needed at different times:
//! `near` for forces and density, `objects` throughout, and the contact lists (much smaller)
//! only in the moves. Those are cut from the near lists when a substep's moves begin and
//! dropped when they end, so the viscosity solve, the substep's memory peak, does not hold them
//! (the fan's peak fell by 2 MB of 23).
//!
//! (Cutting the contact lists from the near lists within the moves too, at every refresh where
//! those still hold every contact pair, instead of patching or rebuilding them on a grid, was
//! tried and measured: on the honey drop the near lists held them in only 142 of 350 contact
//! refreshes, the ones that were cheap anyway, and
//! the contacts' refresh time stayed at 0.40 s over 10 frames. Refreshing the near lists
//! first whenever they did not hold them made it 7% slower overall.)
//!
//! Keeping the lists costs about a quarter of a bake: on 12 honey-drop frames, 0.5 s of the
//! density passes' 1.4 s and 0.5 s of the moves' 0.85 s went into refreshes, and on 4
//! frames of a 100k honey block the density passes' refreshes took 8.8 s of 36. The near
//! lists are patched at nearly every density pass (424 of the honey drop's 429, 1,040 of
//! the fan's 1,055): a few hundred particles cross the skin's threshold in every pass of
//! an impact. Tried and measured, not adopted (`gloop bench
//! --frames 10`, alternating binaries):
//! - Lists of the density passes' own, within the kernel's support + 0.1 r, cut from the
//!   near lists when the correction starts (the near lists' skin puts 30% of their pairs
//!   beyond the support, visited by every pass for an exact zero). Their thin skin made
//!   movers in nearly every pass (149 rebuilds in 12 honey-drop frames), and a second list
//!   raised the fan's heap 294 → 324 B/particle: honey drop 0.29 → 0.34 s/frame, fan the same.
//! - The near rows sorted in place, pairs within support + 0.2 r first (stably, as the
//!   viscosity's couplings do), the passes reading only the fronts while no particle had
//!   moved 0.1 r since: every patch of the near lists needs a new sort, so the sorts cost
//!   more than the pairs saved (honey drop 0.278 → 0.313 s/frame, fan 2.00 → 2.10).
//!   Searching again, when the correction starts, every particle within a reserve of
//!   0.1-0.2 r of the threshold did not stop the patches (433-444 of ~440 passes). Nor did
//!   doing so at every patch (each patch also searching every particle past 0.6 of the
//!   threshold): a 100k honey block's 4 frames took 518 patches instead of 597, and 6% more
//!   time in them (2.93 → 3.11 s); past 0.3 of it, over a tenth of the liquid, so no wider.
//! - A smaller skin (0.35 r, 0.4 r): fan 6-10% and paint drops 5-10% faster, honey drop
//!   2-15% slower (more rebuilds in its impact).
//! - Patching up to 20% or 35% of movers instead of 10%: no faster, heap up to 380 B/p.
//! - A patch's grid over just the cells its movers search (27 around each) instead of
//!   their bounding box: a third of the fan's liquid instead of half, but a hash lookup
//!   per particle cost more than the smaller grid saved (search 1.5 → 2.1 s in 5 frames).
//!
//! Measured later with the phase times (`sim::phases`, `examples/frame_profile.rs`), the
//! upkeep is a third of every scene's time (32-34% of the honey drop, the fan and a 30k
//! honey block). Tried then, not adopted (two rounds, alternating binaries):
//! - Searching a patch's movers in blocks of 16 from the patch grid's points copied per axis,
//!   as `CellGrid::neighbour_lists` searches (the same lists): the near patches' searches
//!   took as long (honey drop frames 2-14 0.056 s both ways, fan frames 2-6 0.78 → 0.81 s),
//!   the copy costing what the blocks saved; movers are scattered, and few share a cell.
//! - A skin of 1 r for the object lists alone (fewer rebuilds where liquid flows along a
//!   standing obstacle): honey drop frames 2-14 2.19 → 2.17 s, fan 2-7 1-3% faster, but a
//!   30k honey block on a plate 0.94 → 0.97 s/frame (more wall pairs in every pass).
//! - Rebuilding the contact lists above 3% or 20% of movers instead of 10%: their upkeep on
//!   the fan's frames 2-7 took 1.80-1.88 s at all three (93-96 of its 162 moves find over a
//!   tenth of the liquid moving), and the honey drop's 0.11-0.13 s.
//!
//! Where the movers come from (counted alongside the real lists, not built): measured
//! against the mean motion of each run of 64 consecutive particles (the liquid is sorted by
//! blocks of cells, so a run is a compact lump) instead of all the liquid's, the contacts'
//! movers fell by 88% on the honey drop's frames 2-14, 94% on the fan's 2-7 and 94% on the
//! block's 5 frames; the near lists' by 76%, 60% and 47%. But that leaves out the pairs
//! between lumps, which a reference per lump must bound too: counted with them (a lump pair
//! whose spheres come within reach is tracked, and once the two slide past or towards each
//! other by half a slip allowance W, their particles within reach of the other's sphere are
//! searched again, the lists reaching W further), the contacts' movers rose instead. Over
//! the same refreshes (each substep's up to its first rebuild of the contacts) the
//! honey drop's 26k (6 rebuilds) became 2.4M at W = 0.25 r, 1.6M at 0.5 r and 333k (59
//! rebuilds) at 1 r; the fan's 1.5M became 2.5-2.7M. Neighbouring lumps of a shearing
//! liquid slide past each other all the time, and a lump's sphere reaches over most of its
//! neighbours' particles. A reference motion per lump is not the lever it first looked.
//!
//! Nor is an affine reference for all the liquid (its displacement since the anchors fitted
//! by least squares as t + G·a, which follows a column stretched by the density passes;
//! pairs then close by up to |G|·reach beyond the two drifts, which the threshold gives up).
//! Counted alongside the near lists' refreshes of a 100k honey block's 4 frames
//! (`examples/honey_drop_bench.rs 50 50 40 4`), the movers fell only from 3.01M to 1.88M
//! (−37%), and that count ignores the anchors' different epochs (a mover's anchor is taken
//! under the fit of its own search, so the bound must also cover how far G has changed
//! since the oldest anchor), which raises it. Not built.
//!
//! Tried once the full search was 2.4 times faster (`neighbours::cell_grid::full_search`),
//! not adopted (alternating binaries, CPU time, which is steadier here than wall time):
//! - Where the last move's contacts need a rebuild, refreshing the near lists there
//!   instead and cutting the contacts from them. The density correction's first pass had
//!   rebuilt the near lists in every such substep (14 of a 30k honey block's 24, 40 of
//!   the fan's 63), so that rebuild would come early and the contacts' search go. The
//!   fan's list upkeep over frames 2-8 fell only from 4.06/3.99 to 3.94/3.93 s (cutting
//!   64k particles' contacts from the near lists is no cheap filter), its CPU time
//!   21.92/21.42 → 21.54/21.49 s; the 30k block's 4.81/4.62 → 4.81/4.73 s.
//! - A patch's additions passed as (particle, mover) pairs rather than a list per
//!   particle (thousands of small allocations per patch): the same lists, a 30k honey
//!   block's CPU time 4.81/4.90/4.81 → 4.90/4.98/4.86 s.
//! - `PATCH_LIMIT` at 3% or 5% instead of 10%, all three lists (a near patch now costs
//!   about 0.15 ms plus 4.5 µs per mover on the honey drop, a rebuild 1.6 ms, so 3% looked
//!   like the break-even): the honey drop's frames 2-13 took 2.47/2.54 s of CPU time at
//!   10%, 2.53/2.56 at 3% and 2.48/2.55 at 5%; the fan's 2-4 12.78/12.75 → 12.93/12.51 at 5%.

use std::sync::Arc;

use glam::Vec3;
use rayon::prelude::*;

use super::neighbours::{CellGrid, NeighbourList};
use super::params::Params;
use super::picking::indices_where;
use super::LiquidParticles;

mod liquid_pairs;
#[cfg(test)]
mod tests;

pub use liquid_pairs::LiquidPairs;

/// Above this fraction of movers, a full rebuild is cheaper than patching.
const PATCH_LIMIT: f32 = 0.1;

/// How far a liquid particle may drift from where its object neighbours were searched, as a
/// share of the object lists' skin less how far the objects have moved since the lists were
/// built, before it is searched again. A liquid particle and an object part by at most the
/// sum of the two drifts, so the whole of it would keep the lists exact; a tenth is kept
/// back for rounding. (The liquid pairs' lists must split their skin between two drifting
/// particles. The object lists once did so too, at half: the honey drop, whose liquid rests
/// on a standing ball, took 0.125/0.124 s per frame instead of 0.117/0.118 (`gloop bench
/// --frames 10`, alternating binaries, two rounds), the paint drops 0.094 instead of 0.092;
/// a 30k honey block and the fan within noise.)
const OBJECT_LIST_LIQUID_SHARE: f32 = 0.9;

pub struct Neighbourhoods {
    /// Liquid neighbours within the reach of forces and density (4r) + skin.
    pub near: LiquidPairs,
    /// Object particles within the object reach + skin of each liquid particle.
    pub objects: NeighbourList,
    object_grid: Option<Arc<CellGrid>>,
    objects_built_at: Vec<Vec3>,
    /// The box around `objects_built_at` (min, max), for `far_from_objects`.
    objects_box: (Vec3, Vec3),
    /// How far the objects had moved from `objects_built_at` (the largest displacement) at
    /// the last refresh that was given where they stand.
    objects_moved: f32,
    liquid_anchor: Vec<Vec3>,
    /// Where each run of liquid from one block of 2 × 2 × 2 cells began when the liquid was
    /// sorted (the end as a last entry): the aggregates of the viscosity solve's coarse
    /// level. They stay valid while the lists do (no particle added or removed), however the
    /// particles move: an aggregate is any set of particles, a compact one just serves best.
    pub blocks: Vec<u32>,
}

impl Neighbourhoods {
    /// Reorders the liquid by blocks of grid cells (neighbours sit close in memory, and each
    /// block is a run: `blocks`), then builds the lists on that same grid rather than
    /// bucketing the particles a second time. `object_grid`, if given, is the grid of
    /// `objects` at these positions (standing obstacles keep theirs).
    pub fn sort_and_build(
        p: &Params,
        liquid: &mut LiquidParticles,
        objects: &[Vec3],
        object_grid: Option<Arc<CellGrid>>,
    ) -> Self {
        let reach = p.force_reach + p.skin;
        let grid = CellGrid::build(&liquid.position, reach, p.space);
        let (order, blocks) = grid.block_order();
        liquid.permute(&order.iter().map(|&i| i as usize).collect::<Vec<_>>());
        let grid = grid.renumbered_by(&order);
        let x = &liquid.position;
        let near = LiquidPairs::from_list(grid.neighbour_lists(x, x, reach, true), x, reach);
        Self::around(p, near, blocks, x, objects, object_grid)
    }

    fn around(
        p: &Params,
        near: LiquidPairs,
        blocks: Vec<u32>,
        liquid: &[Vec3],
        objects: &[Vec3],
        object_grid: Option<Arc<CellGrid>>,
    ) -> Self {
        let mut n = Neighbourhoods {
            near,
            blocks,
            objects: NeighbourList::default(),
            object_grid: None,
            objects_built_at: Vec::new(),
            objects_box: (Vec3::ZERO, Vec3::ZERO),
            objects_moved: 0.0,
            liquid_anchor: Vec::new(),
        };
        n.rebuild_objects(p, liquid, objects, object_grid);
        n
    }

    /// Rebuilds the object lists, on `grid` if given (it must be `objects`' grid at `reach`).
    fn rebuild_objects(
        &mut self,
        p: &Params,
        liquid: &[Vec3],
        objects: &[Vec3],
        grid: Option<Arc<CellGrid>>,
    ) {
        let reach = p.object_reach + p.skin;
        self.objects_box = crate::geometry::bounds(objects);
        if objects.is_empty() {
            self.objects = NeighbourList::empty(liquid.len());
            self.object_grid = None;
        } else {
            let grid = grid.unwrap_or_else(|| Arc::new(object_grid(p, objects)));
            // Only liquid near the objects is searched (the rest has empty lists): a moving
            // obstacle rebuilds these lists at every move, and searching (and bucketing) all of
            // a falling gel for a fan it has not reached was most of that work.
            let far = self.far_from_objects(p, 0.0);
            let near: Vec<u32> = (0..liquid.len() as u32)
                .filter(|&i| !far(liquid[i as usize]))
                .collect();
            self.objects = if near.len() == liquid.len() {
                grid.neighbour_lists(objects, liquid, reach, false)
            } else {
                let queries: Vec<Vec3> = near.iter().map(|&i| liquid[i as usize]).collect();
                grid.neighbour_lists(objects, &queries, reach, false)
                    .spread(&near, liquid.len())
            };
            self.object_grid = Some(grid);
        }
        self.objects_built_at = objects.to_vec();
        self.objects_moved = 0.0;
        self.liquid_anchor = liquid.to_vec();
    }

    /// The liquid pairs within contact distance + the contacts' skin, cut from the near
    /// lists. They hold every such pair because the near lists are exact (they hold every
    /// pair within the force reach, 4r, however the particles moved since they were built)
    /// and the contact reach is shorter (3r).
    pub fn contacts(&self, p: &Params, liquid: &[Vec3]) -> LiquidPairs {
        let reach = p.liquid_contact + p.contact_skin;
        debug_assert!(reach <= p.force_reach);
        LiquidPairs::from_list(
            self.near.list.filtered(&p.space, liquid, liquid, reach),
            liquid,
            reach,
        )
    }

    /// Before a move's contacts: keeps `contacts` and `objects` exact. `objects`: where the
    /// object particles stand now, or `None` if none of them can move (every obstacle stands
    /// still), which spares comparing each with where it stood (the 100k honey block's
    /// floor, 157k particles, at every move).
    pub fn refresh_for_contacts(
        &mut self,
        contacts: &mut LiquidPairs,
        p: &Params,
        liquid: &[Vec3],
        objects: Option<&[Vec3]>,
    ) {
        contacts.refresh(p.space, liquid, p.contact_skin);
        self.refresh_objects(p, liquid, objects);
    }

    /// At the start of a substep that carries the previous substep's lists over (`objects`
    /// as for `refresh_for_contacts`).
    pub fn refresh_for_substep(&mut self, p: &Params, liquid: &[Vec3], objects: Option<&[Vec3]>) {
        self.near.refresh(p.space, liquid, p.skin);
        self.refresh_objects(p, liquid, objects);
    }

    /// Before a density pass (objects have not moved since the last refresh).
    pub fn refresh_for_density(&mut self, p: &Params, liquid: &[Vec3]) {
        self.near.refresh(p.space, liquid, p.skin);
        self.refresh_objects(p, liquid, None);
    }

    /// Keeps the object lists exact for the liquid at `liquid` and the objects at `objects`.
    /// `None`: the objects have not moved since the last refresh, which measured how far
    /// they stand from where the lists were built (at most half a skin, or the lists would
    /// have been rebuilt).
    fn refresh_objects(&mut self, p: &Params, liquid: &[Vec3], objects: Option<&[Vec3]>) {
        if let Some(objects) = objects {
            self.objects_moved = max_displacement(&self.objects_built_at, objects);
        }
        let objects_moved = self.objects_moved;
        if let Some(objects) = objects.filter(|_| objects_moved > 0.5 * p.skin) {
            self.rebuild_objects(p, liquid, objects, None);
            return;
        }
        let Some(grid) = &self.object_grid else {
            return;
        };
        let budget = p.skin - objects_moved;
        let far = self.far_from_objects(p, objects_moved);
        let movers = indices_where(liquid.len(), |i| {
            let x = liquid[i];
            if far(x) {
                // Its list must be empty, however far it has moved.
                !self.objects.of(i).is_empty()
            } else {
                x.distance(self.liquid_anchor[i]) > OBJECT_LIST_LIQUID_SHARE * budget
            }
        });
        if movers.is_empty() {
            return;
        }
        if movers.len() as f32 > PATCH_LIMIT * liquid.len() as f32 {
            match objects {
                Some(objects) => self.rebuild_objects(p, liquid, objects, None),
                None => {
                    // Where the objects were built, on the grid already made of them.
                    let built_at = std::mem::take(&mut self.objects_built_at);
                    let grid = self.object_grid.clone();
                    self.rebuild_objects(p, liquid, &built_at, grid);
                    // They still stand as far from there as the last refresh found them.
                    self.objects_moved = objects_moved;
                }
            }
            return;
        }
        // Movers are searched against where the objects were when the lists were built (the
        // grid's own points), not where they are now: an object particle stays within m of
        // there (at most half a skin), while a mover stays within 0.9 (skin − m) of where it
        // was searched, so an object it misses stays beyond the object reach + 0.1 (skin − m).
        // (Searched against the objects' current positions, an object that moved away and
        // came back could be missed while within reach:
        // `an_object_a_mover_missed_is_listed_when_it_moves_back`.)
        let reach = p.object_reach + p.skin;
        let built_at = &self.objects_built_at;
        let replaced: Vec<(u32, Vec<u32>)> = movers
            .par_iter()
            .map(|&m| {
                (
                    m,
                    grid.points_near(built_at, liquid[m as usize], reach, None),
                )
            })
            .collect();
        self.objects.patch(&replaced, &[]);
        for &m in &movers {
            self.liquid_anchor[m as usize] = liquid[m as usize];
        }
    }

    /// Whether a liquid particle at x is too far from every object particle for any to be
    /// within the lists' reach (object reach + skin), the objects having moved up to
    /// `objects_moved` since the lists were built. Such a particle's list is empty and stays
    /// valid however far it moves: without this test, liquid falling towards an obstacle
    /// counted as movers at every move and rebuilt the object lists of every particle (29
    /// times in the honey drop's first frame, with not one object near). Off in periodic
    /// spaces, where the box is not a bound.
    fn far_from_objects(&self, p: &Params, objects_moved: f32) -> impl Fn(Vec3) -> bool {
        let margin = Vec3::splat(p.object_reach + p.skin + objects_moved);
        let (lo, hi) = (self.objects_box.0 - margin, self.objects_box.1 + margin);
        let periodic = p.space.is_periodic();
        move |x: Vec3| !periodic && (x.cmplt(lo).any() || x.cmpgt(hi).any())
    }
}

/// The grid object particles are searched on: cells as wide as the reach of liquid–object
/// interactions plus the skin.
pub fn object_grid(p: &Params, objects: &[Vec3]) -> CellGrid {
    CellGrid::build(objects, p.object_reach + p.skin, p.space)
}

fn max_displacement(before: &[Vec3], after: &[Vec3]) -> f32 {
    before
        .iter()
        .zip(after)
        .map(|(a, b)| a.distance_squared(*b))
        .fold(0.0, f32::max)
        .sqrt()
}
