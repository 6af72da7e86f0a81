//! Marching cubes over a sparse grid: which blocks of `BLOCK`^3 cells to evaluate (only those
//! some particle's kernel reaches, and of those only the narrow band around the surface), and
//! with which particles. Blocks run in parallel; `march` polygonizes and stitches them.

use glam::Vec3;
use rayon::prelude::*;

use super::contact::Walls;
use super::field::{evaluate_block, FieldParams, Kernel, BALL_SUPPORT};
pub use super::march::RawMesh;
use super::march::{march_block, stitch, BlockMesh};

/// Cells per block side: 17^3 points of two f32 fields stay in L2 cache.
pub const BLOCK: i32 = 16;

fn div_floor(a: i32, b: i32) -> i32 {
    a.div_euclid(b)
}

/// Marks link entries in block lists (after the particles, in link order).
const LINK: u32 = 1 << 31;

/// Regions whose field fits in a box of at most this many cells a side (drops, short strands)
/// are evaluated as one box of their own size: tiled into `BLOCK`-blocks, a lone drop's
/// 17^3-point support straddles 8 blocks, which evaluated and marched 8x as many points.
const COMPACT: i32 = 2 * BLOCK;

/// Marks a touch of a compact region's own box (see [`COMPACT`]) instead of a tiled block.
const OWN_BOX: i32 = i32::MIN;

/// Polygonizes the field of `kernels`, each region on its own. `region[i]` is kernel i's
/// region; `links` pairs of kernels (same region) joined by capsules; `cell` the cube size;
/// `walls` the obstacles the field is clipped at (`contact`).
///
/// Narrow band: blocks wholly inside the liquid have no surface, and deep inside a pool they
/// are most blocks, so they are not evaluated. Evaluation starts from the blocks at the edge of
/// each region's blocks (and those with capsules) and spreads to every neighbour with which an
/// evaluated block shares a grid point that is not inside, until none is woken. The surface is
/// thus never left open, and all surface connected to the edge is found. What is left should
/// be wholly inside; a bubble enclosed in it is looked for on every fourth point (1/64 of the
/// work; it finds any bubble whose outside part holds a ball of radius 1.8 cells, i.e. bubbles
/// about two particles across and up) and flooded from where found.
pub fn polygonize(
    kernels: &[Kernel],
    region: &[u32],
    links: &[(u32, u32)],
    params: &FieldParams,
    cell: f32,
    walls: Option<&Walls>,
) -> RawMesh {
    let b = BALL_SUPPORT * params.radius;
    // Grid points each particle's blob or ball reaches, and each region's box of them (the
    // capsules reach no further than their end particles' balls).
    let reach = |k: &Kernel| -> ([i32; 3], [i32; 3]) {
        let half = k.reach.max(Vec3::splat(b));
        let (from, to) = (
            k.centre.min(k.centre + k.sweep),
            k.centre.max(k.centre + k.sweep),
        );
        (
            ((from - half) / cell).to_array().map(|v| v.ceil() as i32),
            ((to + half) / cell).to_array().map(|v| v.floor() as i32),
        )
    };
    let regions = region.iter().max().map_or(0, |&g| g as usize + 1);
    let mut boxes = vec![([i32::MAX; 3], [i32::MIN; 3]); regions];
    for (k, &g) in kernels.iter().zip(region) {
        let (lo, hi) = reach(k);
        let bx = &mut boxes[g as usize];
        *bx = (
            std::array::from_fn(|a| bx.0[a].min(lo[a])),
            std::array::from_fn(|a| bx.1[a].max(hi[a])),
        );
    }
    let compact: Vec<bool> = boxes
        .iter()
        .map(|(lo, hi)| (0..3).all(|a| hi[a] - lo[a] + 2 <= COMPACT))
        .collect();
    // Blocks a box of grid points falls in, or the region's own box.
    let blocks_of = |r: u32, lo: [i32; 3], hi: [i32; 3]| {
        let (b0, b1): ([i32; 3], [i32; 3]) = if compact[r as usize] {
            ([OWN_BOX; 3], [OWN_BOX; 3])
        } else {
            // Block b covers points [b*BLOCK, (b+1)*BLOCK].
            (
                std::array::from_fn(|a| div_floor(lo[a] - 1, BLOCK)),
                std::array::from_fn(|a| div_floor(hi[a], BLOCK)),
            )
        };
        (b0[2]..=b1[2]).flat_map(move |z| {
            (b0[1]..=b1[1]).flat_map(move |y| (b0[0]..=b1[0]).map(move |x| (z, y, x)))
        })
    };
    // (region, block z, y, x, particle): every block each particle's support reaches.
    let mut touches: Vec<(u32, i32, i32, i32, u32)> = kernels
        .par_iter()
        .enumerate()
        .flat_map_iter(|(i, k)| {
            let (lo, hi) = reach(k);
            let r = region[i];
            blocks_of(r, lo, hi).map(move |(z, y, x)| (r, z, y, x, i as u32))
        })
        .collect();
    touches.par_extend(links.par_iter().enumerate().flat_map_iter(|(k, &(i, j))| {
        let (p, q) = (kernels[i as usize].centre, kernels[j as usize].centre);
        let lo = ((p.min(q) - b) / cell).to_array().map(|v| v.ceil() as i32);
        let hi = ((p.max(q) + b) / cell).to_array().map(|v| v.floor() as i32);
        let r = region[i as usize];
        blocks_of(r, lo, hi).map(move |(z, y, x)| (r, z, y, x, LINK | k as u32))
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

    let block_count = starts.len() - 1;
    let keys: Vec<BlockKey> = (0..block_count)
        .map(|k| {
            let t = touches[starts[k]];
            (t.0, t.1, t.2, t.3)
        })
        .collect();
    let seed: Vec<bool> = (0..block_count)
        .into_par_iter()
        .map(|k| {
            let (r, bz, by, bx) = keys[k];
            bz == OWN_BOX
                || touches[starts[k]..starts[k + 1]]
                    .iter()
                    .any(|t| t.4 & LINK != 0)
                || neighbour_offsets().any(|(dx, dy, dz)| {
                    keys.binary_search(&(r, bz + dz, by + dy, bx + dx)).is_err()
                })
        })
        .collect();
    // Points [origin, origin + cells] of block k; a region's own box has one point of margin
    // beyond its particles' supports, so the surface closes inside it.
    let extent = |k: usize| -> ([i32; 3], [usize; 3]) {
        let (r, bz, by, bx) = keys[k];
        if bz == OWN_BOX {
            let (lo, hi) = boxes[r as usize];
            (
                lo.map(|v| v - 1),
                std::array::from_fn(|a| (hi[a] - lo[a] + 2) as usize),
            )
        } else {
            ([bx * BLOCK, by * BLOCK, bz * BLOCK], [BLOCK as usize; 3])
        }
    };
    // The field on block k's points, or on every other one (`stride` 2: 1/8 of the work).
    let field_of = |k: usize, stride: usize| {
        let run = &touches[starts[k]..starts[k + 1]];
        let (origin, cells) = extent(k);
        let s = stride as i32;
        let (origin, cells, cell) = (
            origin.map(|v| v / s),
            cells.map(|n| n / stride),
            cell * stride as f32,
        );
        let mut field = evaluate_block(
            params,
            origin,
            cells,
            cell,
            run.iter()
                .filter(|t| t.4 & LINK == 0)
                .map(|t| kernels[t.4 as usize]),
            run.iter().filter(|t| t.4 & LINK != 0).map(|t| {
                let (i, j) = links[(t.4 & !LINK) as usize];
                (kernels[i as usize].centre, kernels[j as usize].centre)
            }),
        );
        if let Some(walls) = walls {
            let point = |i: [usize; 3]| {
                Vec3::from_array(std::array::from_fn(|a| {
                    (origin[a] + i[a] as i32) as f32 * cell
                }))
            };
            if walls.near_box(point([0; 3]), point(cells)) {
                let [sx, sy, _] = cells.map(|n| n + 1);
                for (k, f) in field.iter_mut().enumerate() {
                    let p = point([k % sx, (k / sx) % sy, k / (sx * sy)]);
                    *f = walls.clip(*f, p, params.radius, cell);
                }
            }
        }
        field
    };
    let evaluate = |k: usize| -> (BlockMesh, Vec<usize>) {
        let (origin, cells) = extent(k);
        let field = field_of(k, 1);
        let (r, bz, _, _) = keys[k];
        let wake = if bz == OWN_BOX {
            vec![]
        } else {
            neighbours_to_wake(&keys, k, &field)
        };
        (march_block(r, origin, cells, cell, &field), wake)
    };
    let mut meshes: Vec<Option<BlockMesh>> = (0..block_count).map(|_| None).collect();
    let flood = |meshes: &mut Vec<Option<BlockMesh>>, mut todo: Vec<usize>| {
        while !todo.is_empty() {
            let done: Vec<(usize, (BlockMesh, Vec<usize>))> =
                todo.par_iter().map(|&k| (k, evaluate(k))).collect();
            let mut next = Vec::new();
            for (k, (mesh, wake)) in done {
                meshes[k] = Some(mesh);
                next.extend(wake);
            }
            next.sort_unstable();
            next.dedup();
            next.retain(|&k| meshes[k].is_none());
            todo = next;
        }
    };
    flood(&mut meshes, (0..block_count).filter(|&k| seed[k]).collect());
    // Blocks the flood did not reach should be wholly inside; look for enclosed bubbles.
    let unreached: Vec<usize> = (0..block_count).filter(|&k| meshes[k].is_none()).collect();
    let bubbles: Vec<usize> = unreached
        .into_par_iter()
        .filter(|&k| field_of(k, 4).iter().any(|&v| v <= 0.0))
        .collect();
    flood(&mut meshes, bubbles);
    // Block order, whichever round evaluated them: the same bits for any thread count.
    stitch(meshes.into_iter().flatten().collect())
}

/// A block: region, block z, y, x (or [`OWN_BOX`] three times).
type BlockKey = (u32, i32, i32, i32);

/// The 26 neighbour directions (dx, dy, dz).
fn neighbour_offsets() -> impl Iterator<Item = (i32, i32, i32)> {
    (-1..=1)
        .flat_map(|dz| (-1..=1).flat_map(move |dy| (-1..=1).map(move |dx| (dx, dy, dz))))
        .filter(|&d| d != (0, 0, 0))
}

/// The neighbours (indices into the sorted `keys`) of tiled block `k` that share a grid point
/// with it where its `field` is not inside: the surface may go on into them.
fn neighbours_to_wake(keys: &[BlockKey], k: usize, field: &[f32]) -> Vec<usize> {
    let n = BLOCK as usize;
    let side = n + 1;
    let (r, bz, by, bx) = keys[k];
    // The shared points along one axis: the face, edge or corner towards the neighbour.
    let span = |d: i32| match d {
        -1 => 0..=0,
        1 => n..=n,
        _ => 0..=n,
    };
    neighbour_offsets()
        .filter_map(|(dx, dy, dz)| {
            let j = keys.binary_search(&(r, bz + dz, by + dy, bx + dx)).ok()?;
            let not_inside = span(dz).any(|z| {
                span(dy).any(|y| span(dx).any(|x| field[(z * side + y) * side + x] <= 0.0))
            });
            not_inside.then_some(j)
        })
        .collect()
}
