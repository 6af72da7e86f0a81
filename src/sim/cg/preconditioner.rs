//! CG's preconditioner M⁻¹ for the implicit viscosity: block Jacobi (the inverse of A's 3×3
//! diagonal blocks) plus a coarse level's correction (`coarse.rs`), z = D⁻¹r + P·S·Pᵀr.
//!
//! The blocks are kept as the Cholesky factor L of D⁻¹ = L Lᵀ in bfloat16, 12 bytes per
//! particle instead of 24: the coarse level's ~9 bytes per particle then fit in the memory
//! the solve had (the fan's peak is in it, at 298 of its 300 bytes per particle). Rounded to
//! L̃, L̃ L̃ᵀ is still symmetric positive definite (L̃ keeps a positive diagonal), which is all
//! CG asks of a preconditioner, and its rounding, at most 2^-8 relative, does not change the
//! iterations a solve takes. The factor is scaled down by its rounding's bound, so that
//! L̃ L̃ᵀ ≼ D⁻¹ too: the viscosity's closing block-Jacobi step keeps its guarantee with these
//! blocks (before, it computed D⁻¹ again in f32, a second pass over the pairs per solve).

use glam::Vec3;
use rayon::prelude::*;

use super::coarse::CoarseLevel;
use super::{Symmetric3, CHUNK};
use crate::sim::bf16;

/// An operator made of a block per particle plus symmetric pair terms:
/// (A v)_i = B_i v_i + Σ_j K_ij (v_i − v_j), with K_ij = K_ji symmetric.
pub trait PairOperator: Sync {
    /// B_i.
    fn own_block(&self, i: usize) -> Symmetric3;
    /// Calls `f(j, K_ij)` for each of i's pairs.
    fn for_each_pair_block(&self, i: usize, f: impl FnMut(usize, Symmetric3));
}

/// A's diagonal block of particle i, B_i + Σ_j K_ij.
fn diagonal_block(operator: &impl PairOperator, i: usize) -> Symmetric3 {
    let mut diagonal = operator.own_block(i);
    operator.for_each_pair_block(i, |_, k| diagonal += k);
    diagonal
}

/// The inverse of a symmetric positive definite 3×3 block D as the lower Cholesky factor L
/// of it (D⁻¹ = L Lᵀ), entries (l00, l10, l11, l20, l21, l22) in bfloat16, scaled down by
/// its rounding's bound so that the rounded L̃ L̃ᵀ ≼ D⁻¹ (see `of_block`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompactInverse([u16; 6]);

impl CompactInverse {
    /// From the block D itself (not its inverse).
    ///
    /// Rounding L to L̃ = L (I + E) gives L̃ L̃ᵀ ≼ (1 + ‖E‖)² D⁻¹, and bfloat16 keeps each entry
    /// within 2^-8 of itself, so ‖E‖ ≤ ‖L⁻¹‖ ‖L̃ − L‖ ≤ δ = 2^-8 ‖L⁻¹‖_F ‖L‖_F. Stored as the
    /// rounding of L / (1 + δ), whose own rounding obeys the same bound, the factor gives
    /// L̃ L̃ᵀ ≼ D⁻¹: a Jacobi step with these blocks can never overshoot where one with the
    /// exact D⁻¹ would not (`Preconditioner::block_jacobi_step`). δ is 1-3% for the blocks of
    /// a liquid's interior, at most 2^-8·9·√κ(D) in all.
    pub fn of_block(block: Symmetric3) -> Self {
        let [xx, yy, zz, xy, xz, yz] = block.inverse().entries();
        // Cholesky of the inverse, each pivot kept positive: round-off could leave a nearly
        // singular block's last pivot at zero or below, and the factor must stay invertible.
        let pivot = |v: f32, scale: f32| v.max(scale * 1e-7).sqrt();
        let l00 = pivot(xx, xx.abs());
        let l10 = xy / l00;
        let l11 = pivot(yy - l10 * l10, yy.abs());
        let l20 = xz / l00;
        let l21 = (yz - l20 * l10) / l11;
        let l22 = pivot(zz - l20 * l20 - l21 * l21, zz.abs());
        // L⁻¹, lower triangular too.
        let (m00, m11, m22) = (1.0 / l00, 1.0 / l11, 1.0 / l22);
        let m10 = -l10 * m00 * m11;
        let m21 = -l21 * m11 * m22;
        let m20 = -(l20 * m00 + l21 * m10) * m22;
        let frobenius = |v: [f32; 6]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
        let factor = [l00, l10, l11, l20, l21, l22];
        let bound = frobenius(factor) * frobenius([m00, m10, m11, m20, m21, m22]) / 256.0;
        CompactInverse(factor.map(|l| bf16::round(l / (1.0 + bound))))
    }

    /// L Lᵀ r.
    #[inline(always)]
    pub fn apply(self, r: Vec3) -> Vec3 {
        let l = self.0.map(bf16::widen);
        let [l00, l10, l11, l20, l21, l22] = l;
        let t = transposed_times(l, r);
        Vec3::new(
            l00 * t.x,
            l10 * t.x + l11 * t.y,
            l20 * t.x + l21 * t.y + l22 * t.z,
        )
    }

    /// r·L Lᵀ r = |Lᵀ r|².
    #[inline(always)]
    pub fn energy(self, r: Vec3) -> f32 {
        transposed_times(self.0.map(bf16::widen), r).length_squared()
    }
}

/// Lᵀ r for the lower triangular L with entries (l00, l10, l11, l20, l21, l22).
#[inline(always)]
fn transposed_times([l00, l10, l11, l20, l21, l22]: [f32; 6], r: Vec3) -> Vec3 {
    Vec3::new(
        l00 * r.x + l10 * r.y + l20 * r.z,
        l11 * r.y + l21 * r.z,
        l22 * r.z,
    )
}

/// M⁻¹ = D⁻¹ + P·S·Pᵀ.
pub struct Preconditioner {
    pub(super) blocks: Vec<CompactInverse>,
    pub(super) coarse: Option<CoarseLevel>,
}

impl Preconditioner {
    /// Block Jacobi and a coarse level over the aggregates `starts` (the runs' starts, with
    /// the end as a last entry), built in one pass over the pairs.
    pub fn two_level(operator: &impl PairOperator, starts: Vec<u32>) -> Self {
        let (coarse, blocks) = CoarseLevel::galerkin(starts, operator);
        Preconditioner {
            blocks,
            coarse: Some(coarse),
        }
    }

    /// Block Jacobi alone, for the n particles of `operator`.
    pub fn block_jacobi(operator: &impl PairOperator, n: usize) -> Self {
        Preconditioner {
            blocks: (0..n)
                .into_par_iter()
                .map(|i| CompactInverse::of_block(diagonal_block(operator, i)))
                .collect(),
            coarse: None,
        }
    }

    /// x += D̃⁻¹ r with the stored blocks (D̃⁻¹ = L̃ L̃ᵀ ≼ D⁻¹, `CompactInverse::of_block`):
    /// one block-Jacobi step. For an operator A = (its masses) + (positive semi-definite pair
    /// and wall terms), 0 ≺ A ≺ 2D, so D̃⁻¹A has its eigenvalues in (0, 2) and the step's
    /// error map I − D̃⁻¹A shrinks every component in A's energy norm.
    pub fn block_jacobi_step(&self, x: &mut [Vec3], r: &[Vec3]) {
        x.par_iter_mut()
            .zip(self.blocks.par_iter().zip(r.par_iter()))
            .for_each(|(x, (block, r))| *x += block.apply(*r));
    }

    /// The coarse level's correction for residual r (per aggregate) and its part of r·z
    /// (nothing without a coarse level).
    pub(super) fn coarse_correction(&self, r: &[Vec3]) -> (Vec<Vec3>, f64) {
        self.coarse
            .as_ref()
            .map_or((Vec::new(), 0.0), |coarse| coarse.correction(r))
    }

    /// d ← z + β d, with z = M⁻¹ r formed here rather than stored (one vector fewer alive
    /// through the solve): D_i⁻¹ r_i plus the correction of i's aggregate.
    pub(super) fn update_direction(
        &self,
        d: &mut [Vec3],
        r: &[Vec3],
        correction: &[Vec3],
        beta: f32,
    ) {
        let blocks = &self.blocks;
        d.par_chunks_mut(CHUNK).enumerate().for_each(|(chunk, d)| {
            let at = chunk * CHUNK;
            match &self.coarse {
                None => {
                    for (k, d) in d.iter_mut().enumerate() {
                        *d = blocks[at + k].apply(r[at + k]) + beta * *d;
                    }
                }
                Some(coarse) => {
                    let mut c = coarse.aggregate_at(at);
                    for (k, d) in d.iter_mut().enumerate() {
                        let i = at + k;
                        while i >= coarse.end_of(c) {
                            c += 1;
                        }
                        *d = blocks[i].apply(r[i]) + correction[c] + beta * *d;
                    }
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Mat3;

    #[test]
    fn a_compact_inverse_applies_the_inverse_to_its_rounding() {
        // Well conditioned, and stiff along one direction (a particle with one stiff pair).
        let x = Vec3::new(0.6, -0.48, 0.64);
        let stiff = Mat3::from_cols(x * x.x, x * x.y, x * x.z) * 500.0 + Mat3::IDENTITY;
        // Each with the least share of the exact energy it keeps: the rounding's bound grows
        // with the block's condition (here 1 and 501 along x).
        let blocks = [
            (
                Mat3::from_cols(
                    Vec3::new(4.0, 1.0, -2.0),
                    Vec3::new(1.0, 3.0, 0.5),
                    Vec3::new(-2.0, 0.5, 5.0),
                ),
                0.95,
            ),
            (stiff, 0.75),
        ];
        for (block, least) in blocks {
            let compact = CompactInverse::of_block(Symmetric3::from_mat3(block));
            for r in [
                Vec3::X,
                Vec3::new(0.3, -1.7, 2.2),
                x,
                Vec3::new(0.8, 0.6, 0.0),
            ] {
                let exact = r.dot(block.inverse() * r);
                let kept = compact.energy(r);
                // Never above the exact block's energy (the Jacobi step's guarantee), and
                // not far below it: CG sees the exact blocks' preconditioner, scaled a little.
                assert!(kept <= exact && kept > least * exact, "{kept} for {exact}");
                assert!((r.dot(compact.apply(r)) - kept).abs() <= 1e-5 * kept);
            }
        }
    }
}
