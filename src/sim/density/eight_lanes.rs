//! The density passes' pair loops eight neighbours at a time (`sim::eight_lanes`): a
//! particle's density and its slope's square (`density_sums`), and how far its pairs push it
//! (`pair_push`). The padded lanes of a row's last block stand beyond the kernel's support
//! (`density_sums`) or have no step (`pair_push`), so they add exact zeros.

use glam::Vec3A;

use crate::sim::eight_lanes::{add_along, add_lanes, blocks, in_avx2, vector_total, LANES};
use crate::sim::kernels::DensityKernel;
use crate::sim::neighbours::{with_indices, Row, Space};

/// Σ w(d) and Σ |w'(d)|² over the particles `row` lists among `others`, seen from `xi`: a
/// particle's density and its slope's square, from squared distances.
#[inline(always)]
pub(super) fn density_sums(
    space: &Space,
    w: &DensityKernel,
    xi: Vec3A,
    others: &[Vec3A],
    row: Row,
) -> (f32, f32) {
    #[cfg(target_arch = "x86_64")]
    if in_avx2(space) {
        // SAFETY: the CPU has AVX2 (`in_avx2`); the lanes check their indices themselves.
        return unsafe { with_indices!(row, |js| avx2::density_sums(w, xi, others, js)) };
    }
    with_indices!(row, |js| density_sums_in_arrays(space, w, xi, others, js))
}

/// Σ_j (s_i + s_j)·|w'(d_ij)|/d_ij · x_ij over particle i's neighbours in `row` among
/// `liquid`: how far its pairs push i, with s the Newton steps.
#[inline(always)]
pub(super) fn pair_push(
    space: &Space,
    w: &DensityKernel,
    i: usize,
    liquid: &[Vec3A],
    row: Row,
    step: &[f32],
) -> Vec3A {
    #[cfg(target_arch = "x86_64")]
    if in_avx2(space) {
        // SAFETY: as in `density_sums`.
        return unsafe { with_indices!(row, |js| avx2::pair_push(w, i, liquid, js, step)) };
    }
    with_indices!(row, |js| pair_push_in_arrays(space, w, i, liquid, js, step))
}

/// `density_sums` with the lanes as arrays.
fn density_sums_in_arrays<J: Copy + Into<u32>>(
    space: &Space,
    w: &DensityKernel,
    xi: Vec3A,
    others: &[Vec3A],
    js: &[J],
) -> (f32, f32) {
    let (mut rho, mut slope2) = ([0.0f32; LANES], [0.0f32; LANES]);
    for (_, j, real) in blocks(js) {
        for lane in 0..LANES {
            let d2 = if lane < real {
                squared_length(space.delta_aligned(xi, others[j[lane]]))
            } else {
                w.beyond_sq()
            };
            let (weight, slope) = w.weight_and_slope_sq(d2);
            rho[lane] += weight;
            slope2[lane] += slope * slope * d2;
        }
    }
    (add_lanes(rho), add_lanes(slope2))
}

/// `pair_push` with the lanes as arrays.
fn pair_push_in_arrays<J: Copy + Into<u32>>(
    space: &Space,
    w: &DensityKernel,
    i: usize,
    liquid: &[Vec3A],
    js: &[J],
    step: &[f32],
) -> Vec3A {
    let xi = liquid[i];
    let mut sums = [[0.0f32; LANES]; 3];
    for (_, j, real) in blocks(js) {
        let s: [f32; LANES] = std::array::from_fn(|lane| {
            if lane < real {
                step[i] + step[j[lane]]
            } else {
                0.0
            }
        });
        // Where compression is sparse (a splash, an impact's front), most pairs have no step
        // on either side.
        if s == [0.0; LANES] {
            continue;
        }
        for lane in 0..LANES {
            let d = space.delta_aligned(xi, liquid[j[lane]]);
            let (_, slope) = w.weight_and_slope_sq(squared_length(d));
            add_along(&mut sums, lane, d.to_array(), s[lane] * slope);
        }
    }
    Vec3A::from_array(vector_total(sums))
}

/// |d|², added up as the AVX2 copy does (x² + y², then z²).
#[inline(always)]
fn squared_length(d: Vec3A) -> f32 {
    d.x * d.x + d.y * d.y + d.z * d.z
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use glam::Vec3A;

    use crate::sim::eight_lanes::avx2::{
        add_along, dot, for_blocks, gather, offsets, scaled, splat, total, vector_total, Indices,
    };
    use crate::sim::kernels::DensityKernel;

    /// `DensityKernel::weight_and_slope_sq` on eight squared distances.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn weight_and_slope(w: &DensityKernel, d2: __m256) -> (__m256, __m256) {
        let q = _mm256_max_ps(
            _mm256_sub_ps(
                _mm256_set1_ps(1.0),
                _mm256_mul_ps(d2, _mm256_set1_ps(w.inv_support2)),
            ),
            _mm256_setzero_ps(),
        );
        let q2 = _mm256_mul_ps(q, q);
        (
            _mm256_mul_ps(q2, q),
            _mm256_mul_ps(q2, _mm256_set1_ps(6.0 * w.inv_support2)),
        )
    }

    /// `super::density_sums_in_arrays`, one vector per lane array.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) unsafe fn density_sums<J: Indices>(
        w: &DensityKernel,
        xi: Vec3A,
        others: &[Vec3A],
        js: &[J],
    ) -> (f32, f32) {
        let (points, xi) = (others.as_ptr() as *const f32, splat(xi.x, xi.y, xi.z));
        let beyond = _mm256_set1_ps(w.beyond_sq());
        let (mut rho, mut slope2) = (_mm256_setzero_ps(), _mm256_setzero_ps());
        for_blocks(js, others.len(), |_, j, real| {
            let d = offsets(points, &xi, scaled::<4>(j));
            let d2 = _mm256_blendv_ps(beyond, dot(&d, &d), _mm256_castsi256_ps(real));
            let (weight, slope) = weight_and_slope(w, d2);
            rho = _mm256_add_ps(rho, weight);
            slope2 = _mm256_add_ps(slope2, _mm256_mul_ps(_mm256_mul_ps(slope, slope), d2));
        });
        (total(rho), total(slope2))
    }

    /// `super::pair_push_in_arrays`, one vector per lane array.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) unsafe fn pair_push<J: Indices>(
        w: &DensityKernel,
        i: usize,
        liquid: &[Vec3A],
        js: &[J],
        step: &[f32],
    ) -> Vec3A {
        let xi = liquid[i];
        let (points, xi) = (liquid.as_ptr() as *const f32, splat(xi.x, xi.y, xi.z));
        let step_i = _mm256_set1_ps(step[i]);
        let mut sums = [_mm256_setzero_ps(); 3];
        for_blocks(js, liquid.len().min(step.len()), |_, j, real| {
            let s = _mm256_and_ps(
                _mm256_add_ps(step_i, gather(step.as_ptr(), 0, j)),
                _mm256_castsi256_ps(real),
            );
            // As in the arrays: a block with no step on either side adds nothing.
            if _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_NEQ_UQ>(s, _mm256_setzero_ps())) == 0 {
                return;
            }
            let d = offsets(points, &xi, scaled::<4>(j));
            let (_, slope) = weight_and_slope(w, dot(&d, &d));
            add_along(&mut sums, &d, _mm256_mul_ps(s, slope));
        });
        Vec3A::from_array(vector_total(&sums))
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use glam::Vec3A;

    use super::*;
    use crate::sim::eight_lanes::test_data::{no_avx2, open_space, points, rows};

    /// Both copies of both loops, rows of both widths and every length (steps zero over a
    /// third of the points, so whole blocks are skipped too): the same bits.
    #[test]
    fn the_copies_agree_to_the_bit() {
        if no_avx2() {
            return;
        }
        let space = open_space();
        let w = DensityKernel::new(0.0025);
        let x: Vec<Vec3A> = points().into_iter().map(Vec3A::from).collect();
        let step: Vec<f32> = (0..x.len())
            .map(|i| {
                if i % 3 == 0 {
                    0.0
                } else {
                    1e-4 * (i % 7) as f32
                }
            })
            .collect();
        let bits = |(a, b): (f32, f32)| (a.to_bits(), b.to_bits());
        let vector_bits = |v: Vec3A| v.to_array().map(f32::to_bits);
        let mut compared = 0;
        for (wide, narrow) in rows() {
            for i in [0, 3, 40_001] {
                // SAFETY (all four): the CPU has AVX2.
                let (sums, sums_avx2) = (
                    density_sums_in_arrays(&space, &w, x[i], &x, &wide),
                    unsafe { avx2::density_sums(&w, x[i], &x, &wide) },
                );
                assert_eq!(bits(sums), bits(sums_avx2), "row of {}", wide.len());
                let (sums, sums_avx2) = (
                    density_sums_in_arrays(&space, &w, x[i], &x, &narrow),
                    unsafe { avx2::density_sums(&w, x[i], &x, &narrow) },
                );
                assert_eq!(
                    bits(sums),
                    bits(sums_avx2),
                    "narrow row of {}",
                    narrow.len()
                );
                let push = pair_push_in_arrays(&space, &w, i, &x, &wide, &step);
                let push_avx2 = unsafe { avx2::pair_push(&w, i, &x, &wide, &step) };
                assert_eq!(vector_bits(push), vector_bits(push_avx2));
                let push = pair_push_in_arrays(&space, &w, i, &x, &narrow, &step);
                let push_avx2 = unsafe { avx2::pair_push(&w, i, &x, &narrow, &step) };
                assert_eq!(vector_bits(push), vector_bits(push_avx2));
                compared += (sums.0 > 0.0 && push != Vec3A::ZERO) as u32;
            }
        }
        // Not all zeros compared: most rows have neighbours within the kernel.
        assert!(compared > 60, "{compared} rows with neighbours in reach");
    }
}
