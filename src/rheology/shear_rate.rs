//! Each particle's shear rate γ̇ = √(2 D:D), from the velocity gradient its neighbours give.
//!
//! The SPH gradient Σ_j V (v_j − v_i) ⊗ ∇W_ij is exact for a linear field only inside a full,
//! even neighbourhood; at a free surface or in a thread it is biased, and a yield-stress liquid
//! would read a false shear there and flow where it should hold. So the sum is corrected
//! (Bonet & Lok 1999): with M = Σ_j (v_j − v_i) g_ijᵀ and A = Σ_j (x_j − x_i) g_ijᵀ over the
//! same weights g_ij, a linear field v = v_i + G (x − x_i) gives M = G A, so G = M A⁻¹ exactly,
//! whatever the neighbours' layout, as long as they span space. Where they do not (a particle
//! with neighbours in a plane or a line) A is singular; it is regularised by a small multiple
//! of its trace, which keeps the rate finite and leaves full neighbourhoods untouched.
//!
//! The weights are ∇ of (1 − d²/h²)³; any smooth radial weight does, the correction removes
//! its scale. Every neighbour adds to both sums (a known open implementation assigned instead
//! of adding, and so read only the last neighbour).

use glam::{Mat3, Vec3};
use rayon::prelude::*;

/// A singular A is regularised by this fraction of its trace over three: small enough to leave
/// a full neighbourhood's rate within 10⁻⁴ of exact, large enough to bound a lone pair's.
const REGULARISATION: f32 = 1e-4;

/// The velocity gradient G (∂v_a/∂x_b in row a, column b) at particle `i`, from `neighbours`
/// (indices into `x` and `v`, `i` itself skipped if present) within `support`.
pub fn velocity_gradient(
    i: usize,
    x: &[Vec3],
    v: &[Vec3],
    neighbours: &[u32],
    support: f32,
) -> Mat3 {
    let inv_h2 = 1.0 / (support * support);
    let (mut m, mut a) = (Mat3::ZERO, Mat3::ZERO);
    for &j in neighbours {
        let j = j as usize;
        if j == i {
            continue;
        }
        let dx = x[j] - x[i];
        let q = dx.length_squared() * inv_h2;
        if q >= 1.0 {
            continue;
        }
        // ∇_j of (1 − q)³ (towards j); its sign and scale cancel in M A⁻¹.
        let g = dx * (1.0 - q) * (1.0 - q);
        m += outer(v[j] - v[i], g);
        a += outer(dx, g);
    }
    let trace = a.x_axis.x + a.y_axis.y + a.z_axis.z;
    if trace <= 0.0 {
        return Mat3::ZERO;
    }
    let a = a + Mat3::from_diagonal(Vec3::splat(REGULARISATION * trace / 3.0));
    m * a.inverse()
}

/// γ̇ = √(2 D:D) with D = (G + Gᵀ)/2: 1 s⁻¹ for a simple shear v = (γ̇ y, 0, 0) of 1 s⁻¹, and
/// zero for any rigid motion.
pub fn shear_rate_of(gradient: Mat3) -> f32 {
    let d = 0.5 * (gradient + gradient.transpose());
    let dd = d.x_axis.length_squared() + d.y_axis.length_squared() + d.z_axis.length_squared();
    (2.0 * dd).sqrt()
}

/// Every particle's shear rate, `neighbours(i)` listing particle i's neighbours. Each
/// particle's figure depends on its own list only: the same at any thread count.
pub fn shear_rates<'a, F>(x: &[Vec3], v: &[Vec3], support: f32, neighbours: F) -> Vec<f32>
where
    F: Fn(usize) -> &'a [u32] + Sync,
{
    (0..x.len())
        .into_par_iter()
        .map(|i| shear_rate_of(velocity_gradient(i, x, v, neighbours(i), support)))
        .collect()
}

/// a bᵀ.
fn outer(a: Vec3, b: Vec3) -> Mat3 {
    Mat3::from_cols(a * b.x, a * b.y, a * b.z)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A jittered block of particles 2r apart, and every particle's neighbours within h
    /// (brute force: the test's few hundred particles).
    fn block(n: i32, r: f32, jitter: f32) -> (Vec<Vec3>, Vec<Vec<u32>>) {
        let mut seed = 12345u32;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32 - 0.5
        };
        let mut x = Vec::new();
        for i in 0..n {
            for j in 0..n {
                for k in 0..n {
                    let lattice = Vec3::new(i as f32, j as f32, k as f32) * 2.0 * r;
                    let shake = Vec3::new(random(), random(), random()) * jitter * r;
                    x.push(lattice + shake);
                }
            }
        }
        let h = 4.0 * r;
        let lists = (0..x.len())
            .map(|i| {
                (0..x.len() as u32)
                    .filter(|&j| j as usize != i && x[j as usize].distance(x[i]) < h)
                    .collect()
            })
            .collect();
        (x, lists)
    }

    fn rates(x: &[Vec3], v: &[Vec3], lists: &[Vec<u32>], h: f32) -> Vec<f32> {
        shear_rates(x, v, h, |i| &lists[i])
    }

    #[test]
    fn a_linear_shear_reads_its_rate_everywhere_surface_included() {
        let r = 1e-3;
        let (x, lists) = block(7, r, 0.6);
        let rate = 3.5;
        let v: Vec<Vec3> = x.iter().map(|p| Vec3::new(rate * p.y, 0.0, 0.0)).collect();
        for (i, g) in rates(&x, &v, &lists, 4.0 * r).into_iter().enumerate() {
            // The corner particles have only a few neighbours, on one side: the correction
            // makes them exact too.
            assert!(
                (g - rate).abs() < 1e-3 * rate,
                "particle {i}: {g} s⁻¹, not {rate}"
            );
        }
    }

    #[test]
    fn rigid_motion_has_no_shear() {
        let r = 1e-3;
        let (x, lists) = block(6, r, 0.6);
        let omega = Vec3::new(0.3, -1.2, 2.0);
        let v: Vec<Vec3> = x
            .iter()
            .map(|p| Vec3::new(0.5, 0.1, -0.2) + omega.cross(*p))
            .collect();
        for g in rates(&x, &v, &lists, 4.0 * r) {
            assert!(g < 1e-3, "{g}");
        }
    }

    #[test]
    fn a_general_linear_field_gives_its_strain_rate_norm() {
        let r = 1e-3;
        let (x, lists) = block(6, r, 0.5);
        let g_true = Mat3::from_cols(
            Vec3::new(1.0, 0.5, -0.3),
            Vec3::new(2.0, -0.4, 0.1),
            Vec3::new(0.0, 0.7, -0.6),
        );
        let v: Vec<Vec3> = x.iter().map(|p| g_true * *p).collect();
        let expected = shear_rate_of(g_true);
        for g in rates(&x, &v, &lists, 4.0 * r) {
            assert!((g - expected).abs() < 1e-3 * expected, "{g} vs {expected}");
        }
    }

    #[test]
    fn every_neighbour_counts_not_only_the_last() {
        // The last-listed neighbour sits level with the particle, so moves with it in this
        // shear: an estimate that kept only the last neighbour would read no shear at all.
        let r = 1e-3;
        let (x, mut lists) = block(5, r, 0.0);
        let centre = 62; // (2, 2, 2) in a 5³ block
        let rate = 2.0;
        let v: Vec<Vec3> = x.iter().map(|p| Vec3::new(rate * p.y, 0.0, 0.0)).collect();
        let same_y = lists[centre]
            .iter()
            .copied()
            .find(|&j| (x[j as usize].y - x[centre].y).abs() < 1e-9)
            .unwrap();
        lists[centre].retain(|&j| j != same_y);
        lists[centre].push(same_y);
        let g = rates(&x, &v, &lists, 4.0 * r)[centre];
        assert!((g - rate).abs() < 0.1 * rate, "{g}");
    }

    #[test]
    fn a_lone_pair_or_a_lone_particle_stays_finite() {
        let x = vec![
            Vec3::ZERO,
            Vec3::new(2e-3, 0.0, 0.0),
            Vec3::new(1.0, 1.0, 1.0),
        ];
        let v = vec![Vec3::ZERO, Vec3::new(0.0, 1.0, 0.0), Vec3::ZERO];
        let lists = vec![vec![1], vec![0], vec![]];
        let g = rates(&x, &v, &lists, 4e-3);
        assert!(g.iter().all(|g| g.is_finite()), "{g:?}");
        assert_eq!(g[2], 0.0);
    }

    #[test]
    fn the_same_bits_at_any_thread_count() {
        let r = 1e-3;
        let (x, lists) = block(6, r, 0.6);
        let v: Vec<Vec3> = x
            .iter()
            .map(|p| Vec3::new(p.y * p.z, p.x, -p.y) * 1e3)
            .collect();
        let many = rates(&x, &v, &lists, 4.0 * r);
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap()
            .install(|| rates(&x, &v, &lists, 4.0 * r));
        assert_eq!(
            many.iter().map(|g| g.to_bits()).collect::<Vec<_>>(),
            one.iter().map(|g| g.to_bits()).collect::<Vec<_>>()
        );
    }
}
