//! The implicit function the surface is the zero set of, evaluated on a sparse grid.
//!
//! `f(x) = max(rho(x) / (iso * rho0), ball(x)) - 1`, inside where `f > 0`:
//! - `rho(x) = sum_i K(|x - p_i|^2 / H^2)` with `K(u) = (1 - u)^3` (support `H`; a polynomial in
//!   the squared distance, so no square roots in the hot loop), `rho0` the same sum inside a
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
    particles: impl Iterator<Item = Vec3>,
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
    particles: impl Iterator<Item = Vec3>,
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
    particles: impl Iterator<Item = Vec3>,
    links: impl Iterator<Item = (Vec3, Vec3)>,
) -> Vec<f32> {
    let [sx, sy, sz] = cells.map(|n| n + 1);
    let mut rho = vec![0.0f32; sx * sy * sz];
    let mut ball = vec![0.0f32; sx * sy * sz];
    let h = params.support;
    let h2 = h * h;
    let b2 = (BALL_SUPPORT * params.radius).powi(2);
    let r2 = params.radius * params.radius;
    let inv_ball = 1.0 / (b2 - r2);
    let inv_h2 = 1.0 / h2;
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
    for p in particles {
        // The blob sum. The inner loop has no branch (points beyond the support add exactly
        // +0.0, which changes no value), so it vectorises.
        let (x0, x1) = range(p.x, h, 0);
        let (y0, y1) = range(p.y, h, 1);
        let (z0, z1) = range(p.z, h, 2);
        if x1 < x0 as i64 || y1 < y0 as i64 || z1 < z0 as i64 {
            continue;
        }
        for z in z0..=z1 as usize {
            let dz = zs[z] - p.z;
            let dz2 = dz * dz;
            if dz2 >= h2 {
                continue;
            }
            for y in y0..=y1 as usize {
                let dy = ys[y] - p.y;
                let dyz2 = dy * dy + dz2;
                if dyz2 >= h2 {
                    continue;
                }
                // The whole row of the support's bounding box: cheaper than working out the
                // sphere's chord per row, and the loop below has no branch.
                let (rx0, rx1) = (x0, x1);
                let row = (z * sy + y) * sx;
                let out = &mut rho[row + rx0..=row + rx1 as usize];
                for (r, x) in out.iter_mut().zip(&xs[rx0..=rx1 as usize]) {
                    let dx = x - p.x;
                    let v = (1.0 - (dx * dx + dyz2) * inv_h2).max(0.0);
                    *r += v * v * v;
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
        let lo = a.min(e) - b;
        let hi = a.max(e) + b;
        let range = |axis: usize| {
            let l = (lo[axis] / cell).ceil() as i64 - origin[axis] as i64;
            let h = (hi[axis] / cell).floor() as i64 - origin[axis] as i64;
            (l.max(0), h.min(cells[axis] as i64))
        };
        let ((x0, x1), (y0, y1), (z0, z1)) = (range(0), range(1), range(2));
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
