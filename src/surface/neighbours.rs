//! A uniform grid over particles for "which particles are within `cell` of this point".
//! Particles are bucketed by cell and kept in index order inside each cell, so every query
//! visits them in the same order whatever the thread count.

use std::collections::HashMap;

use glam::Vec3;
use rayon::prelude::*;

pub struct ParticleGrid {
    cell: f32,
    /// Particle indices sorted by (cell, index).
    order: Vec<u32>,
    cells: HashMap<[i32; 3], (u32, u32)>,
}

impl ParticleGrid {
    pub fn new(positions: &[Vec3], cell: f32) -> Self {
        let key = |p: Vec3| (p / cell).floor().as_ivec3().to_array();
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
        ParticleGrid {
            cell,
            order: keyed.into_iter().map(|(_, i)| i).collect(),
            cells,
        }
    }

    /// Calls `visit(i)` for every particle in the 27 cells around `p` (a superset of those
    /// within one cell size), in a fixed order.
    pub fn for_each_near(&self, p: Vec3, mut visit: impl FnMut(usize)) {
        let c = (p / self.cell).floor().as_ivec3();
        for dz in -1..=1 {
            for dy in -1..=1 {
                for dx in -1..=1 {
                    if let Some(&(s, e)) = self.cells.get(&[c.x + dx, c.y + dy, c.z + dz]) {
                        for &i in &self.order[s as usize..e as usize] {
                            visit(i as usize);
                        }
                    }
                }
            }
        }
    }
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
            grid.for_each_near(*p, |j| {
                if j < i && positions[j].distance_squared(*p) < link2 {
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

/// Pairs `(i, j)`, `i < j`, of the same region closer than `link`, where at least one of the two
/// is in a thin part of the liquid: its kernel sum (support `support`) is below `thin` times the
/// resting lattice's `rest_sum` (a one-particle strand: 0.36, a sheet: 0.62, a flat surface:
/// 0.81). The surface puts a capsule along each, so strands never break into beads. In bulk
/// liquid the blob field covers them anyway, so they are not generated there.
pub fn thin_links(
    positions: &[Vec3],
    region: &[u32],
    link: f32,
    support: f32,
    rest_sum: f32,
    thin: f32,
) -> Vec<(u32, u32)> {
    let grid = ParticleGrid::new(positions, support.max(link));
    let h2 = support * support;
    let link2 = link * link;
    let fraction: Vec<f32> = positions
        .par_iter()
        .map(|p| {
            let mut sum = 0.0f32;
            grid.for_each_near(*p, |j| {
                let d2 = positions[j].distance_squared(*p);
                if d2 < h2 {
                    let v = 1.0 - d2 / h2;
                    sum += v * v * v;
                }
            });
            sum / rest_sum
        })
        .collect();
    let per_particle: Vec<Vec<(u32, u32)>> = positions
        .par_iter()
        .enumerate()
        .map(|(i, p)| {
            let mut out = Vec::new();
            grid.for_each_near(*p, |j| {
                if j > i
                    && region[j] == region[i]
                    && fraction[i].min(fraction[j]) < thin
                    && positions[j].distance_squared(*p) < link2
                {
                    out.push((i as u32, j as u32));
                }
            });
            out.sort_unstable();
            out
        })
        .collect();
    per_particle.into_iter().flatten().collect()
}
