//! Particles bucketed into the cells of a grid, and each query point's neighbours found in
//! the 27 cells around it.
//!
//! The full search, every query's neighbours at once, is `full_search`'s; a single
//! query's is `points_near`.

use glam::{IVec3, Vec3};
use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::{Row, Space};
use crate::sim::eight_lanes::keep_within;

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
}

mod full_search;

#[cfg(test)]
mod tests;
