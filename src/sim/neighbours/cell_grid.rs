//! Particles bucketed into the cells of a grid, and each query point's neighbours found in
//! the 27 cells around it.
//!
//! The search reads each row of three cells as one run (cells next to each other in x are
//! next to each other in the sorted order), measures distances in blocks of 16 from one array
//! per axis, and keeps the points within reach without a branch per candidate (most are out
//! of reach, at random). Against one branch per candidate on a `Vec3` array, the honey drop
//! used 4-5% less CPU (single thread, `RAYON_NUM_THREADS=1 gloop bench-one honey-drop`),
//! the search's share of its samples falling from 14% to 9%, with the same lists.
//!
//! Each block is measured whole, its run's end masked off, the kept points read from the
//! mask's bits, and a query's own point taken out once its list is found rather than tested
//! for at every candidate. Against a run's last part measured one by one and every
//! candidate stored and counted, the liquid's lists of 100k particles
//! (`examples/list_bench.rs`, alternating binaries, two rounds) were built in 36.3/35.8 ms
//! instead of 41.8/46.7 at the near lists' reach and 21.1/20.2 instead of 25.3/24.9 at the
//! contacts', the same lists (checksums equal). A 100k honey block's frames
//! (`examples/honey_drop_bench.rs 50 50 40 4`) took 3.13/3.23 s instead of 3.28/3.29.
//! Built for AVX2 (`-C target-cpu=x86-64-v3`), the search was no faster (33.6-34.6 ms).
//!
//! What it waited on was the kept points, appended one by one: a loop over a block's kept
//! bits whose exit is mispredicted in nearly every block. Where the CPU has AVX2
//! (`sim::avx2`), blocks of eight are measured as the blocks of 16 measure them, and their
//! kept points are moved to the front of one vector by a permutation looked up from the
//! bits and stored at once (`eight_lanes::avx2::append_kept`). The same lists (checksums
//! equal), 100k particles (`examples/list_bench.rs`, alternating binaries, two rounds): the
//! near lists 35.8/35.6 → 14.5/15.1 ms, the contacts' 20.3/19.7 → 11.7/11.8 ms. (Counting
//! the kept points and storing none took 13.6-13.9 ms: little is left but the arithmetic.)
//! A 30k honey block (`examples/honey_drop_bench.rs 34 34 26 5`) used 4.97/4.82 s of CPU
//! instead of 5.48/5.43, its frames 0.55/0.54 s instead of 0.60/0.60; the demos' frames
//! are byte-identical.
//!
//! (Tried and measured, not adopted: ordering each cell's points by x, so that a row of three
//! cells is one run in x order and each query measures distances only within the x window its
//! reach sphere cuts from the row — less than half of the 27 cells' points. The window's
//! bounds, a binary search or a skip per point, and the lost reuse of each cell's lookup cost
//! more than the distances saved: the search's share of the honey drop rose from 14.6% to
//! 19% of the samples, and the drop ran 7-15% slower. Cells half the reach wide, 125 searched
//! around each query's (a third fewer candidates), for the near lists' rebuilds alone: the
//! fan's frames 2-7 took 23.8 s instead of 18.4 and the honey drop's 2-13 2.6 s instead of
//! 2.35 (`examples/frame_profile.rs`, two rounds): looking up five times as many cells cost
//! more than the distances saved. The kept points written without a branch, every candidate
//! stored and the list's end moved past the kept ones only: the same lists, 32.4/34.4 ms
//! before and 34.7/34.4 after (`examples/list_bench.rs`): sixteen stores per block, each
//! after the last one's count, cost what the branches had (above is what did pay). The
//! cells' keys floored by truncation instead of the C library's `floorf` (1.6% of a 30k
//! honey block's samples with the key): the block's frames within noise, 0.83/0.82 →
//! 0.81/0.82 s. With the kept points stored at once, the 27 cells around a query's cell
//! looked up a row of three at a time from the dense lookup's consecutive slots, without
//! the sort (the same ranges): the fan's frames 2-7 used 22.20/21.88 s of CPU instead of
//! 22.30/21.91, within noise, though `around` had 4.5% of their samples.)

use glam::{IVec3, Vec3};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::{NeighbourList, Row, Space};
use crate::sim::eight_lanes::{in_avx2, keep_within};

/// Particles bucketed into cubic cells; only occupied cells are stored.
pub struct CellGrid {
    space: Space,
    cell_size: Vec3,
    /// Cells per periodic axis (0 on open axes).
    wrap_cells: IVec3,
    /// Particle indices sorted by (cell, index).
    pub order: Vec<u32>,
    /// Occupied cells in sorted order: key and the range of `order` they hold.
    cells: Vec<(IVec3, u32, u32)>,
    lookup: CellLookup,
}

/// Where each occupied cell sits in `cells`.
enum CellLookup {
    /// One slot per cell of the particles' bounding box (cell index + 1, 0 if empty): a
    /// compact liquid's box holds a few cells per particle, and an array lookup is several
    /// times faster than hashing the 27 keys around every cell.
    Dense {
        origin: IVec3,
        dims: IVec3,
        slot: Vec<u32>,
    },
    /// Particles spread thin over a large box (a spray, a few drops far apart).
    Sparse(FxHashMap<IVec3, u32>),
}

/// The dense lookup is used while the bounding box holds at most this many cells per particle
/// (plus a small allowance, so tiny scenes always get it): its slots cost 4 bytes per cell.
const DENSE_CELLS_PER_PARTICLE: usize = 4;

impl CellLookup {
    #[inline(always)]
    fn find(&self, k: IVec3) -> Option<u32> {
        match self {
            CellLookup::Dense { origin, dims, slot } => {
                let d = k.wrapping_sub(*origin);
                if d.cmplt(IVec3::ZERO).any() || d.cmpge(*dims).any() {
                    return None;
                }
                let s = slot[dense_index(d, *dims)];
                (s > 0).then(|| s - 1)
            }
            CellLookup::Sparse(map) => map.get(&k).copied(),
        }
    }
}

/// Position of cell offset `d` (from the box's origin) in the box's slots: z, then y, then x,
/// the order cells are sorted in.
#[inline(always)]
fn dense_index(d: IVec3, dims: IVec3) -> usize {
    ((d.z as usize * dims.y as usize) + d.y as usize) * dims.x as usize + d.x as usize
}

/// The occupied cells around one cell (at most 27), as ranges of `order`, in cell order.
#[derive(Default)]
struct CellRanges {
    ranges: [(u32, u32); 27],
    len: usize,
}

impl std::ops::Deref for CellRanges {
    type Target = [(u32, u32)];
    fn deref(&self) -> &[(u32, u32)] {
        &self.ranges[..self.len]
    }
}

impl CellGrid {
    /// Buckets `points` into cells of at least `min_cell` on each side.
    pub fn build(points: &[Vec3], min_cell: f32, space: Space) -> Self {
        let mut cell_size = Vec3::splat(min_cell);
        let mut wrap_cells = IVec3::ZERO;
        for axis in 0..3 {
            if space.periodic[axis] {
                let n = (space.size[axis] / min_cell).floor().max(1.0);
                wrap_cells[axis] = n as i32;
                cell_size[axis] = space.size[axis] / n;
            }
        }
        let mut grid = CellGrid {
            space,
            cell_size,
            wrap_cells,
            order: Vec::new(),
            cells: Vec::new(),
            lookup: CellLookup::Sparse(FxHashMap::default()),
        };
        let keys: Vec<IVec3> = points.par_iter().map(|p| grid.key(*p)).collect();
        let (lo, hi) = keys
            .par_iter()
            .fold(
                || (IVec3::MAX, IVec3::MIN),
                |(lo, hi), k| (lo.min(*k), hi.max(*k)),
            )
            .reduce(
                || (IVec3::MAX, IVec3::MIN),
                |a, b| (a.0.min(b.0), a.1.max(b.1)),
            );
        // In i64: a stray particle far out (or at infinity) spans more than i32 cells.
        let span = hi.as_i64vec3() - lo.as_i64vec3() + 1;
        let volume = span.x as i128 * span.y as i128 * span.z as i128;
        let dense_limit = (DENSE_CELLS_PER_PARTICLE * keys.len() + 4096) as i128;
        if !keys.is_empty() && volume <= dense_limit {
            grid.bucket_dense(&keys, lo, span.as_ivec3());
        } else {
            grid.bucket_sparse(keys);
        }
        grid
    }

    /// Counting sort over the bounding box's cells: the same order as `bucket_sparse`'s sort
    /// (by cell in z, y, x order, then by index), in linear time.
    fn bucket_dense(&mut self, keys: &[IVec3], origin: IVec3, dims: IVec3) {
        let cell_of: Vec<u32> = keys
            .par_iter()
            .map(|k| dense_index(*k - origin, dims) as u32)
            .collect();
        let mut slot = vec![0u32; dims.as_i64vec3().element_product() as usize];
        for &c in &cell_of {
            slot[c as usize] += 1;
        }
        // Counts → occupied cells with their ranges. `slot` is turned into the lookup (cell
        // index + 1) as it goes, and `place` holds each cell's next free place in `order`
        // while the points are dealt out.
        let mut start = 0u32;
        let mut place = vec![0u32; slot.len()];
        for (c, count) in slot.iter_mut().enumerate() {
            if *count > 0 {
                let z = c / (dims.x as usize * dims.y as usize);
                let y = (c / dims.x as usize) % dims.y as usize;
                let x = c % dims.x as usize;
                let key = origin + IVec3::new(x as i32, y as i32, z as i32);
                self.cells.push((key, start, start + *count));
                place[c] = start;
                start += *count;
                *count = self.cells.len() as u32; // slot = cell index + 1
            }
        }
        let mut order = vec![0u32; keys.len()];
        for (i, &c) in cell_of.iter().enumerate() {
            let at = &mut place[c as usize];
            order[*at as usize] = i as u32;
            *at += 1;
        }
        self.order = order;
        self.lookup = CellLookup::Dense { origin, dims, slot };
    }

    fn bucket_sparse(&mut self, keys: Vec<IVec3>) {
        let mut keyed: Vec<(IVec3, u32)> = keys
            .into_iter()
            .enumerate()
            .map(|(i, k)| (k, i as u32))
            .collect();
        keyed.par_sort_unstable_by(|a, b| {
            (a.0.z, a.0.y, a.0.x, a.1).cmp(&(b.0.z, b.0.y, b.0.x, b.1))
        });
        let mut map = FxHashMap::default();
        let mut start = 0usize;
        for i in 1..=keyed.len() {
            if i == keyed.len() || keyed[i].0 != keyed[start].0 {
                map.insert(keyed[start].0, self.cells.len() as u32);
                self.cells.push((keyed[start].0, start as u32, i as u32));
                start = i;
            }
        }
        self.order = keyed.into_iter().map(|(_, i)| i).collect();
        self.lookup = CellLookup::Sparse(map);
    }

    /// The points in the order of the grid's blocks of 2 × 2 × 2 cells (blocks in z, y, x
    /// order, then cells in `order`'s order within each block), and where each block's run
    /// starts in that order (with the end as a last entry). The grid itself is unchanged.
    ///
    /// Numbered so, the particles of one block are consecutive: the viscosity solve's coarse
    /// level takes each run as one aggregate and needs no index per particle to find it.
    pub fn block_order(&self) -> (Vec<u32>, Vec<u32>) {
        let block = |key: IVec3| {
            let b = key.div_euclid(IVec3::splat(2));
            (b.z, b.y, b.x)
        };
        let mut cells: Vec<usize> = (0..self.cells.len()).collect();
        // Stable: the cells of a block keep their order.
        cells.sort_by_key(|&c| block(self.cells[c].0));
        let mut order = Vec::with_capacity(self.order.len());
        let mut starts = Vec::new();
        let mut last_block = None;
        for c in cells {
            let (key, start, end) = self.cells[c];
            if last_block != Some(block(key)) {
                starts.push(order.len() as u32);
                last_block = Some(block(key));
            }
            order.extend_from_slice(&self.order[start as usize..end as usize]);
        }
        starts.push(order.len() as u32);
        (order, starts)
    }

    /// The same grid after the points were reordered by `order` (point k is now the old point
    /// `order[k]`).
    pub fn renumbered_by(mut self, order: &[u32]) -> Self {
        let mut new_index = vec![0u32; order.len()];
        for (k, &old) in order.iter().enumerate() {
            new_index[old as usize] = k as u32;
        }
        for i in &mut self.order {
            *i = new_index[*i as usize];
        }
        self
    }

    fn key(&self, p: Vec3) -> IVec3 {
        let mut k = ((p - self.space.min) / self.cell_size).floor().as_ivec3();
        for axis in 0..3 {
            if self.wrap_cells[axis] > 0 {
                k[axis] = k[axis].rem_euclid(self.wrap_cells[axis]);
            }
        }
        k
    }

    /// The occupied cells among the 27 around `key` (each once, even on tiny periodic grids),
    /// as ranges of `order`, in cell order, neighbouring cells' ranges joined.
    fn around(&self, key: IVec3) -> CellRanges {
        let periodic = self.wrap_cells != IVec3::ZERO;
        let mut found = [0u32; 27];
        let mut count = 0;
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    let mut k = key.wrapping_add(IVec3::new(dx, dy, dz));
                    if periodic {
                        for axis in 0..3 {
                            if self.wrap_cells[axis] > 0 {
                                k[axis] = k[axis].rem_euclid(self.wrap_cells[axis]);
                            }
                        }
                    }
                    if let Some(c) = self.lookup.find(k) {
                        if !periodic || !found[..count].contains(&c) {
                            found[count] = c;
                            count += 1;
                        }
                    }
                }
            }
        }
        found[..count].sort_unstable();
        // Cells next to each other in x are next to each other in `order` too: their ranges
        // join, so a row of three cells is read as one run.
        let mut ranges = CellRanges::default();
        for &c in &found[..count] {
            let (_, start, end) = self.cells[c as usize];
            match ranges
                .len
                .checked_sub(1)
                .map(|last| &mut ranges.ranges[last])
            {
                Some(run) if run.1 == start => run.1 = end,
                _ => {
                    ranges.ranges[ranges.len] = (start, end);
                    ranges.len += 1;
                }
            }
        }
        ranges
    }

    pub fn points_near(
        &self,
        grid_points: &[Vec3],
        query: Vec3,
        radius: f32,
        skip: Option<u32>,
    ) -> Vec<u32> {
        let r2 = radius * radius;
        let mut found = Vec::new();
        for &(a, b) in self.around(self.key(query)).iter() {
            let run = Row::Wide(&self.order[a as usize..b as usize]);
            keep_within(&self.space, grid_points, query, run, r2, &mut found);
        }
        if let Some(at) = skip.and_then(|skip| found.iter().position(|&j| j == skip)) {
            found.remove(at);
        }
        found
    }

    /// For every query point, the indices of grid points within `radius` (the grid's cell size
    /// must be at least `radius`). With `exclude_self`, query i never lists point i (use it
    /// when queries and grid points are the same set).
    pub fn neighbour_lists(
        &self,
        grid_points: &[Vec3],
        queries: &[Vec3],
        radius: f32,
        exclude_self: bool,
    ) -> NeighbourList {
        let r2 = radius * radius;
        let in_cell_order = self.in_cell_order(grid_points);
        // The lists are filled in query order, straight into their chunks: searching cell by
        // cell instead yielded runs in the grid's order that then had to be copied into
        // place, and the runs and the lists held every pair twice, the solver's memory peak.
        // Consecutive queries mostly share a cell (the liquid is sorted by cell at every
        // frame's start), so each task keeps the last cell's 27-cell lookup.
        NeighbourList::fill(
            queries.len(),
            grid_points.len(),
            || (None, CellRanges::default()),
            |(last_key, ranges): &mut (Option<IVec3>, CellRanges), qi, found| {
                let q = queries[qi];
                let key = self.key(q);
                if *last_key != Some(key) {
                    *ranges = self.around(key);
                    *last_key = Some(key);
                }
                for &(a, b) in ranges.iter() {
                    self.keep_within_reach(&in_cell_order, a as usize..b as usize, q, r2, found);
                }
                // The query finds itself (at distance 0) once, wherever it sits among its
                // neighbours; taking it out here is cheaper than testing every candidate.
                if exclude_self {
                    if let Some(at) = found.iter().position(|&j| j as usize == qi) {
                        found.remove(at);
                    }
                }
            },
        )
    }

    /// The grid points in cell order, one array per axis: each cell's candidates are then
    /// read from contiguous runs instead of gathered through `order` at random, and their
    /// distances are measured in blocks the compiler turns into vector instructions. Each
    /// array is padded with a block of infinities, so that a whole block read from the last
    /// run stays in it (`keep_within_reach`).
    fn in_cell_order(&self, grid_points: &[Vec3]) -> [Vec<f32>; 3] {
        [0, 1, 2].map(|axis| {
            let mut along: Vec<f32> = self
                .order
                .par_iter()
                .map(|&j| grid_points[j as usize][axis])
                .collect();
            along.resize(along.len() + BLOCK, f32::INFINITY);
            along
        })
    }

    /// Appends to `found` the points of the run `run` of `order` (positions `in_cell_order`)
    /// within the query's reach, in run order.
    #[inline(always)]
    fn keep_within_reach(
        &self,
        in_cell_order: &[Vec<f32>; 3],
        run: std::ops::Range<usize>,
        q: Vec3,
        reach2: f32,
        found: &mut Vec<u32>,
    ) {
        #[cfg(target_arch = "x86_64")]
        if in_avx2(&self.space) {
            // SAFETY: the CPU has AVX2 (`in_avx2`).
            unsafe { avx2::keep_within_reach(in_cell_order, &self.order, run, q, reach2, found) };
            return;
        }
        self.keep_within_reach_in_blocks(in_cell_order, run, q, reach2, found);
    }

    /// `keep_within_reach` in blocks of 16, the kept points appended one by one.
    #[inline(always)]
    fn keep_within_reach_in_blocks(
        &self,
        in_cell_order: &[Vec<f32>; 3],
        run: std::ops::Range<usize>,
        q: Vec3,
        reach2: f32,
        found: &mut Vec<u32>,
    ) {
        let [xs, ys, zs] = in_cell_order;
        let mut k = run.start;
        while k < run.end {
            let n = (run.end - k).min(BLOCK);
            let mut d2 = [f32::INFINITY; BLOCK];
            if self.space.is_periodic() {
                for (t, d2) in d2[..n].iter_mut().enumerate() {
                    let x = Vec3::new(xs[k + t], ys[k + t], zs[k + t]);
                    *d2 = self.space.delta(x, q).length_squared();
                }
            } else {
                // Always a whole block, a fixed trip count the compiler vectorises: a run is
                // mostly not a multiple of the block, and its last part measured one by one
                // was half the search's time. Candidates past the run's end are masked out
                // below (the arrays are padded so that the last run's block stays in them).
                let (bx, by, bz) = (&xs[k..k + BLOCK], &ys[k..k + BLOCK], &zs[k..k + BLOCK]);
                for t in 0..BLOCK {
                    // Summed as `Vec3::length_squared` sums: the same lists as with `delta`.
                    let (dx, dy, dz) = (bx[t] - q.x, by[t] - q.y, bz[t] - q.z);
                    d2[t] = dx * dx + dy * dy + dz * dz;
                }
            }
            // Which candidates are within reach, as the bits of one mask: the comparisons
            // vectorise, and only the kept ones (a sixth of the candidates) cost a step each.
            let mut within = 0u32;
            for (t, &d2) in d2.iter().enumerate() {
                within |= ((d2 < reach2) as u32) << t;
            }
            within &= (1u32 << n) - 1;
            let order = &self.order[k..k + n];
            while within != 0 {
                found.push(order[within.trailing_zeros() as usize]);
                within &= within - 1;
            }
            k += n;
        }
    }
}

/// Candidates whose distances are measured together (see `neighbour_lists`).
const BLOCK: usize = 16;

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use glam::Vec3;

    use crate::sim::eight_lanes::avx2::{append_kept, dot, splat};
    use crate::sim::eight_lanes::LANES;

    /// `CellGrid::keep_within_reach` (no periodic axes): eight candidates measured at a
    /// time, each as the blocks of 16 measure it, and the kept ones appended together.
    /// The arrays must hold eight entries past the run's end (they are padded for the
    /// blocks of 16); a run past them stops with a panic before anything is read.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) unsafe fn keep_within_reach(
        in_cell_order: &[Vec<f32>; 3],
        order: &[u32],
        run: std::ops::Range<usize>,
        q: Vec3,
        reach2: f32,
        found: &mut Vec<u32>,
    ) {
        let [xs, ys, zs] = in_cell_order;
        assert!(run.end + LANES <= xs.len() && xs.len() == ys.len() && xs.len() == zs.len());
        assert!(run.end <= order.len());
        let q = splat(q.x, q.y, q.z);
        let reach2 = _mm256_set1_ps(reach2);
        let lane_numbers = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        let mut k = run.start;
        while k < run.end {
            // The block's candidates past the run's end are measured but never kept, and
            // their indices never read (`order` is not padded).
            let n = (run.end - k).min(LANES);
            let at = [xs, ys, zs].map(|along| along.as_ptr().add(k));
            let d = [0, 1, 2].map(|a| _mm256_sub_ps(_mm256_loadu_ps(at[a]), q[a]));
            let within = _mm256_cmp_ps::<_CMP_LT_OQ>(dot(&d, &d), reach2);
            let kept = _mm256_movemask_ps(within) as u32 & ((1u32 << n) - 1);
            let real = _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), lane_numbers);
            let js = _mm256_maskload_epi32(order.as_ptr().add(k) as *const i32, real);
            append_kept(found, js, kept);
            k += n;
        }
    }
}

#[cfg(test)]
mod tests;
