//! A uniform grid over particles for "which particles are within `cell` of this point".
//! Particles are bucketed by cell and kept in index order inside each cell, so every query
//! visits them in the same order whatever the thread count.

use std::collections::HashMap;

use glam::Vec3;
use rayon::prelude::*;

pub struct ParticleGrid {
    cell: f32,
    /// Cells covered by the dense table: `lo + [0, dims)`.
    lo: [i32; 3],
    dims: [i32; 3],
    /// Particle indices sorted by (cell, index).
    order: Vec<u32>,
    /// Positions and regions in `order`: a query then streams through contiguous memory instead
    /// of gathering from the caller's arrays (the gathers were the mesher's biggest cost).
    points: Vec<Vec3>,
    regions: Vec<u32>,
    cells: Cells,
}

/// Where each cell's particles are in `order`.
enum Cells {
    /// `starts[c]..starts[c + 1]` for dense cell number c (x fastest), so a row of cells is one
    /// contiguous range.
    Dense(Vec<u32>),
    /// For particles spread far apart (a dense table would be huge).
    Sparse(HashMap<[i32; 3], (u32, u32)>),
}

impl ParticleGrid {
    pub fn new(positions: &[Vec3], cell: f32) -> Self {
        Self::with_regions(positions, &[], cell)
    }

    /// A grid that also hands each particle's region to the visitor (`regions` may be empty:
    /// all region 0).
    pub fn with_regions(positions: &[Vec3], regions: &[u32], cell: f32) -> Self {
        let key = |p: Vec3| (p / cell).floor().as_ivec3().to_array();
        let (lo, hi) = positions
            .iter()
            .fold(([i32::MAX; 3], [i32::MIN; 3]), |(lo, hi), p| {
                let k = key(*p);
                (
                    std::array::from_fn(|a| lo[a].min(k[a])),
                    std::array::from_fn(|a| hi[a].max(k[a])),
                )
            });
        let dims: [i32; 3] =
            std::array::from_fn(|a| (hi[a] as i64 - lo[a] as i64 + 1).max(0) as i32);
        let count = dims.iter().map(|&d| d as u64).product::<u64>();
        let dense = !positions.is_empty() && count <= 4 * positions.len() as u64 + (1 << 20);
        let linear = |k: [i32; 3]| {
            (((k[2] - lo[2]) as i64 * dims[1] as i64 + (k[1] - lo[1]) as i64) * dims[0] as i64
                + (k[0] - lo[0]) as i64) as u32
        };
        if dense {
            let mut keyed: Vec<(u32, u32)> = positions
                .par_iter()
                .enumerate()
                .map(|(i, p)| (linear(key(*p)), i as u32))
                .collect();
            keyed.par_sort_unstable();
            let mut starts = vec![0u32; count as usize + 1];
            for &(c, _) in &keyed {
                starts[c as usize + 1] += 1;
            }
            for c in 0..count as usize {
                starts[c + 1] += starts[c];
            }
            let order: Vec<u32> = keyed.into_iter().map(|(_, i)| i).collect();
            let (points, regions) = gather(&order, positions, regions);
            return ParticleGrid {
                cell,
                lo,
                dims,
                order,
                points,
                regions,
                cells: Cells::Dense(starts),
            };
        }
        let mut keyed: Vec<([i32; 3], u32)> = positions
            .par_iter()
            .enumerate()
            .map(|(i, p)| (key(*p), i as u32))
            .collect();
        keyed.par_sort_unstable();
        let mut cells = HashMap::new();
        let mut start = 0;
        for k in 1..=keyed.len() {
            if k == keyed.len() || keyed[k].0 != keyed[start].0 {
                cells.insert(keyed[start].0, (start as u32, k as u32));
                start = k;
            }
        }
        let order: Vec<u32> = keyed.into_iter().map(|(_, i)| i).collect();
        let (points, regions) = gather(&order, positions, regions);
        ParticleGrid {
            cell,
            lo,
            dims,
            order,
            points,
            regions,
            cells: Cells::Sparse(cells),
        }
    }

    /// Calls `visit(i, position, region)` for every particle in the 27 cells around `p` (a
    /// superset of those within one cell size), in a fixed order.
    #[inline(always)]
    pub fn for_each_near(&self, p: Vec3, visit: impl FnMut(usize, Vec3, u32)) {
        self.for_each_within_cells(p, 1, visit)
    }

    /// Calls `visit(i, position, region)` for every particle in the cells within `reach` cells
    /// of `p`'s cell (a superset of those within `reach` cell sizes of `p`), in a fixed order.
    #[inline(always)]
    pub fn for_each_within_cells(
        &self,
        p: Vec3,
        reach: i32,
        mut visit: impl FnMut(usize, Vec3, u32),
    ) {
        let c = (p / self.cell).floor().as_ivec3().to_array();
        let mut run = |s: usize, e: usize| {
            for k in s..e {
                visit(self.order[k] as usize, self.points[k], self.regions[k]);
            }
        };
        match &self.cells {
            Cells::Dense(starts) => {
                let x0 = (c[0] - reach).max(self.lo[0]);
                let x1 = (c[0] + reach).min(self.lo[0] + self.dims[0] - 1);
                if x1 < x0 {
                    return;
                }
                for z in (c[2] - reach).max(self.lo[2])
                    ..=(c[2] + reach).min(self.lo[2] + self.dims[2] - 1)
                {
                    for y in (c[1] - reach).max(self.lo[1])
                        ..=(c[1] + reach).min(self.lo[1] + self.dims[1] - 1)
                    {
                        let row = ((z - self.lo[2]) as usize * self.dims[1] as usize
                            + (y - self.lo[1]) as usize)
                            * self.dims[0] as usize;
                        run(
                            starts[row + (x0 - self.lo[0]) as usize] as usize,
                            starts[row + (x1 - self.lo[0]) as usize + 1] as usize,
                        );
                    }
                }
            }
            Cells::Sparse(cells) => {
                for z in c[2] - reach..=c[2] + reach {
                    for y in c[1] - reach..=c[1] + reach {
                        for x in c[0] - reach..=c[0] + reach {
                            if let Some(&(s, e)) = cells.get(&[x, y, z]) {
                                run(s as usize, e as usize);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Positions and regions (0 if `regions` is empty) in `order`.
fn gather(order: &[u32], positions: &[Vec3], regions: &[u32]) -> (Vec<Vec3>, Vec<u32>) {
    let points = order.par_iter().map(|&i| positions[i as usize]).collect();
    let regions = if regions.is_empty() {
        vec![0; order.len()]
    } else {
        order.par_iter().map(|&i| regions[i as usize]).collect()
    };
    (points, regions)
}

/// Regions: particles closer than `link` (directly or through a chain) belong together.
/// Returns each particle's region, numbered 0.. in order of the regions' lowest particle index.
pub fn regions(positions: &[Vec3], link: f32) -> (Vec<u32>, usize) {
    let grid = ParticleGrid::new(positions, link);
    let link2 = link * link;
    // Each particle's linked neighbours with a lower index, found in parallel.
    let pairs: Vec<Vec<u32>> = positions
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let mut near = Vec::new();
            grid.for_each_near(*p, |j, q, _| {
                if j < i && q.distance_squared(*p) < link2 {
                    near.push(j as u32);
                }
            });
            near
        })
        .collect();
    let mut parent: Vec<u32> = (0..positions.len() as u32).collect();
    fn find(parent: &mut [u32], mut i: u32) -> u32 {
        while parent[i as usize] != i {
            let up = parent[parent[i as usize] as usize];
            parent[i as usize] = up;
            i = up;
        }
        i
    }
    for (i, near) in pairs.iter().enumerate() {
        for &j in near {
            let (a, b) = (find(&mut parent, i as u32), find(&mut parent, j));
            // The lower index becomes the root, so labels don't depend on visiting order.
            if a != b {
                parent[a.max(b) as usize] = a.min(b);
            }
        }
    }
    let mut label = vec![u32::MAX; positions.len()];
    let mut count = 0u32;
    let mut region = vec![0u32; positions.len()];
    for (i, g) in region.iter_mut().enumerate() {
        let root = find(&mut parent, i as u32) as usize;
        if label[root] == u32::MAX {
            label[root] = count;
            count += 1;
        }
        *g = label[root];
    }
    (region, count as usize)
}

/// Each particle's kernel sum (support `support`, kernel `(1 - d^2/H^2)^3`, all particles)
/// relative to the resting lattice's `rest_sum`: inside bulk liquid ~1 (0.8-1.3 when
/// jittered), a flat surface 0.81, a one-particle strand 0.36. `grid` needs cells of at least
/// `support / 2`.
pub fn kernel_fractions(
    grid: &ParticleGrid,
    positions: &[Vec3],
    support: f32,
    rest_sum: f32,
) -> Vec<f32> {
    let h2 = support * support;
    positions
        .par_iter()
        .map(|p| {
            let mut sum = 0.0f32;
            // Branch-free (a particle beyond the support adds exactly 0.0): the branch on the
            // distance was mispredicted half the time and cost twice the arithmetic.
            grid.for_each_within_cells(*p, 2, |_, q, _| {
                let v = (1.0 - q.distance_squared(*p) / h2).max(0.0);
                sum += v * v * v;
            });
            sum / rest_sum
        })
        .collect()
}

/// Pairs `(i, j)`, `i < j`, of the same region closer than `link`, where at least one of the two
/// is in a thin part of the liquid: its kernel fraction (all particles, [`kernel_fractions`]) is
/// below `thin` (a one-particle strand: 0.36, a sheet: 0.62, a flat surface: 0.81). The surface
/// puts a capsule along each, so strands never break into beads. In bulk liquid the blob field
/// covers them anyway, so they are not generated there. `grid` needs cells of at least
/// `link / 2`.
pub fn thin_links(
    grid: &ParticleGrid,
    positions: &[Vec3],
    region: &[u32],
    fraction: &[f32],
    link: f32,
    thin: f32,
) -> Vec<(u32, u32)> {
    let link2 = link * link;
    // Every such pair has a thin end: search around the thin particles only (few, in bulk
    // liquid), then sort, which also drops pairs found from both ends.
    let thin_ones: Vec<usize> = (0..positions.len())
        .filter(|&i| fraction[i] < thin)
        .collect();
    let mut pairs: Vec<(u32, u32)> = thin_ones
        .par_iter()
        .flat_map_iter(|&i| {
            let p = positions[i];
            let mut out = Vec::new();
            grid.for_each_within_cells(p, 2, |j, q, g| {
                if j != i && g == region[i] && q.distance_squared(p) < link2 {
                    out.push((i.min(j) as u32, i.max(j) as u32));
                }
            });
            out
        })
        .collect();
    pairs.par_sort_unstable();
    pairs.dedup();
    pairs
}
