//! The full search: every query point's neighbours within reach, found in the 27 cells
//! around it, all the lists at once (`CellGrid::neighbour_lists`).
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

use super::{CellGrid, CellRanges};
use crate::sim::eight_lanes::in_avx2;
use crate::sim::neighbours::NeighbourList;

impl CellGrid {
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

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::sim::neighbours::Space;

    /// The AVX2 search keeps the same points in the same order as the blocks of 16, on runs of
    /// every length from one cell's few points to rows of crowded cells (both copies are called
    /// directly, whichever the CPU would run).
    #[test]
    fn the_avx2_search_keeps_what_the_blocks_keep() {
        if crate::sim::eight_lanes::test_data::no_avx2() {
            return;
        }
        let space = Space::from_parts(Vec3::ZERO, Vec3::ONE, [false; 3]);
        let points = super::super::tests::scattered(6000, 1.0);
        let (mut runs, mut kept) = (std::collections::BTreeSet::new(), 0);
        for radius in [0.04, 0.06, 0.08, 0.1, 0.2] {
            let grid = CellGrid::build(&points, radius, space);
            let in_cell_order = grid.in_cell_order(&points);
            for &q in &points {
                for &(a, b) in grid.around(grid.key(q)).iter() {
                    let run = a as usize..b as usize;
                    let mut expected = Vec::new();
                    grid.keep_within_reach_in_blocks(
                        &in_cell_order,
                        run.clone(),
                        q,
                        radius * radius,
                        &mut expected,
                    );
                    let mut got = Vec::new();
                    // SAFETY: the CPU has AVX2 (`no_avx2` said no).
                    unsafe {
                        avx2::keep_within_reach(
                            &in_cell_order,
                            &grid.order,
                            run.clone(),
                            q,
                            radius * radius,
                            &mut got,
                        )
                    };
                    assert_eq!(got, expected, "query {q}, run {run:?}");
                    runs.insert(run.len());
                    kept += got.len();
                }
            }
        }
        // Runs of every length up to two blocks of eight, and longer ones.
        assert!((1..=16).all(|n| runs.contains(&n)), "{runs:?}");
        assert!(
            runs.last() > Some(&100) && kept > 10_000,
            "{runs:?}, {kept}"
        );
    }
}
