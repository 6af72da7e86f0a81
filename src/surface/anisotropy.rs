//! Anisotropic kernels (Yu & Turk 2013, "Reconstructing surfaces of particle-based fluids using
//! anisotropic kernels", §4): each particle's blob is an ellipsoid shaped like the spread of
//! its neighbours, instead of a ball.
//!
//! Why: a ball per particle shows every particle. A flat coat then looks hammered (each
//! particle a dimple) and a thin thread beaded (a lump per particle along it). Stretched along
//! the directions in which the liquid goes on and squashed across the one in which it ends,
//! the blobs overlap into a flat sheet on a coat and into a cylinder along a thread, while
//! particles inside the liquid, whose neighbours spread evenly, keep their ball.
//!
//! The method, per particle `i` (neighbours of its own region within `R = 2H`, `H` the
//! field's kernel support):
//! 1. the weighted covariance `C` of its neighbours about their weighted mean, with Yu & Turk's
//!    flat weights `1 - (d/R)^3`;
//! 2. `C`'s eigenvalues, relative to those of a particle inside a resting lattice (`σ_k`), so a
//!    particle in the bulk gets exactly the isotropic kernel;
//! 3. the small ones raised to at least `σ_max / STRETCH_LIMIT`: a blob is at most 4 times
//!    longer than wide (Yu & Turk's `k_r = 4`), so strands do not become needles;
//! 4. the axes scaled to a product of 1 (volume-preserving): the blob moves liquid around,
//!    it neither adds nor removes any, so the iso value of the field keeps its meaning. A lone
//!    particle (no spread) keeps its ball.
//!    (Yu & Turk instead scale by a constant `k_s`, weight each blob by its determinant, and
//!    switch sparse neighbourhoods to a shrunk ball. Measured on a jittered thread, slab and
//!    ball, their weighting lets each flattened surface blob stand out: the slab's top 0.14 r
//!    RMS against 0.02 r here. Lone particles and strands are kept by the field's ball and
//!    capsule terms, so no switch is needed, and no kernel jumps between frames.)
//!
//! Every step is a continuous function of the positions (the kernel matrix is a spectral
//! function of `C`, continuous even where eigenvalues cross), so the surface does not pop.

use glam::{DMat3, DVec3, Vec3};
use rayon::prelude::*;

use super::neighbours::ParticleGrid;

/// At most this ratio between a blob's longest and shortest axis (Yu & Turk's `k_r`).
pub const STRETCH_LIMIT: f64 = 4.0;

/// The neighbourhood whose spread shapes a blob, in kernel supports (Yu & Turk's `2h`). The
/// kernel's own support holds too few particles (about 10 with real weight): their spread is
/// noise, and the surface showed it (a jittered ball 6.3% RMS off round against 1.2% here).
pub const SEARCH: f32 = 2.0;

/// One particle's blob: `u(x) = (x - centre)ᵀ M (x - centre)`, inside its support where
/// `u < 1`. `M` is symmetric, stored as xx, yy, zz, xy, xz, yz.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Kernel {
    pub centre: Vec3,
    pub shape: [f32; 6],
    /// 1 for a particle's blob; less for its copy on an obstacle it is near (`contact`).
    pub weight: f32,
    /// The blob is swept from `centre` to `centre + sweep`: zero for a particle's own blob
    /// (which also gets the field's ball term), down to the obstacle for its copy there (see
    /// `contact`).
    pub sweep: Vec3,
    /// Half the support's bounding box along each axis (world units).
    pub reach: Vec3,
}

impl Kernel {
    /// The ball of radius `support`.
    pub fn isotropic(centre: Vec3, support: f32) -> Kernel {
        let m = 1.0 / (support * support);
        Kernel {
            centre,
            shape: [m, m, m, 0.0, 0.0, 0.0],
            weight: 1.0,
            sweep: Vec3::ZERO,
            reach: Vec3::splat(support),
        }
    }

    /// `M d`.
    pub fn metric(&self, d: Vec3) -> Vec3 {
        let [xx, yy, zz, xy, xz, yz] = self.shape;
        Vec3::new(
            xx * d.x + xy * d.y + xz * d.z,
            xy * d.x + yy * d.y + yz * d.z,
            xz * d.x + yz * d.y + zz * d.z,
        )
    }

    /// An ellipsoid of semi-axes `support * stretch[k]` along the orthonormal `axes[k]`.
    fn ellipsoid(centre: Vec3, support: f64, axes: [DVec3; 3], stretch: [f64; 3]) -> Kernel {
        let mut m = DMat3::ZERO;
        let mut inverse = DMat3::ZERO;
        for (a, s) in axes.iter().zip(stretch) {
            let outer = DMat3::from_cols(*a * a.x, *a * a.y, *a * a.z);
            m += outer * (1.0 / (support * support * s * s));
            inverse += outer * (support * support * s * s);
        }
        Kernel {
            centre,
            shape: [
                m.x_axis.x as f32,
                m.y_axis.y as f32,
                m.z_axis.z as f32,
                m.y_axis.x as f32,
                m.z_axis.x as f32,
                m.z_axis.y as f32,
            ],
            weight: 1.0,
            sweep: Vec3::ZERO,
            // The bounding box of {d : dᵀ M d <= 1} has half-widths sqrt((M⁻¹)_aa).
            reach: Vec3::new(
                inverse.x_axis.x.sqrt() as f32,
                inverse.y_axis.y.sqrt() as f32,
                inverse.z_axis.z.sqrt() as f32,
            ),
        }
    }
}

/// The covariance eigenvalue (per axis, in units of r^2) of a particle inside a resting lattice
/// of spacing 2, over `support_radii`, with the field's weights: the reference `σ = 1`.
pub fn rest_variance(support_radii: f32) -> f64 {
    let n = (support_radii / 2.0).ceil() as i32;
    let (mut w_sum, mut xx) = (0.0f64, 0.0f64);
    for z in -n..=n {
        for y in -n..=n {
            for x in -n..=n {
                let d = (4.0 * (x * x + y * y + z * z) as f64).sqrt() / support_radii as f64;
                let w = if d < 1.0 { 1.0 - d * d * d } else { 0.0 };
                w_sum += w;
                xx += w * 4.0 * (x * x) as f64;
            }
        }
    }
    xx / w_sum
}

/// Each particle's kernel. `strength` 0 gives balls of radius `support` (the isotropic field),
/// 1 Yu & Turk's ellipsoids; between, the stretches are blended geometrically (the product of
/// the axes stays 1). `grid` holds `centres` with their regions, cells of at least `support/2`.
pub fn kernels(
    grid: &ParticleGrid,
    centres: &[Vec3],
    region: &[u32],
    support: f32,
    particle_radius: f32,
    strength: f32,
) -> Vec<Kernel> {
    if strength <= 0.0 {
        return centres
            .iter()
            .map(|&p| Kernel::isotropic(p, support))
            .collect();
    }
    let search = SEARCH * support;
    let (search2, inv_search) = (search * search, 1.0 / search);
    let cells = (search / (support / 2.0)).ceil() as i32;
    let reference = rest_variance(search / particle_radius) * (particle_radius as f64).powi(2);
    centres
        .par_iter()
        .zip(region.par_iter())
        .map(|(&p, &own)| {
            // Weighted first and second moments about p (offsets are a few r: f32 holds
            // them, and the covariance's cancellation loses at most a few bits).
            let (mut w_sum, mut first) = (0.0f32, Vec3::ZERO);
            let mut second = [0.0f32; 6]; // xx yy zz xy xz yz
            grid.for_each_within_cells(p, cells, |_, q, g| {
                let d = q - p;
                let d2 = d.length_squared();
                if g == own && d2 < search2 {
                    let t = d2.sqrt() * inv_search;
                    let w = 1.0 - t * t * t;
                    w_sum += w;
                    first += w * d;
                    second[0] += w * d.x * d.x;
                    second[1] += w * d.y * d.y;
                    second[2] += w * d.z * d.z;
                    second[3] += w * d.x * d.y;
                    second[4] += w * d.x * d.z;
                    second[5] += w * d.y * d.z;
                }
            });
            let mean = (first / w_sum).as_dvec3();
            let [xx, yy, zz, xy, xz, yz] = second.map(|v| (v / w_sum) as f64);
            let covariance = DMat3::from_cols(
                DVec3::new(xx, xy, xz),
                DVec3::new(xy, yy, yz),
                DVec3::new(xz, yz, zz),
            ) - DMat3::from_cols(mean * mean.x, mean * mean.y, mean * mean.z);
            let (values, axes) = symmetric_eigen(covariance);
            let sigma = values.map(|v| v.max(0.0) / reference);
            let largest = sigma.iter().cloned().fold(0.0, f64::max);
            let clamped = sigma.map(|s| s.max(largest / STRETCH_LIMIT).max(1e-9));
            let volume = clamped[0] * clamped[1] * clamped[2];
            let stretch = clamped.map(|s| (s / volume.cbrt()).powf(strength as f64));
            Kernel::ellipsoid(p, support as f64, axes, stretch)
        })
        .collect()
}

/// Eigenvalues and orthonormal eigenvectors of a symmetric 3x3 matrix, by cyclic Jacobi
/// rotations (exact to round-off in a few sweeps, and the same bits on every machine).
pub fn symmetric_eigen(matrix: DMat3) -> ([f64; 3], [DVec3; 3]) {
    let mut a = matrix.to_cols_array_2d(); // a[col][row]; symmetric, so a[i][j] either way
    let mut v = DMat3::IDENTITY.to_cols_array_2d();
    let scale: f64 = a.iter().flatten().map(|x| x.abs()).sum();
    for _sweep in 0..32 {
        let off = a[0][1].abs() + a[0][2].abs() + a[1][2].abs();
        if off <= 1e-15 * scale || off == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            if a[p][q] == 0.0 {
                continue;
            }
            // The rotation that zeroes a[p][q] (Numerical Recipes' stable form).
            let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
            let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
            let c = 1.0 / (t * t + 1.0).sqrt();
            let s = t * c;
            // A <- Jᵀ A J, then V <- V J.
            for row in &mut a {
                let (akp, akq) = (row[p], row[q]);
                row[p] = c * akp - s * akq;
                row[q] = s * akp + c * akq;
            }
            let (row_p, row_q) = (a[p], a[q]);
            a[p] = std::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
            a[q] = std::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
            for row in &mut v {
                let (vp, vq) = (row[p], row[q]);
                row[p] = c * vp - s * vq;
                row[q] = s * vp + c * vq;
            }
        }
    }
    // v[col][row] was updated as rows of V: column k of V (the k-th eigenvector) is v[.][k].
    let vector = |k: usize| DVec3::new(v[0][k], v[1][k], v[2][k]);
    (
        [a[0][0], a[1][1], a[2][2]],
        [vector(0), vector(1), vector(2)],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jacobi_diagonalises_a_symmetric_matrix() {
        let m = DMat3::from_cols_array(&[4.0, 1.0, -2.0, 1.0, 3.0, 0.5, -2.0, 0.5, 1.0]);
        let (values, axes) = symmetric_eigen(m);
        for k in 0..3 {
            let residual = m * axes[k] - axes[k] * values[k];
            assert!(residual.length() < 1e-12, "{residual:?}");
            assert!((axes[k].length() - 1.0).abs() < 1e-12);
        }
        let trace: f64 = values.iter().sum();
        assert!((trace - 8.0).abs() < 1e-12);
    }

    #[test]
    fn a_lattice_particle_gets_the_ball_and_a_line_a_needle_at_the_limit() {
        let r = 0.01f32;
        let support = 4.0 * r;
        // A block of lattice, and a line of particles spaced 2r along x.
        let mut points = Vec::new();
        for z in -3..=3 {
            for y in -3..=3 {
                for x in -3..=3 {
                    points.push(Vec3::new(x as f32, y as f32, z as f32) * 2.0 * r);
                }
            }
        }
        let centre = points.len() / 2;
        let line_start = points.len();
        for x in -5..=5 {
            points.push(Vec3::new(x as f32 * 2.0 * r, 1.0, 0.0));
        }
        let region: Vec<u32> = (0..points.len())
            .map(|i| u32::from(i >= line_start))
            .collect();
        let grid = ParticleGrid::with_regions(&points, &region, support / 2.0);
        let k = kernels(&grid, &points, &region, support, r, 1.0);
        let ball = Kernel::isotropic(points[centre], support);
        for (a, b) in k[centre].shape.iter().zip(ball.shape) {
            assert!(
                (a - b).abs() < 1e-4 * b.abs().max(1.0 / (support * support)),
                "{a} {b}"
            );
        }
        // The line's middle particle: long along x, 4 times narrower across, volume kept.
        let mid = &k[line_start + 5];
        let long = 1.0 / mid.shape[0].sqrt();
        let across = 1.0 / mid.shape[1].sqrt();
        assert!((long / across - 4.0).abs() < 1e-3, "{long} {across}");
        let volume = long * across * across;
        assert!((volume / support.powi(3) - 1.0).abs() < 1e-3);
        assert!((mid.reach.x - long).abs() < 1e-6 && (mid.reach.y - across).abs() < 1e-6);
    }
}
