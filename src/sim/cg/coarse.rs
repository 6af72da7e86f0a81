//! The coarse level of a two-level preconditioner: z = D⁻¹r + P·S·Pᵀr.
//!
//! Block Jacobi (D⁻¹r) passes information one neighbour per CG iteration, so modes that span
//! the whole liquid (honey dragged along a ball, a block settling on a plate) take as many
//! iterations as the liquid is neighbours across, and the stiffer the liquid the more those
//! modes dominate. The coarse level corrects them at once: the particles are grouped into
//! aggregates (P sums a residual over each and hands an aggregate's correction to all its
//! members alike), the coarse operator is the Galerkin product PᵀAP (one 3×3 block per pair
//! of touching aggregates), and S approximately solves it.
//!
//! S is `SWEEPS` damped block-Jacobi sweeps from zero: a fixed polynomial in the coarse
//! operator, so the preconditioner stays linear and symmetric, as CG needs. With an odd
//! number of sweeps it is positive definite too: S = ω Σ_{k<s} (I − ωD_c⁻¹A_c)^k D_c⁻¹,
//! whose eigenvalues (in D_c's metric) are ω(1 + t + … + t^(s−1)) = ω(t^s − 1)/(t − 1) for
//! the eigenvalues t of I − ωD_c⁻¹A_c, positive for every real t when s is odd. So it takes
//! only D_c's blocks to be positive definite (each holds its members' masses), whatever the
//! damping and whatever the rest of A_c's rounding. (With an even number of sweeps, an
//! eigenvalue of D_c⁻¹A_c above 2/ω would make S indefinite.)
//!
//! Aggregates are runs of consecutive particles (the liquid is numbered block by block,
//! `Neighbourhoods::blocks`), so P needs no index per particle: only where each run starts.
//!
//! Measured on the honey drop's frames 2-13 (`examples/frame_profile.rs`), aggregates of
//! 2 × 2 × 2 cells of 4.5 r: CG iterations 1,527 → 874 with 3 sweeps (840 with 5, 825 with
//! 9, 1,156 with 1); aggregates of 64-200 consecutive particles in cell order, long thin
//! rows, only reached 1,311-1,420.

use glam::Vec3;
use rayon::prelude::*;

use super::preconditioner::{CompactInverse, PairOperator};
use super::Symmetric3;

/// Damped block-Jacobi sweeps of the coarse solve, and their damping. Odd (see the module
/// doc).
const SWEEPS: u32 = 3;
const DAMPING: f32 = 0.9;

/// Below this much work (elements read) a pass over the coarse rows runs on one thread:
/// starting a parallel region costs about 7 µs here, more than summing a few thousand
/// vectors. (The honey drop's 180 aggregates are swept serially; the restriction of the
/// fan's 64k particles into its 1,000 is not.)
const SERIAL_WORK: usize = 16_384;

/// `row(c)` for every coarse row c, reading about `work` elements in all: serially for
/// little work, in parallel for more (each row computed alike, so the same bits either way).
fn each_row(rows: usize, work: usize, row: impl Fn(usize) -> Vec3 + Sync) -> Vec<Vec3> {
    if work <= SERIAL_WORK {
        (0..rows).map(row).collect()
    } else {
        (0..rows).into_par_iter().map(&row).collect()
    }
}

pub struct CoarseLevel {
    /// Aggregate c holds the particles `starts[c]..starts[c + 1]`.
    starts: Vec<u32>,
    /// The inverse of each aggregate's diagonal block of PᵀAP.
    inverse_diagonal: Vec<Symmetric3>,
    /// Each aggregate's off-diagonal blocks: `neighbours[row_start[c]..row_start[c + 1]]`.
    row_start: Vec<u32>,
    neighbours: Vec<(u32, Symmetric3)>,
}

impl CoarseLevel {
    /// The Galerkin coarse level of `operator` over the aggregates `starts` (the runs'
    /// starts with the end as a last entry; every run must hold a particle), and the inverse
    /// of A's own diagonal blocks, from one pass over the pairs. A pair within one aggregate
    /// cancels from PᵀAP; a pair across two adds K to both their diagonal blocks and −K to
    /// the block between them.
    pub fn galerkin(starts: Vec<u32>, operator: &impl PairOperator) -> (Self, Vec<CompactInverse>) {
        let aggregates = starts.len() - 1;
        let aggregate_of: Vec<u32> = (0..aggregates as u32)
            .flat_map(|c| (starts[c as usize]..starts[c as usize + 1]).map(move |_| c))
            .collect();
        // A's own diagonal blocks, inverted, written by each aggregate into its members' run
        // (the identity until then).
        let n = *starts.last().unwrap_or(&0) as usize;
        let mut fine_inverse_diagonal =
            vec![CompactInverse::of_block(Symmetric3::scaled_identity(1.0)); n];
        let mut runs: Vec<&mut [CompactInverse]> = Vec::with_capacity(aggregates);
        let mut rest = fine_inverse_diagonal.as_mut_slice();
        for c in 0..aggregates {
            let (run, after) = rest.split_at_mut((starts[c + 1] - starts[c]) as usize);
            runs.push(run);
            rest = after;
        }
        // Each row's blocks, gathered through a slot per aggregate (reset after each row).
        let rows: Vec<(Symmetric3, Vec<(u32, Symmetric3)>)> = runs
            .into_par_iter()
            .enumerate()
            .map_init(
                || vec![u32::MAX; aggregates],
                |slot, (c, run)| {
                    let mut diagonal = Symmetric3::ZERO;
                    let mut off: Vec<(u32, Symmetric3)> = Vec::new();
                    for (fine, i) in run.iter_mut().zip(starts[c] as usize..) {
                        let own = operator.own_block(i);
                        diagonal += own;
                        let mut fine_diagonal = own;
                        operator.for_each_pair_block(i, |j, k| {
                            fine_diagonal += k;
                            let d = aggregate_of[j];
                            if d as usize == c {
                                return;
                            }
                            diagonal += k;
                            let s = &mut slot[d as usize];
                            if *s == u32::MAX {
                                *s = off.len() as u32;
                                off.push((d, Symmetric3::ZERO));
                            }
                            off[*s as usize].1 -= k;
                        });
                        *fine = CompactInverse::of_block(fine_diagonal);
                    }
                    for (d, _) in &off {
                        slot[*d as usize] = u32::MAX;
                    }
                    // In aggregate order: the sweeps then sum each row in a fixed order.
                    off.sort_unstable_by_key(|(d, _)| *d);
                    (diagonal.inverse(), off)
                },
            )
            .collect();
        drop(aggregate_of);
        let mut inverse_diagonal = Vec::with_capacity(aggregates);
        let mut row_start = Vec::with_capacity(aggregates + 1);
        row_start.push(0u32);
        let mut neighbours = Vec::with_capacity(rows.iter().map(|(_, off)| off.len()).sum());
        for (diagonal, off) in rows {
            inverse_diagonal.push(diagonal);
            neighbours.extend(off);
            row_start.push(neighbours.len() as u32);
        }
        let coarse = CoarseLevel {
            starts,
            inverse_diagonal,
            row_start,
            neighbours,
        };
        (coarse, fine_inverse_diagonal)
    }

    pub fn aggregates(&self) -> usize {
        self.inverse_diagonal.len()
    }

    /// The coarse correction for residual r: y = S·Pᵀr (one vector per aggregate), and
    /// r·P·y, its part of r·z.
    pub fn correction(&self, r: &[Vec3]) -> (Vec<Vec3>, f64) {
        let restrict = |c: usize| {
            r[self.starts[c] as usize..self.starts[c + 1] as usize]
                .iter()
                .fold(Vec3::ZERO, |s, v| s + *v)
        };
        let restricted = each_row(self.aggregates(), r.len(), restrict);
        let y = self.smooth(&restricted);
        let r_dot_py = restricted
            .iter()
            .zip(&y)
            .map(|(r, y)| r.dot(*y) as f64)
            .sum();
        (y, r_dot_py)
    }

    /// `SWEEPS` damped block-Jacobi sweeps on PᵀAP y = rc from y = 0.
    fn smooth(&self, rc: &[Vec3]) -> Vec<Vec3> {
        let first = |c: usize| DAMPING * (self.inverse_diagonal[c] * rc[c]);
        let mut y = each_row(self.aggregates(), self.aggregates(), first);
        for _ in 1..SWEEPS {
            // y_c + ω D_c⁻¹ (rc_c − (PᵀAP y)_c) = (1 − ω) y_c + ω D_c⁻¹ (rc_c − the
            // off-diagonal blocks' part).
            let sweep = |c: usize| {
                let off =
                    &self.neighbours[self.row_start[c] as usize..self.row_start[c + 1] as usize];
                let coupled = off
                    .iter()
                    .fold(Vec3::ZERO, |s, (d, k)| s + *k * y[*d as usize]);
                (1.0 - DAMPING) * y[c] + DAMPING * (self.inverse_diagonal[c] * (rc[c] - coupled))
            };
            y = each_row(self.aggregates(), self.neighbours.len(), sweep);
        }
        y
    }

    /// The aggregate particle `at` belongs to.
    pub fn aggregate_at(&self, at: usize) -> usize {
        self.starts.partition_point(|&s| s as usize <= at) - 1
    }

    /// The first particle after aggregate c.
    #[inline(always)]
    pub fn end_of(&self, c: usize) -> usize {
        self.starts[c + 1] as usize
    }
}
