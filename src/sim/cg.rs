//! Matrix-free preconditioned conjugate gradient on fields of 3-vectors. The preconditioner
//! (`preconditioner.rs`) is block Jacobi plus a coarse level over aggregates of particles
//! (`coarse.rs`).
//!
//! Deterministic whatever the thread count: every dot product is summed over fixed chunks of
//! `CHUNK` elements (each chunk in order, in f64), and the chunk sums are then added in order.
//! The operator must be symmetric positive definite and is supplied as a closure.

use glam::Vec3;
use rayon::prelude::*;

mod coarse;
mod preconditioner;
mod symmetric3;
use preconditioner::CompactInverse;
pub use preconditioner::{PairOperator, Preconditioner};
pub use symmetric3::Symmetric3;

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
/// A v into `out`. Also returns the final residual b − A x (in b's memory).
pub fn solve(
    apply: impl Fn(&[Vec3], &mut [Vec3]),
    preconditioner: &Preconditioner,
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
    let blocks = &preconditioner.blocks;
    let (correction, r_dot_coarse) = preconditioner.coarse_correction(&r);
    let mut d = vec![Vec3::ZERO; r.len()];
    preconditioner.update_direction(&mut d, &r, &correction, 0.0);
    let mut rz = sum_of_terms(&r, blocks, |r, m| m.energy(r)) + r_dot_coarse;
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
        let (r_dot_diagonal, rr) = step_along(alpha, &d, &ad, blocks, x, &mut r);
        let (correction, r_dot_coarse) = preconditioner.coarse_correction(&r);
        let rz_next = r_dot_diagonal + r_dot_coarse;
        let beta = (rz_next / rz) as f32;
        rz = rz_next;
        preconditioner.update_direction(&mut d, &r, &correction, beta);
        norm = rr.sqrt();
        iterations += 1;
    }
    let outcome = CgOutcome {
        iterations,
        relative_residual: (norm / scale.unwrap_or(r0)) as f32,
    };
    (outcome, r)
}

/// x += α d and r −= α A d, returning the new r·D⁻¹r and r·r: one sweep instead of four,
/// each a parallel region (about 7 µs to start on this two-core machine from within rayon's
/// pool, where the solver runs, a good part of a sweep over the honey drop's 9k particles).
/// Summed per `CHUNK` in order, as `dot` sums: the same bits.
fn step_along(
    alpha: f32,
    d: &[Vec3],
    ad: &[Vec3],
    blocks: &[CompactInverse],
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
                rz += blocks[at + k].energy(*r) as f64;
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

    /// A chain of n particles, each coupled to the next by the identity block and held by
    /// `own` times the identity: (A v)_i = own·v_i + Σ_j (v_i − v_j). Symmetric positive
    /// definite; the smaller `own`, the stiffer (a long viscous filament).
    struct Chain {
        n: usize,
        own: f32,
    }

    impl Chain {
        fn apply(&self, v: &[Vec3], out: &mut [Vec3]) {
            for (i, out) in out.iter_mut().enumerate() {
                let mut s = self.own * v[i];
                self.for_each_pair_block(i, |j, _| s += v[i] - v[j]);
                *out = s;
            }
        }

        /// A right side with a known solution, and that solution.
        fn problem(&self) -> (Vec<Vec3>, Vec<Vec3>) {
            let truth: Vec<Vec3> = (0..self.n)
                .map(|i| Vec3::new((i as f32 * 0.01).sin(), 1.0, (i % 7) as f32))
                .collect();
            let mut b = vec![Vec3::ZERO; self.n];
            self.apply(&truth, &mut b);
            (b, truth)
        }

        /// Solves the problem; returns the iterations and the largest error.
        fn solve(&self, preconditioner: &Preconditioner) -> (u32, f32) {
            let (b, truth) = self.problem();
            let mut x = vec![Vec3::ZERO; self.n];
            let apply = |v: &[Vec3], out: &mut [Vec3]| self.apply(v, out);
            let (out, _) = solve(apply, preconditioner, b, &mut x, 1e-6, None, 5000);
            assert!(out.iterations > 0 && out.relative_residual <= 1e-5);
            let error = x
                .iter()
                .zip(&truth)
                .map(|(a, b)| (*a - *b).length())
                .fold(0.0f32, f32::max);
            (out.iterations, error)
        }
    }

    impl PairOperator for Chain {
        fn own_block(&self, _: usize) -> Symmetric3 {
            Symmetric3::scaled_identity(self.own)
        }

        fn for_each_pair_block(&self, i: usize, mut f: impl FnMut(usize, Symmetric3)) {
            let coupling = Symmetric3::scaled_identity(1.0);
            if i > 0 {
                f(i - 1, coupling);
            }
            if i + 1 < self.n {
                f(i + 1, coupling);
            }
        }
    }

    /// Runs of `size` consecutive particles, as aggregates.
    fn runs(n: usize, size: usize) -> Vec<u32> {
        let mut starts: Vec<u32> = (0..n).step_by(size).map(|s| s as u32).collect();
        starts.push(n as u32);
        starts
    }

    /// M⁻¹ r, as CG forms it.
    fn precondition(preconditioner: &Preconditioner, r: &[Vec3]) -> Vec<Vec3> {
        let (correction, _) = preconditioner.coarse_correction(r);
        let mut z = vec![Vec3::ZERO; r.len()];
        preconditioner.update_direction(&mut z, r, &correction, 0.0);
        z
    }

    #[test]
    fn solves_a_chain_system() {
        let chain = Chain { n: 5000, own: 1.0 };
        let (_, error) = chain.solve(&Preconditioner::block_jacobi(&chain, chain.n));
        assert!(error < 3e-4, "max error {error}"); // f32 vectors
    }

    /// On a stiff chain block Jacobi crawls, a neighbour per iteration; the coarse level
    /// carries the correction along the whole chain at once.
    #[test]
    fn a_coarse_level_solves_a_stiff_chain_in_a_fraction_of_the_iterations() {
        let chain = Chain { n: 3000, own: 1e-4 };
        let (alone, alone_error) = chain.solve(&Preconditioner::block_jacobi(&chain, chain.n));
        let two_level = Preconditioner::two_level(&chain, runs(chain.n, 40));
        let (with_coarse, coarse_error) = chain.solve(&two_level);
        assert!(
            with_coarse * 3 < alone,
            "{with_coarse} iterations with the coarse level, {alone} without"
        );
        // Both to the accuracy the tolerance gives on a system this stiff.
        assert!(
            alone_error < 0.05 && coarse_error < 0.05,
            "{alone_error}, {coarse_error}"
        );
    }

    /// CG needs M⁻¹ symmetric and positive definite: a·M⁻¹b = b·M⁻¹a and a·M⁻¹a > 0, for
    /// uneven aggregates too (one of a single particle).
    #[test]
    fn the_two_level_preconditioner_is_symmetric_positive_definite() {
        let chain = Chain { n: 500, own: 1e-2 };
        let mut starts = runs(chain.n, 37);
        starts.insert(1, 1);
        let preconditioner = Preconditioner::two_level(&chain, starts);
        let field = |seed: f32| -> Vec<Vec3> {
            (0..chain.n)
                .map(|i| {
                    let t = i as f32 * 0.37 + seed;
                    Vec3::new(t.sin(), (1.3 * t).cos(), (0.7 * t + 1.0).sin())
                })
                .collect()
        };
        let (a, b) = (field(0.0), field(2.1));
        let (ma, mb) = (
            precondition(&preconditioner, &a),
            precondition(&preconditioner, &b),
        );
        let (a_mb, b_ma) = (dot(&a, &mb), dot(&b, &ma));
        assert!(
            (a_mb - b_ma).abs() <= 1e-5 * a_mb.abs().max(b_ma.abs()),
            "{a_mb} vs {b_ma}"
        );
        assert!(dot(&a, &ma) > 0.0 && dot(&b, &mb) > 0.0);
    }
}
