//! The lift: one coarse step that a density correction takes when it enters its tail.
//!
//! A pass carries a correction one kernel support, so once the local compression is gone,
//! lifting whole columns back up takes many passes. What is left then is smooth, and a grid
//! solves for it at once: on cells one kernel support wide, the displacement u = −∇ψ with
//!
//!   −∇²ψ = e  in cells holding liquid (e the cell's mean compression ρ/ρ0 − 1, zero where
//!             a particle is not compressed),
//!    ψ = 0    in empty cells (the free surface, where the liquid may go),
//!   ∂ψ/∂n = 0 against cells holding only obstacle particles (no liquid is pushed into them),
//!
//! so that ∇·u = e: the expansion that undoes the compression, directed to the free surface.
//! The passes then finish what the grid is too coarse to see.

use glam::{IVec3, Vec3, Vec3A};
use rayon::prelude::*;

use crate::geometry;
use crate::sim::cg::chunked_sum;

/// The grid is dense over the liquid's bounding box; a liquid spread so thin that the box
/// holds more than this many cells per particle (a spray) gets no lift.
const MAX_CELLS_PER_PARTICLE: usize = 2;

/// The Poisson solve stops when its residual fell to this fraction of the compression's
/// (40-50 iterations on the 12,800 liquid cells of a 100k honey block, 45-48 on the fan's
/// 8,700-9,000), or after `MAX_ITERATIONS`.
const TOLERANCE: f64 = 1e-3;
const MAX_ITERATIONS: u32 = 100;

/// Added to the Laplacian's diagonal so that liquid sealed in by obstacles on every side
/// (no empty cell to expand into, a singular system) still gets a bounded ψ.
const SEALED_SHIFT: f64 = 1e-4;

#[derive(Clone, Copy, PartialEq)]
enum Cell {
    Empty,
    Liquid,
    Obstacle,
}

/// The dense grid over the liquid's bounding box (one empty cell beyond it on every side).
struct Grid {
    origin: Vec3,
    size: f32,
    dims: IVec3,
}

impl Grid {
    fn around(liquid: &[Vec3], size: f32) -> Option<Self> {
        if liquid.is_empty() {
            return None;
        }
        let (lo, hi) = geometry::bounds(liquid);
        let origin = lo - Vec3::splat(size);
        let dims = ((hi - origin) / size).floor().as_ivec3() + IVec3::splat(2);
        let cells = dims.as_i64vec3().element_product();
        let limit = (MAX_CELLS_PER_PARTICLE * liquid.len()).max(4096) as i64;
        (cells <= limit).then_some(Grid { origin, size, dims })
    }

    fn len(&self) -> usize {
        (self.dims.x * self.dims.y * self.dims.z) as usize
    }

    fn key(&self, x: Vec3) -> IVec3 {
        ((x - self.origin) / self.size).floor().as_ivec3()
    }

    fn contains(&self, k: IVec3) -> bool {
        k.cmpge(IVec3::ZERO).all() && k.cmplt(self.dims).all()
    }

    fn index(&self, k: IVec3) -> usize {
        ((k.z * self.dims.y + k.y) * self.dims.x + k.x) as usize
    }

    fn coordinates(&self, c: usize) -> IVec3 {
        let c = c as i32;
        IVec3::new(
            c % self.dims.x,
            (c / self.dims.x) % self.dims.y,
            c / (self.dims.x * self.dims.y),
        )
    }
}

const FACES: [IVec3; 6] = [
    IVec3::X,
    IVec3::NEG_X,
    IVec3::Y,
    IVec3::NEG_Y,
    IVec3::Z,
    IVec3::NEG_Z,
];

/// Each liquid particle's displacement, u at its position, or `None` where the liquid is
/// too spread out for the grid. `compression` is each particle's ρ/ρ0 − 1 (≥ 0), `walls`
/// the obstacle particles, `cell` the kernel's support.
pub fn displacements(
    liquid: &[Vec3],
    compression: &[f32],
    walls: &[Vec3A],
    cell: f32,
) -> Option<Vec<Vec3>> {
    let grid = Grid::around(liquid, cell)?;
    let mut kind = vec![Cell::Empty; grid.len()];
    let mut compression_sum = vec![0.0f64; grid.len()];
    let mut count = vec![0u32; grid.len()];
    // In particle order, so the sums are the same whatever the thread count.
    for (x, e) in liquid.iter().zip(compression) {
        let c = grid.index(grid.key(*x));
        kind[c] = Cell::Liquid;
        compression_sum[c] += *e as f64;
        count[c] += 1;
    }
    for w in walls {
        let k = grid.key(Vec3::from(*w));
        if grid.contains(k) && kind[grid.index(k)] == Cell::Empty {
            kind[grid.index(k)] = Cell::Obstacle;
        }
    }
    let unknowns: Vec<usize> = (0..grid.len())
        .filter(|&c| kind[c] == Cell::Liquid)
        .collect();
    let mut unknown_of = vec![u32::MAX; grid.len()];
    for (u, &c) in unknowns.iter().enumerate() {
        unknown_of[c] = u as u32;
    }
    let kind_at = |k: IVec3| {
        if grid.contains(k) {
            kind[grid.index(k)]
        } else {
            Cell::Empty
        }
    };
    let rows: Vec<Row> = unknowns
        .par_iter()
        .map(|&c| {
            let k = grid.coordinates(c);
            let mut row = Row {
                neighbours: [u32::MAX; 6],
                faces: 0,
                right_side: compression_sum[c] / count[c] as f64 * (cell as f64).powi(2),
            };
            for (f, face) in FACES.iter().enumerate() {
                match kind_at(k + *face) {
                    Cell::Obstacle => {}
                    Cell::Empty => row.faces += 1,
                    Cell::Liquid => {
                        row.faces += 1;
                        row.neighbours[f] = unknown_of[grid.index(k + *face)];
                    }
                }
            }
            row
        })
        .collect();
    let psi = solve(&rows);
    let psi_at = |k: IVec3| match kind_at(k) {
        Cell::Liquid => psi[unknown_of[grid.index(k)] as usize],
        _ => 0.0,
    };
    // u = −∇ψ at every cell's centre by central differences; an obstacle cell beside it
    // mirrors the cell's own ψ (no flux into it), and obstacle cells stand still.
    let at_centres: Vec<Vec3> = (0..grid.len())
        .into_par_iter()
        .map(|c| {
            if kind[c] == Cell::Obstacle {
                return Vec3::ZERO;
            }
            let k = grid.coordinates(c);
            let own = psi_at(k);
            let beside = |m: IVec3| match kind_at(m) {
                Cell::Obstacle => own,
                _ => psi_at(m),
            };
            let slope = |a: IVec3| ((beside(k + a) - beside(k - a)) / (2.0 * cell as f64)) as f32;
            -Vec3::new(slope(IVec3::X), slope(IVec3::Y), slope(IVec3::Z))
        })
        .collect();
    // Interpolated trilinearly to each particle, so neighbours in different cells move
    // alike; obstacle cells are left out (and the weights of the others scaled up), so
    // that liquid along a wall moves as the liquid beside it, not half as far.
    Some(
        liquid
            .par_iter()
            .map(|x| {
                let t = (*x - grid.origin) / cell - Vec3::splat(0.5);
                let corner = t.floor();
                let f = t - corner;
                let corner = corner.as_ivec3();
                let (mut u, mut weight) = (Vec3::ZERO, 0.0);
                for o in 0..8 {
                    let o = IVec3::new(o & 1, (o >> 1) & 1, o >> 2);
                    let k = corner + o;
                    if grid.contains(k) && kind[grid.index(k)] != Cell::Obstacle {
                        let w = Vec3::select(o.cmpeq(IVec3::ONE), f, Vec3::ONE - f);
                        u += at_centres[grid.index(k)] * w.element_product();
                        weight += w.element_product();
                    }
                }
                if weight > 0.0 {
                    u / weight
                } else {
                    Vec3::ZERO
                }
            })
            .collect(),
    )
}

/// One liquid cell's row of the Laplacian: its liquid neighbours (u32::MAX for none), how
/// many of its faces are not against obstacles (its diagonal) and its right side.
struct Row {
    neighbours: [u32; 6],
    faces: u32,
    right_side: f64,
}

/// ψ by Jacobi-preconditioned conjugate gradient: the grid has an eighth as many cells as
/// the liquid has particles, and each iteration reads six neighbours per cell, so the
/// whole solve costs a few density passes' worth of pair visits.
fn solve(rows: &[Row]) -> Vec<f64> {
    let diagonal = |row: &Row| row.faces as f64 + SEALED_SHIFT;
    let apply = |v: &[f64], out: &mut [f64]| {
        out.par_iter_mut()
            .zip(rows)
            .enumerate()
            .for_each(|(u, (o, row))| {
                let mut s = diagonal(row) * v[u];
                for &j in &row.neighbours {
                    if j != u32::MAX {
                        s -= v[j as usize];
                    }
                }
                *o = s;
            })
    };
    let dot = |a: &[f64], b: &[f64]| chunked_sum(a.len(), 0.0, |i| a[i] * b[i]);
    let precondition = |r: &[f64], z: &mut [f64]| {
        z.par_iter_mut()
            .zip(r.par_iter().zip(rows))
            .for_each(|(z, (r, row))| *z = r / diagonal(row));
    };
    let n = rows.len();
    let mut psi = vec![0.0; n];
    let mut r: Vec<f64> = rows.iter().map(|row| row.right_side).collect();
    let mut z = vec![0.0; n];
    precondition(&r, &mut z);
    let mut d = z.clone();
    let mut ad = vec![0.0; n];
    let mut rz = dot(&r, &z);
    let target = TOLERANCE * dot(&r, &r).sqrt();
    for _ in 0..MAX_ITERATIONS {
        if dot(&r, &r).sqrt() <= target || rz <= 0.0 {
            break;
        }
        apply(&d, &mut ad);
        let alpha = rz / dot(&d, &ad);
        psi.par_iter_mut()
            .zip(&d)
            .for_each(|(x, d)| *x += alpha * d);
        r.par_iter_mut().zip(&ad).for_each(|(r, a)| *r -= alpha * a);
        precondition(&r, &mut z);
        let rz_next = dot(&r, &z);
        let beta = rz_next / rz;
        rz = rz_next;
        d.par_iter_mut()
            .zip(&z)
            .for_each(|(d, z)| *d = z + beta * *d);
    }
    psi
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: f32 = 0.005;
    const SPACING: f32 = 2.0 * R;
    const CELL: f32 = 4.0 * R;

    /// A column of liquid on the 2r lattice, `width` × `width` × `layers`, in a box of
    /// obstacle particles (floor and four sides, open at the top), and the obstacles.
    fn boxed_column(width: i32, layers: i32) -> (Vec<Vec3>, Vec<Vec3A>) {
        let mut liquid = Vec::new();
        for z in 0..layers {
            for y in 0..width {
                for x in 0..width {
                    liquid.push(Vec3::new(x as f32, y as f32, z as f32) * SPACING);
                }
            }
        }
        let mut walls = Vec::new();
        for z in -1..layers + 2 {
            for a in -1..=width {
                for b in -1..=width {
                    let side = a == -1 || a == width || b == -1 || b == width;
                    if side || z == -1 {
                        walls.push(Vec3A::new(a as f32, b as f32, z as f32) * SPACING);
                    }
                }
            }
        }
        (liquid, walls)
    }

    /// The lowest 4 of 16 layers 5% compressed in a box: the lift must raise the liquid
    /// above them as one, by the expansion that undoes the compression, ∫e dz = 0.05 ×
    /// 4 spacings, and move nothing sideways (the walls allow no flux).
    #[test]
    fn a_column_pressed_into_its_floor_is_lifted_as_one_by_its_compression() {
        let (liquid, walls) = boxed_column(8, 16);
        let compressed_layers = 4;
        let compression: Vec<f32> = liquid
            .iter()
            .map(|x| {
                if x.z < compressed_layers as f32 * SPACING - 0.5 * SPACING {
                    0.05
                } else {
                    0.0
                }
            })
            .collect();
        let u = displacements(&liquid, &compression, &walls, CELL).expect("a compact column");
        let expected = 0.05 * compressed_layers as f32 * SPACING;
        for (x, u) in liquid.iter().zip(&u) {
            assert!(u.is_finite(), "{u} at {x}");
            assert!(u.z >= 0.0, "{u} at {x}: the lift only raises");
            assert!(
                u.truncate().length() <= 0.05 * expected,
                "{u} at {x}: sideways into a wall"
            );
        }
        // Between the compressed layers and the top layer (whose cell borders the empty
        // cells above, where ψ is 0), the liquid rises as one.
        let middle: Vec<f32> = liquid
            .iter()
            .zip(&u)
            .filter(|(x, _)| x.z > 6.5 * SPACING && x.z < 13.5 * SPACING)
            .map(|(_, u)| u.z)
            .collect();
        for &rise in &middle {
            assert!(
                (rise / expected - 1.0).abs() <= 0.05,
                "rose {rise:e} m, expected {expected:e}"
            );
        }
    }

    /// Liquid with no empty cell to expand into (sealed in by obstacles) gets a bounded
    /// lift, and liquid spread too thin for a dense grid gets none.
    #[test]
    fn sealed_liquid_stays_bounded_and_a_spray_gets_no_lift() {
        let (liquid, mut walls) = boxed_column(6, 6);
        for y in -1..=6 {
            for x in -1..=6 {
                walls.push(Vec3A::new(x as f32, y as f32, 6.0) * SPACING);
            }
        }
        let compression = vec![0.05; liquid.len()];
        let u = displacements(&liquid, &compression, &walls, CELL).expect("a compact block");
        let largest = u.iter().map(|u| u.length()).fold(0.0, f32::max);
        assert!(largest.is_finite() && largest < 10.0 * R, "{largest:e} m");

        let spray: Vec<Vec3> = (0..100)
            .map(|i| Vec3::new(i as f32, 0.0, 0.0) * 0.5)
            .collect();
        assert!(displacements(&spray, &vec![0.05; 100], &[], CELL).is_none());
    }
}
