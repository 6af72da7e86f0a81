//! The projected Laplacian's pair weights −W'(r)/(r (r² + 0.01h²)) of a particle's whole
//! row of neighbours, for the couplings' build (`Couplings::build`), eight at a time where
//! the CPU has AVX2 (`sim::eight_lanes`).
//!
//! Each weight is one pair's own arithmetic, nothing is summed, so the AVX2 copy does each
//! lane's operations exactly as `CubicSpline::laplacian_weight` does them (the same roots,
//! divisions and rounding; its branches become selections) and gives the same bits: the
//! fan's frames 1-4 and the honey drop's 1-12 are byte-identical to the build before it.
//!
//! Called pair by pair from the reordering of the lists (`csr::Rows::pick_first`), the
//! weight was a function call per pair with a root, a division and three unpredictable
//! branches. Measured on a 30k honey block's 4 frames (`examples/honey_drop_bench.rs 34 34
//! 26 4`, a temporary timer around the build, alternating binaries): the couplings' builds
//! took 174/164 → 126/128 ms of the solves' 690/650. (Handing each weight to a closure as
//! it was computed, rather than a row of them, left a call per pair: no gain on the fan.)

use glam::Vec3;

use super::CubicSpline;
use crate::sim::eight_lanes::{in_avx2, LANES};
use crate::sim::neighbours::{with_indices, Row, Space};

/// The weights of the neighbours in `row` of particle i, in the row's order (0 or −0 beyond
/// the support), into `out` (cleared first).
#[inline(always)]
pub(super) fn pair_weights(
    space: &Space,
    kernel: &CubicSpline,
    x: &[Vec3],
    i: usize,
    row: Row,
    out: &mut Vec<f32>,
) {
    out.clear();
    #[cfg(target_arch = "x86_64")]
    if in_avx2(space) {
        out.resize(row.len().next_multiple_of(LANES), 0.0);
        // SAFETY: the CPU has AVX2 (`in_avx2`), and `out` holds whole blocks.
        unsafe { with_indices!(row, |js| avx2::pair_weights(kernel, x, i, js, out)) };
        out.truncate(row.len());
        return;
    }
    out.extend(
        row.into_iter()
            .map(|j| kernel.laplacian_weight(space.delta(x[i], x[j as usize]).length_squared())),
    );
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use glam::Vec3;

    use super::CubicSpline;
    use crate::sim::eight_lanes::avx2::{dot, for_blocks, offsets, scaled, splat, Indices};

    /// `super::pair_weights` (no periodic axes), eight lanes at a time into `out`, which
    /// holds the row's length rounded up to whole blocks.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) unsafe fn pair_weights<J: Indices>(
        kernel: &CubicSpline,
        x: &[Vec3],
        i: usize,
        js: &[J],
        out: &mut [f32],
    ) {
        let xi = x[i];
        let (xi, xs) = (splat(xi.x, xi.y, xi.z), x.as_ptr() as *const f32);
        assert!(out.len() >= js.len().next_multiple_of(8));
        let at_out = out.as_mut_ptr();
        for_blocks(js, x.len(), |start, j, _| {
            let d = offsets(xs, &xi, scaled::<3>(j));
            _mm256_storeu_ps(at_out.add(start), laplacian_weight(kernel, dot(&d, &d)));
        });
    }

    /// `CubicSpline::laplacian_weight` on eight squared distances, operation for operation.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn laplacian_weight(kernel: &CubicSpline, r2: __m256) -> __m256 {
        let h = _mm256_set1_ps(kernel.h);
        let (zero, one) = (_mm256_setzero_ps(), _mm256_set1_ps(1.0));
        let outside = _mm256_or_ps(
            _mm256_cmp_ps::<_CMP_LE_OQ>(r2, zero),
            _mm256_cmp_ps::<_CMP_GE_OQ>(r2, _mm256_set1_ps(kernel.h * kernel.h)),
        );
        let r = _mm256_sqrt_ps(r2);
        // `CubicSpline::derivative`.
        let q = _mm256_div_ps(r, h);
        let gs = _mm256_set1_ps(kernel.gradient_scale);
        let inner = _mm256_mul_ps(
            _mm256_mul_ps(gs, q),
            _mm256_sub_ps(_mm256_mul_ps(_mm256_set1_ps(3.0), q), _mm256_set1_ps(2.0)),
        );
        let one_minus_q = _mm256_sub_ps(one, q);
        let outer = _mm256_mul_ps(
            _mm256_mul_ps(_mm256_set1_ps(-kernel.gradient_scale), one_minus_q),
            one_minus_q,
        );
        let derivative = _mm256_blendv_ps(
            outer,
            inner,
            _mm256_cmp_ps::<_CMP_LE_OQ>(q, _mm256_set1_ps(0.5)),
        );
        let derivative = _mm256_blendv_ps(derivative, zero, _mm256_cmp_ps::<_CMP_GE_OQ>(q, one));
        let weight = _mm256_div_ps(
            _mm256_xor_ps(derivative, _mm256_set1_ps(-0.0)),
            _mm256_mul_ps(
                r,
                _mm256_add_ps(r2, _mm256_set1_ps(0.01 * kernel.h * kernel.h)),
            ),
        );
        _mm256_blendv_ps(weight, zero, outside)
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::sim::eight_lanes::test_data::{no_avx2, points, rows};

    /// The AVX2 copy against `CubicSpline::laplacian_weight` pair by pair, rows of both
    /// widths and every length: the same bits, within the support and beyond it.
    #[test]
    fn the_copies_agree_to_the_bit() {
        if no_avx2() {
            return;
        }
        let kernel = CubicSpline::new(0.01);
        let x = points();
        let (mut within, mut beyond) = (0, 0);
        for (wide, narrow) in rows() {
            for i in [0, 3, 40_001] {
                for row in [Row::Wide(&wide), Row::Narrow(&narrow)] {
                    let mut out = vec![0.0; row.len().next_multiple_of(LANES)];
                    // SAFETY: the CPU has AVX2.
                    unsafe {
                        with_indices!(row, |js| avx2::pair_weights(&kernel, &x, i, js, &mut out))
                    };
                    for (k, j) in row.into_iter().enumerate() {
                        let w = kernel.laplacian_weight((x[i] - x[j as usize]).length_squared());
                        assert_eq!(w.to_bits(), out[k].to_bits(), "pair {i}-{j}");
                        if w > 0.0 {
                            within += 1;
                        } else {
                            beyond += 1;
                        }
                    }
                }
            }
        }
        assert!(
            within > 100 && beyond > 100,
            "{within} within, {beyond} beyond"
        );
    }
}
