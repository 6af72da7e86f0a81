//! Marching cubes inside one block of grid points, and the stitching of the blocks' pieces by
//! the global grid edge each vertex lies on (sorted, so the result is the same bits for any
//! thread count).

use glam::Vec3;
use rayon::prelude::*;

use super::cases::{case_triangles, corner_offset, edge_start};

/// The marching-cubes surface before smoothing, vertices shared between triangles.
#[derive(Default)]
pub struct RawMesh {
    pub positions: Vec<Vec3>,
    /// The region (separately meshed particle group) each vertex belongs to.
    pub region: Vec<u32>,
    pub triangles: Vec<[u32; 3]>,
}

/// A grid edge: region, start point (z, y, x — so sorting walks the grid in memory order), axis.
type EdgeKey = (u32, i32, i32, i32, u8);

pub struct BlockMesh {
    keys: Vec<EdgeKey>,
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    /// The vertices on edges that lie in the block's boundary, which a neighbour makes too.
    shared: Vec<u32>,
}

/// Marching cubes over the `cells` of a block whose first point is `origin`; `value` holds the
/// field at its `(cells + 1)` points per axis, x fastest.
pub fn march_block(
    region: u32,
    origin: [i32; 3],
    cells: [usize; 3],
    cell: f32,
    value: &[f32],
) -> BlockMesh {
    let [nx, ny, nz] = cells;
    let (sx, sy) = (nx + 1, ny + 1);
    let index = |x: usize, y: usize, z: usize| (z * sy + y) * sx + x;
    let mut mesh = BlockMesh {
        keys: vec![],
        positions: vec![],
        triangles: vec![],
        shared: vec![],
    };
    // One bit per point, a u64 per row of points (rows have at most 33): cubes wholly inside
    // or outside are then skipped a row at a time, and most cubes are (a block's surface
    // crosses a few hundred of its 4096).
    debug_assert!(sx <= 64);
    let mut rows = vec![0u64; sy * (nz + 1)];
    for (row, bits) in rows.iter_mut().enumerate() {
        for (x, v) in value[row * sx..(row + 1) * sx].iter().enumerate() {
            *bits |= ((*v > 0.0) as u64) << x;
        }
    }
    // Most blocks are wholly outside (around small drops) or inside (deep liquid): no surface.
    let full = u64::MAX >> (64 - sx);
    if rows.iter().all(|&b| b == 0) || rows.iter().all(|&b| b == full) {
        return mesh;
    }
    let cubes = u64::MAX >> (64 - nx);
    let mut local_vertex = vec![u32::MAX; value.len() * 3];
    for z in 0..nz {
        for y in 0..ny {
            // The four rows of points around this row of cubes, and each of them shifted by one
            // point: cube x has corner c inside iff bit x of corner_rows[c] is set.
            let row = |dy: usize, dz: usize| rows[(z + dz) * sy + y + dy];
            let corner_rows: [u64; 8] = std::array::from_fn(|c| {
                let [ox, oy, oz] = corner_offset(c);
                row(oy, oz) >> ox
            });
            let any = corner_rows.iter().fold(0, |a, &b| a | b);
            let all = corner_rows.iter().fold(u64::MAX, |a, &b| a & b);
            let mut mixed = any & !all & cubes;
            while mixed != 0 {
                let x = mixed.trailing_zeros() as usize;
                mixed &= mixed - 1;
                let case = (0..8).fold(0usize, |case, c| {
                    case | (((corner_rows[c] >> x) & 1) as usize) << c
                });
                let mut vertex_of_edge = |e: u8| -> u32 {
                    let (c, axis) = edge_start(e as usize);
                    let [ox, oy, oz] = corner_offset(c);
                    let (px, py, pz) = (x + ox, y + oy, z + oz);
                    let p0 = index(px, py, pz);
                    let slot = p0 * 3 + axis;
                    if local_vertex[slot] == u32::MAX {
                        let step = [1, sx, sx * sy][axis];
                        let p1 = p0 + step;
                        let (f0, f1) = (value[p0], value[p1]);
                        // Clamped away from the corners so no two vertices coincide.
                        let t = (f0 / (f0 - f1)).clamp(0.01, 0.99);
                        // From the global grid point, so the position does not depend on
                        // how the grid was cut into blocks (bits included).
                        let mut pos = [
                            (origin[0] + px as i32) as f32,
                            (origin[1] + py as i32) as f32,
                            (origin[2] + pz as i32) as f32,
                        ];
                        pos[axis] += t;
                        let world = Vec3::from(pos) * cell;
                        local_vertex[slot] = mesh.positions.len() as u32;
                        mesh.positions.push(world);
                        let local = [px, py, pz];
                        if (0..3).any(|a| a != axis && (local[a] == 0 || local[a] == cells[a])) {
                            mesh.shared.push(mesh.positions.len() as u32 - 1);
                        }
                        mesh.keys.push((
                            region,
                            origin[2] + pz as i32,
                            origin[1] + py as i32,
                            origin[0] + px as i32,
                            axis as u8,
                        ));
                    }
                    local_vertex[slot]
                };
                for tri in case_triangles(case) {
                    let t = tri.map(&mut vertex_of_edge);
                    mesh.triangles.push(t);
                }
            }
        }
    }
    mesh
}

/// Joins the blocks' meshes: a vertex on a block's boundary was made by each block sharing that
/// edge (bit-identical, since all evaluated the same particles in the same order); the first
/// block's copy is kept. Vertices are numbered block by block in block order, so only the
/// boundary vertices need sorting (the serial merge of all of them was a tenth of the mesher).
pub fn stitch(blocks: Vec<BlockMesh>) -> RawMesh {
    let mut shared: Vec<(EdgeKey, u32, u32)> = blocks
        .iter()
        .enumerate()
        .flat_map(|(b, m)| {
            m.shared
                .iter()
                .map(move |&v| (m.keys[v as usize], b as u32, v))
        })
        .collect();
    shared.par_sort_unstable();
    // Copies after the first of each edge: (block, vertex) -> the first copy's (block, vertex).
    let mut alias: Vec<Vec<(u32, u32)>> = blocks
        .iter()
        .map(|m| vec![(u32::MAX, 0); m.keys.len()])
        .collect();
    let mut first = 0;
    for k in 1..shared.len() {
        if shared[k].0 == shared[first].0 {
            alias[shared[k].1 as usize][shared[k].2 as usize] = (shared[first].1, shared[first].2);
        } else {
            first = k;
        }
    }
    let owned = |b: usize| alias[b].iter().filter(|a| a.0 == u32::MAX).count() as u32;
    let mut offset = Vec::with_capacity(blocks.len());
    let mut total = 0u32;
    for b in 0..blocks.len() {
        offset.push(total);
        total += owned(b);
    }
    // Numbers of the kept vertices, then of the copies (from the block they were kept in).
    let kept: Vec<Vec<u32>> = (0..blocks.len())
        .into_par_iter()
        .map(|b| {
            let mut next = offset[b];
            alias[b]
                .iter()
                .map(|a| {
                    if a.0 != u32::MAX {
                        return u32::MAX;
                    }
                    next += 1;
                    next - 1
                })
                .collect()
        })
        .collect();
    let remap: Vec<Vec<u32>> = (0..blocks.len())
        .into_par_iter()
        .map(|b| {
            alias[b]
                .iter()
                .zip(&kept[b])
                .map(|(a, &n)| {
                    if a.0 == u32::MAX {
                        n
                    } else {
                        kept[a.0 as usize][a.1 as usize]
                    }
                })
                .collect()
        })
        .collect();
    let vertices: Vec<(Vec3, u32)> = blocks
        .par_iter()
        .zip(alias.par_iter())
        .flat_map_iter(|(m, a)| {
            (0..m.keys.len())
                .filter(|&v| a[v].0 == u32::MAX)
                .map(|v| (m.positions[v], m.keys[v].0))
        })
        .collect();
    let (positions, region) = vertices.into_iter().unzip();
    let triangles = blocks
        .par_iter()
        .zip(remap.par_iter())
        .flat_map_iter(|(m, map)| m.triangles.iter().map(move |t| t.map(|v| map[v as usize])))
        .collect();
    RawMesh {
        positions,
        region,
        triangles,
    }
}
