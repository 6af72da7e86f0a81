//! Marching cubes over a sparse grid: only blocks of `BLOCK`^3 cells that some particle's
//! kernel reaches are evaluated. Blocks run in parallel; the pieces are stitched by the global
//! grid edge each vertex lies on, sorted, so the result is the same bits for any thread count.

use glam::Vec3;
use rayon::prelude::*;

use super::cases::{case_triangles, corner_offset, edge_start};
use super::field::{evaluate_block, FieldParams, BALL_SUPPORT};

/// Cells per block side: 17^3 points of two f32 fields stay in L2 cache.
pub const BLOCK: i32 = 16;

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

struct BlockMesh {
    keys: Vec<EdgeKey>,
    positions: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
}

fn div_floor(a: i32, b: i32) -> i32 {
    a.div_euclid(b)
}

/// Marks link entries in block lists (after the particles, in link order).
const LINK: u32 = 1 << 31;

/// Polygonizes the field of `positions`, each region on its own. `region[i]` is particle i's
/// region; `links` pairs of particles (same region) joined by capsules; `cell` the cube size.
pub fn polygonize(
    positions: &[Vec3],
    region: &[u32],
    links: &[(u32, u32)],
    params: &FieldParams,
    cell: f32,
) -> RawMesh {
    let h = params.support;
    let b = BALL_SUPPORT * params.radius;
    // (region, block z, y, x, particle): every block each particle's support reaches.
    let mut touches: Vec<(u32, i32, i32, i32, u32)> = positions
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, p)| {
            let lo = ((*p - h) / cell).to_array().map(|v| v.ceil() as i32);
            let hi = ((*p + h) / cell).to_array().map(|v| v.floor() as i32);
            // Block b covers points [b*BLOCK, (b+1)*BLOCK].
            let b0: [i32; 3] = std::array::from_fn(|a| div_floor(lo[a] - 1, BLOCK));
            let b1: [i32; 3] = std::array::from_fn(|a| div_floor(hi[a], BLOCK));
            let r = region[i];
            (b0[2]..=b1[2]).flat_map(move |z| {
                (b0[1]..=b1[1])
                    .flat_map(move |y| (b0[0]..=b1[0]).map(move |x| (r, z, y, x, i as u32)))
            })
        })
        .collect();
    touches.par_extend(links.par_iter().enumerate().flat_map_iter(|(k, &(i, j))| {
        let (p, q) = (positions[i as usize], positions[j as usize]);
        let lo = ((p.min(q) - b) / cell).to_array().map(|v| v.ceil() as i32);
        let hi = ((p.max(q) + b) / cell).to_array().map(|v| v.floor() as i32);
        let b0: [i32; 3] = std::array::from_fn(|a| div_floor(lo[a] - 1, BLOCK));
        let b1: [i32; 3] = std::array::from_fn(|a| div_floor(hi[a], BLOCK));
        let r = region[i as usize];
        (b0[2]..=b1[2]).flat_map(move |z| {
            (b0[1]..=b1[1])
                .flat_map(move |y| (b0[0]..=b1[0]).map(move |x| (r, z, y, x, LINK | k as u32)))
        })
    }));
    touches.par_sort_unstable();

    // Split into blocks: runs of equal (region, block).
    let mut starts = vec![0usize];
    for k in 1..touches.len() {
        let (a, b) = (&touches[k - 1], &touches[k]);
        if (a.0, a.1, a.2, a.3) != (b.0, b.1, b.2, b.3) {
            starts.push(k);
        }
    }
    starts.push(touches.len());
    if touches.is_empty() {
        return RawMesh::default();
    }

    let blocks: Vec<BlockMesh> = starts
        .par_windows(2)
        .map(|w| {
            let run = &touches[w[0]..w[1]];
            let (r, bz, by, bx, _) = run[0];
            let origin = [bx * BLOCK, by * BLOCK, bz * BLOCK];
            let field = evaluate_block(
                params,
                origin,
                BLOCK as usize,
                cell,
                run.iter()
                    .filter(|t| t.4 & LINK == 0)
                    .map(|t| positions[t.4 as usize]),
                run.iter().filter(|t| t.4 & LINK != 0).map(|t| {
                    let (i, j) = links[(t.4 & !LINK) as usize];
                    (positions[i as usize], positions[j as usize])
                }),
            );
            march_block(r, origin, cell, &field)
        })
        .collect();

    stitch(blocks)
}

fn march_block(region: u32, origin: [i32; 3], cell: f32, value: &[f32]) -> BlockMesh {
    let n = BLOCK as usize;
    let side = n + 1;
    let index = |x: usize, y: usize, z: usize| (z * side + y) * side + x;
    let mut mesh = BlockMesh {
        keys: vec![],
        positions: vec![],
        triangles: vec![],
    };
    // Most blocks are wholly outside (around small drops) or inside (deep liquid): no surface.
    let inside = value.iter().filter(|&&v| v > 0.0).count();
    if inside == 0 || inside == value.len() {
        return mesh;
    }
    let mut local_vertex = vec![u32::MAX; side * side * side * 3];
    for z in 0..n {
        for y in 0..n {
            for x in 0..n {
                let mut case = 0usize;
                for c in 0..8 {
                    let [ox, oy, oz] = corner_offset(c);
                    if value[index(x + ox, y + oy, z + oz)] > 0.0 {
                        case |= 1 << c;
                    }
                }
                if case == 0 || case == 255 {
                    continue;
                }
                let mut vertex_of_edge = |e: u8| -> u32 {
                    let (c, axis) = edge_start(e as usize);
                    let [ox, oy, oz] = corner_offset(c);
                    let (px, py, pz) = (x + ox, y + oy, z + oz);
                    let p0 = index(px, py, pz);
                    let slot = p0 * 3 + axis;
                    if local_vertex[slot] == u32::MAX {
                        let step = [1, side, side * side][axis];
                        let p1 = p0 + step;
                        let (f0, f1) = (value[p0], value[p1]);
                        // Clamped away from the corners so no two vertices coincide.
                        let t = (f0 / (f0 - f1)).clamp(0.01, 0.99);
                        let mut pos = [px as f32, py as f32, pz as f32];
                        pos[axis] += t;
                        let world = Vec3::new(
                            (origin[0] as f32 + pos[0]) * cell,
                            (origin[1] as f32 + pos[1]) * cell,
                            (origin[2] as f32 + pos[2]) * cell,
                        );
                        local_vertex[slot] = mesh.positions.len() as u32;
                        mesh.positions.push(world);
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

/// Joins the blocks' meshes: a vertex on a block face was made by both blocks (bit-identical,
/// since both evaluated the same particles in the same order); keep one per grid edge.
fn stitch(blocks: Vec<BlockMesh>) -> RawMesh {
    let mut all: Vec<(EdgeKey, u32, u32)> = blocks
        .iter()
        .enumerate()
        .flat_map(|(b, m)| {
            m.keys
                .iter()
                .enumerate()
                .map(move |(v, k)| (*k, b as u32, v as u32))
        })
        .collect();
    all.par_sort_unstable();
    let mut remap: Vec<Vec<u32>> = blocks.iter().map(|m| vec![0; m.keys.len()]).collect();
    let mut out = RawMesh::default();
    let mut last: Option<EdgeKey> = None;
    for (key, b, v) in all {
        if last != Some(key) {
            let m = &blocks[b as usize];
            out.positions.push(m.positions[v as usize]);
            out.region.push(key.0);
            last = Some(key);
        }
        remap[b as usize][v as usize] = out.positions.len() as u32 - 1;
    }
    out.triangles = blocks
        .par_iter()
        .zip(remap.par_iter())
        .flat_map_iter(|(m, map)| m.triangles.iter().map(move |t| t.map(|v| map[v as usize])))
        .collect();
    out
}
