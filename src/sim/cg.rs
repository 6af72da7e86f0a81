//! Matrix-free, block-Jacobi-preconditioned conjugate gradient on fields of 3-vectors.
//!
//! Deterministic whatever the thread count: every dot product is summed over fixed chunks of
//! `CHUNK` elements (each chunk in order, in f64), and the chunk sums are then added in order.
//! The operator must be symmetric positive definite and is supplied as a closure.

use glam::{Mat3, Vec3};
use rayon::prelude::*;

/// A symmetric 3×3 matrix as its six distinct entries: a block of the block-Jacobi
/// preconditioner, 24 bytes per particle instead of a full matrix's 36.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Symmetric3 {
    diagonal: Vec3,
    /// (xy, xz, yz)
    off: Vec3,
}

impl Symmetric3 {
    /// The symmetric part of `m` (its off-diagonal pairs averaged: an inverse computed in
    /// floating point can differ from symmetric by round-off).
    pub fn from_mat3(m: Mat3) -> Self {
        Symmetric3 {
            diagonal: Vec3::new(m.x_axis.x, m.y_axis.y, m.z_axis.z),
            off: Vec3::new(
                0.5 * (m.y_axis.x + m.x_axis.y),
                0.5 * (m.z_axis.x + m.x_axis.z),
                0.5 * (m.z_axis.y + m.y_axis.z),
            ),
        }
    }
}

impl std::ops::Mul<Vec3> for Symmetric3 {
    type Output = Vec3;
    #[inline(always)]
    fn mul(self, v: Vec3) -> Vec3 {
        let (d, o) = (self.diagonal, self.off);
        Vec3::new(
            d.x * v.x + o.x * v.y + o.y * v.z,
            o.x * v.x + d.y * v.y + o.z * v.z,
            o.y * v.x + o.z * v.y + d.z * v.z,
        )
    }
}

/// Fixed reduction chunk: independent of the thread count, so sums are bit-identical.
const CHUNK: usize = 2048;

/// How a solve ended.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CgOutcome {
    pub iterations: u32,
    /// Final residual norm over the target's scale (the initial residual unless given; 0 if
    /// the start was exact).
    pub relative_residual: f32,
}

/// Σ a_i·b_i, summed in f64 in a fixed order.
pub fn dot(a: &[Vec3], b: &[Vec3]) -> f64 {
    sum_of_terms(a, b, |u, v| u.dot(*v))
}

/// Σ term(a_i, b_i), summed in f64 by `chunked_sum`.
fn sum_of_terms<B: Sync>(a: &[Vec3], b: &[B], term: impl Fn(Vec3, &B) -> f32 + Sync) -> f64 {
    chunked_sum(a.len(), 0.0, |i| term(a[i], &b[i]) as f64)
}

/// Σ term(i) over `0..n`, the same bits whatever the thread count: each chunk of `CHUNK`
/// indices is summed in order, then the chunks in order. (Also the momentum totals'.)
pub fn chunked_sum<T>(n: usize, zero: T, term: impl Fn(usize) -> T + Sync) -> T
where
    T: Copy + Send + Sync + std::ops::Add<Output = T>,
{
    let partial: Vec<T> = (0..n.div_ceil(CHUNK))
        .into_par_iter()
        .map(|c| (c * CHUNK..((c + 1) * CHUNK).min(n)).fold(zero, |s, i| s + term(i)))
        .collect();
    partial.into_iter().fold(zero, |s, t| s + t)
}

/// Solves A x = b from the initial guess in `x` until ‖r‖ ≤ `tolerance`·`scale` (or ‖r‖ is at
/// f32 round-off of ‖b‖), at most `max_iterations` steps; `scale` defaults to ‖r₀‖, the
/// initial residual (a warm-started caller passes the residual of a cold start instead, so a
/// good guess saves iterations rather than tightening the target). `apply(v, out)` writes
/// A v into `out`; `inverse_diagonal` holds the inverse of A's (symmetric) 3×3 diagonal
/// blocks. Also returns the final residual b − A x (in b's memory).
pub fn solve(
    apply: impl Fn(&[Vec3], &mut [Vec3]),
    inverse_diagonal: &[Symmetric3],
    b: Vec<Vec3>,
    x: &mut [Vec3],
    tolerance: f32,
    scale: Option<f64>,
    max_iterations: u32,
) -> (CgOutcome, Vec<Vec3>) {
    // Below this the residual is f32 noise: iterating further cannot improve x.
    let floor = 1e-6 * dot(&b, &b).sqrt();
    let mut ax = vec![Vec3::ZERO; b.len()];
    apply(x, &mut ax);
    // The residual takes b's place (b is not needed again).
    let mut r = b;
    r.par_iter_mut().zip(&ax).for_each(|(r, a)| *r -= *a);
    let r0 = dot(&r, &r).sqrt();
    let target = tolerance as f64 * scale.unwrap_or(r0);
    if r0 <= floor {
        return (CgOutcome::default(), r);
    }
    // z = M⁻¹ r is never stored: it is formed where it is used (the r·z product and the
    // new direction), which keeps one vector fewer alive through the solve.
    let mut d: Vec<Vec3> = r
        .par_iter()
        .zip(inverse_diagonal.par_iter())
        .map(|(r, m)| *m * *r)
        .collect();
    let mut rz = sum_of_terms(&r, inverse_diagonal, |r, m| r.dot(*m * r));
    let mut ad = ax; // reuse the buffer
    let mut norm = r0;
    let mut iterations = 0;
    while iterations < max_iterations && norm > target && norm > floor {
        apply(&d, &mut ad);
        let dad = dot(&d, &ad);
        if dad <= 0.0 {
            break; // not positive definite along d (only possible through round-off)
        }
        let alpha = (rz / dad) as f32;
        let (rz_next, rr) = step_along(alpha, &d, &ad, inverse_diagonal, x, &mut r);
        let beta = (rz_next / rz) as f32;
        rz = rz_next;
        d.par_iter_mut()
            .zip(r.par_iter())
            .zip(inverse_diagonal.par_iter())
            .for_each(|((d, r), m)| *d = *m * *r + beta * *d);
        norm = rr.sqrt();
        iterations += 1;
    }
    let outcome = CgOutcome {
        iterations,
        relative_residual: (norm / scale.unwrap_or(r0)) as f32,
    };
    (outcome, r)
}

/// x += α d and r −= α A d, returning the new r·M⁻¹r and r·r: one sweep instead of four,
/// each a parallel region (about 7 µs to start on this two-core machine from within rayon's
/// pool, where the solver runs, a good part of a sweep over the honey drop's 9k particles).
/// Summed per `CHUNK` in order, as `dot` sums: the same bits.
fn step_along(
    alpha: f32,
    d: &[Vec3],
    ad: &[Vec3],
    inverse_diagonal: &[Symmetric3],
    x: &mut [Vec3],
    r: &mut [Vec3],
) -> (f64, f64) {
    let partial: Vec<(f64, f64)> = x
        .par_chunks_mut(CHUNK)
        .zip(r.par_chunks_mut(CHUNK))
        .enumerate()
        .map(|(c, (x, r))| {
            let at = c * CHUNK;
            let (mut rz, mut rr) = (0.0f64, 0.0f64);
            for (k, (x, r)) in x.iter_mut().zip(r.iter_mut()).enumerate() {
                *x += alpha * d[at + k];
                *r -= alpha * ad[at + k];
                rz += r.dot(inverse_diagonal[at + k] * *r) as f64;
                rr += r.dot(*r) as f64;
            }
            (rz, rr)
        })
        .collect();
    partial
        .into_iter()
        .fold((0.0, 0.0), |(a, b), (c, e)| (a + c, b + e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_symmetric_block_multiplies_as_its_matrix() {
        let m = Mat3::from_cols(
            Vec3::new(4.0, 1.0, -2.0),
            Vec3::new(1.0, 3.0, 0.5),
            Vec3::new(-2.0, 0.5, 5.0),
        );
        let v = Vec3::new(0.3, -1.7, 2.2);
        assert!((Symmetric3::from_mat3(m) * v - m * v).length() < 1e-6);
    }

    /// A 1D chain Laplacian plus identity, applied to each component: SPD and diagonally
    /// dominant, with a known solution.
    #[test]
    fn solves_a_chain_system() {
        let n = 5000;
        let apply = |v: &[Vec3], out: &mut [Vec3]| {
            for i in 0..n {
                let mut s = 3.0 * v[i];
                if i > 0 {
                    s -= v[i - 1];
                }
                if i + 1 < n {
                    s -= v[i + 1];
                }
                out[i] = s;
            }
        };
        let truth: Vec<Vec3> = (0..n)
            .map(|i| Vec3::new((i as f32 * 0.01).sin(), 1.0, (i % 7) as f32))
            .collect();
        let mut b = vec![Vec3::ZERO; n];
        apply(&truth, &mut b);
        let inv = vec![Symmetric3::from_mat3(Mat3::from_diagonal(Vec3::splat(1.0 / 3.0))); n];
        let mut x = vec![Vec3::ZERO; n];
        let (out, _) = solve(apply, &inv, b, &mut x, 1e-6, None, 200);
        assert!(out.iterations > 0 && out.relative_residual <= 1e-5);
        let err = x
            .iter()
            .zip(&truth)
            .map(|(a, b)| (*a - *b).length())
            .fold(0.0f32, f32::max);
        assert!(err < 3e-4, "max error {err}"); // f32 vectors
    }
}
