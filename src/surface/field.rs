//! The implicit function the surface is the zero set of, evaluated on a sparse grid.
//!
//! `f(x) = max(rho(x) / (iso * rho0), ball(x)) - 1`, inside where `f > 0`:
//! - `rho(x) = sum_i w_i K(u_i(x))` with `K(u) = (1 - u)^3` and `u_i(x) = (x - p_i)ᵀ M_i (x - p_i)`
//!   the particle's blob (`anisotropy`: `M_i = I / H^2` for a ball of support `H` inside the
//!   liquid, an ellipsoid of the same volume on surfaces and threads; a polynomial, so no square
//!   roots in the hot loop; `w_i` < 1 only for blobs swept down to an obstacle, `contact`), `rho0` the same sum inside a
//!   resting lattice of spacing `2r` (computed, not guessed), `iso` the fraction of it on the
//!   surface. This is the smooth Gaussian-like blob field of the paper with a compact support.
//! - `ball(x) = max_i (B^2 - |x - p_i|^2) / (B^2 - r^2)` is >= 1 within the particle radius `r`
//!   of every particle. The blob field alone would drop isolated drops and single-particle
//!   strands (their sum never reaches half the bulk sum); this keeps them. Thin strands stay
//!   connected: between linked particles of thin parts (`links`) the ball becomes a capsule of
//!   radius `r` along the segment joining them.
//!
//! Both are continuous functions of the particle positions: nothing is classified, so nothing
//! pops between frames.

use glam::Vec3;

pub use super::anisotropy::Kernel;

/// Corner value of the ball term's support, in particle radii (ball value 0 there).
pub const BALL_SUPPORT: f32 = 2.0;

#[derive(Clone, Copy, Debug)]
pub struct FieldParams {
    /// Kernel support `H` (world units).
    pub support: f32,
    /// Particle radius `r` (world units).
    pub radius: f32,
    /// `iso * rho0`: the blob sum on the surface.
    pub surface_sum: f32,
}

impl FieldParams {
    pub fn new(radius: f32, support_radii: f32, iso: f32) -> Self {
        let support = support_radii * radius;
        FieldParams {
            support,
            radius,
            surface_sum: iso * rest_sum(support_radii),
        }
    }
}

/// The blob sum at a particle inside a resting lattice of spacing 2 (in particle radii).
pub fn rest_sum(support_radii: f32) -> f32 {
    let n = (support_radii / 2.0).ceil() as i32;
    let mut sum = 0.0f64;
    for z in -n..=n {
        for y in -n..=n {
            for x in -n..=n {
                let d2 = 4.0 * (x * x + y * y + z * z) as f32;
                let u = d2 / (support_radii * support_radii);
                if u < 1.0 {
                    sum += ((1.0 - u) as f64).powi(3);
                }
            }
        }
    }
    sum as f32
}

/// Evaluates `f` (positive inside) on the `(cells + 1)` points per axis (x fastest) of the block
/// whose first point is `origin` (integer grid coordinates), with cell size `cell`.
/// `particles` must be in a fixed order (global index order), so that points shared with
/// neighbouring blocks get bit-identical values.
///
/// On x86-64 CPUs with AVX2 the same code is compiled for 8-wide vectors (its rows are 17
/// points). Only IEEE add/mul/max are used and never fused, so the values are the same bits
/// either way.
pub fn evaluate_block(
    params: &FieldParams,
    origin: [i32; 3],
    cells: [usize; 3],
    cell: f32,
    particles: impl Iterator<Item = Kernel>,
    links: impl Iterator<Item = (Vec3, Vec3)>,
) -> Vec<f32> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { evaluate_block_avx2(params, origin, cells, cell, particles, links) };
    }
    evaluate_block_any(params, origin, cells, cell, particles, links)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn evaluate_block_avx2(
    params: &FieldParams,
    origin: [i32; 3],
    cells: [usize; 3],
    cell: f32,
    particles: impl Iterator<Item = Kernel>,
    links: impl Iterator<Item = (Vec3, Vec3)>,
) -> Vec<f32> {
    evaluate_block_any(params, origin, cells, cell, particles, links)
}

// Point indices address both the coordinate tables and the flat arrays: index loops read best.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
fn evaluate_block_any(
    params: &FieldParams,
    origin: [i32; 3],
    cells: [usize; 3],
    cell: f32,
    particles: impl Iterator<Item = Kernel>,
    links: impl Iterator<Item = (Vec3, Vec3)>,
) -> Vec<f32> {
    let [sx, sy, sz] = cells.map(|n| n + 1);
    let mut rho = vec![0.0f32; sx * sy * sz];
    let mut ball = vec![0.0f32; sx * sy * sz];
    let b2 = (BALL_SUPPORT * params.radius).powi(2);
    let r2 = params.radius * params.radius;
    let inv_ball = 1.0 / (b2 - r2);
    let point = |i: usize, axis: usize| (origin[axis] + i as i32) as f32 * cell;
    let coords: [Vec<f32>; 3] =
        std::array::from_fn(|a| (0..=cells[a]).map(|i| point(i, a)).collect());
    let [xs, ys, zs] = &coords;
    // Grid points within `reach` of `p` along one axis, as a local index range.
    let range = |p: f32, reach: f32, axis: usize| {
        let lo = ((p - reach) / cell).ceil() as i64 - origin[axis] as i64;
        let hi = ((p + reach) / cell).floor() as i64 - origin[axis] as i64;
        (lo.max(0) as usize, hi.min(cells[axis] as i64))
    };
    let b = BALL_SUPPORT * params.radius;
    for kernel in particles {
        if kernel.sweep != Vec3::ZERO {
            add_swept(
                &mut rho, &mut ball, &kernel, params, origin, cells, cell, &coords,
            );
            continue;
        }
        let p = kernel.centre;
        let [mxx, myy, mzz, mxy, mxz, myz] = kernel.shape;
        // The blob sum over the kernel's ellipsoid `u(d) = dᵀ M d < 1`. Per row (y, z fixed),
        // `u = mxx dx² + b dx + c`: the inner loop has no branch (points beyond the support
        // add exactly +0.0, which changes no value), so it vectorises.
        let (x0, x1) = range(p.x, kernel.reach.x, 0);
        let (y0, y1) = range(p.y, kernel.reach.y, 1);
        let (z0, z1) = range(p.z, kernel.reach.z, 2);
        if x1 < x0 as i64 || y1 < y0 as i64 || z1 < z0 as i64 {
            continue;
        }
        for z in z0..=z1 as usize {
            let dz = zs[z] - p.z;
            for y in y0..=y1 as usize {
                let dy = ys[y] - p.y;
                let b_row = 2.0 * (mxy * dy + mxz * dz);
                let c_row = myy * dy * dy + mzz * dz * dz + 2.0 * myz * dy * dz;
                // The row misses the ellipsoid when even its closest point has u >= 1.
                if c_row - b_row * b_row / (4.0 * mxx) >= 1.0 {
                    continue;
                }
                let row = (z * sy + y) * sx;
                let out = &mut rho[row + x0..=row + x1 as usize];
                let weight = kernel.weight;
                for (r, x) in out.iter_mut().zip(&xs[x0..=x1 as usize]) {
                    let dx = x - p.x;
                    let v = (1.0 - (mxx * dx * dx + b_row * dx + c_row)).max(0.0);
                    *r += weight * (v * v * v);
                }
            }
        }
        // The ball term, over its smaller support.
        let (x0, x1) = range(p.x, b, 0);
        let (y0, y1) = range(p.y, b, 1);
        let (z0, z1) = range(p.z, b, 2);
        if x1 < x0 as i64 || y1 < y0 as i64 || z1 < z0 as i64 {
            continue;
        }
        for z in z0..=z1 as usize {
            let dz = zs[z] - p.z;
            for y in y0..=y1 as usize {
                let dy = ys[y] - p.y;
                let dyz2 = dy * dy + dz * dz;
                let row = (z * sy + y) * sx;
                let out = &mut ball[row + x0..=row + x1 as usize];
                for (k, x) in out.iter_mut().zip(&xs[x0..=x1 as usize]) {
                    let dx = x - p.x;
                    *k = k.max((b2 - (dx * dx + dyz2)) * inv_ball);
                }
            }
        }
    }
    // Capsules along thin links: the ball term of the nearest point on the segment.
    for (a, e) in links {
        let [(x0, x1), (y0, y1), (z0, z1)] =
            points_in_box(a.min(e) - b, a.max(e) + b, origin, cells, cell);
        let axis = e - a;
        let inv_len2 = 1.0 / axis.length_squared().max(f32::MIN_POSITIVE);
        for z in z0..=z1 {
            for y in y0..=y1 {
                let row = (z as usize * sy + y as usize) * sx;
                for x in x0..=x1 {
                    let q = Vec3::new(
                        point(x as usize, 0),
                        point(y as usize, 1),
                        point(z as usize, 2),
                    );
                    let t = ((q - a).dot(axis) * inv_len2).clamp(0.0, 1.0);
                    let d2 = (a + axis * t).distance_squared(q);
                    if d2 < b2 {
                        let k = row + x as usize;
                        ball[k] = ball[k].max((b2 - d2) * inv_ball);
                    }
                }
            }
        }
    }
    let scale = 1.0 / params.surface_sum;
    rho.iter()
        .zip(&ball)
        .map(|(r, b)| (r * scale).max(*b) - 1.0)
        .collect()
}

/// Adds a blob swept along `kernel.sweep` (a particle's blob drawn down to the obstacle it
/// wets, see `contact`): at each point the blob's value at the nearest point of the sweep in
/// the blob's own metric, i.e. a capsule of the ellipsoid; and the ball term's capsule along
/// the sweep, both weighted. The capsule makes a layer one particle thin, whose blob sum is
/// below the surface's anyway, reach the obstacle too. Few particles touch obstacles, so this
/// plain loop costs little.
#[allow(clippy::too_many_arguments)]
fn add_swept(
    rho: &mut [f32],
    ball: &mut [f32],
    kernel: &Kernel,
    params: &FieldParams,
    origin: [i32; 3],
    cells: [usize; 3],
    cell: f32,
    coords: &[Vec<f32>; 3],
) {
    let (a, s) = (kernel.centre, kernel.sweep);
    let b2 = (BALL_SUPPORT * params.radius).powi(2);
    let inv_ball = 1.0 / (b2 - params.radius * params.radius);
    let inv_s2 = 1.0 / s.length_squared().max(f32::MIN_POSITIVE);
    let half = kernel.reach.max(Vec3::splat(BALL_SUPPORT * params.radius));
    let [(x0, x1), (y0, y1), (z0, z1)] = points_in_box(
        a.min(a + s) - half,
        a.max(a + s) + half,
        origin,
        cells,
        cell,
    );
    let m_s = kernel.metric(s);
    let s_m_s = s.dot(m_s).max(f32::MIN_POSITIVE);
    let (sx, sy) = (cells[0] + 1, cells[1] + 1);
    for z in z0..=z1 {
        for y in y0..=y1 {
            let row = (z as usize * sy + y as usize) * sx;
            for x in x0..=x1 {
                let d = Vec3::new(
                    coords[0][x as usize],
                    coords[1][y as usize],
                    coords[2][z as usize],
                ) - a;
                let t = (d.dot(m_s) / s_m_s).clamp(0.0, 1.0);
                let e = d - s * t;
                let v = (1.0 - e.dot(kernel.metric(e))).max(0.0);
                let k = row + x as usize;
                rho[k] += kernel.weight * (v * v * v);
                let along = (d.dot(s) * inv_s2).clamp(0.0, 1.0);
                let capsule = (b2 - (d - s * along).length_squared()) * inv_ball;
                ball[k] = ball[k].max(kernel.weight * capsule);
            }
        }
    }
}

/// The block's grid points inside the box `lo..hi`, as a local index range per axis (empty
/// where the range ends before it starts).
fn points_in_box(
    lo: Vec3,
    hi: Vec3,
    origin: [i32; 3],
    cells: [usize; 3],
    cell: f32,
) -> [(i64, i64); 3] {
    std::array::from_fn(|axis| {
        let l = (lo[axis] / cell).ceil() as i64 - origin[axis] as i64;
        let h = (hi[axis] / cell).floor() as i64 - origin[axis] as i64;
        (l.max(0), h.min(cells[axis] as i64))
    })
}
