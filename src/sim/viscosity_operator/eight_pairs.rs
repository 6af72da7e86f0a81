//! The viscosity operator's pair sum, Σ_j k_ij x_ij (x_ij·(v_i − v_j)), eight pairs at a time
//! (`sim::eight_lanes`): CG's hot loop. The padded lanes of a row's last block have strength
//! 0, so their terms are exact zeros.

use glam::Vec3;

use super::Strength;
use crate::sim::eight_lanes::{add_along, blocks, in_avx2, vector_total, LANES};
use crate::sim::neighbours::{with_indices, Row, Space};

/// Σ_j k_ij x_ij (x_ij·(v_i − v_j)) over the first `strength.len()` neighbours in `row`.
#[inline(always)]
pub(super) fn pair_sum(
    space: &Space,
    x: &[Vec3],
    v: &[Vec3],
    i: usize,
    row: Row,
    strength: &[Strength],
) -> Vec3 {
    let row = row.head(strength.len());
    #[cfg(target_arch = "x86_64")]
    if in_avx2(space) {
        // SAFETY: the CPU has AVX2 (`in_avx2`).
        return unsafe { with_indices!(row, |js| avx2::pair_sum(x, v, i, js, strength)) };
    }
    with_indices!(row, |js| in_arrays(space, x, v, i, js, strength))
}

/// The lanes as arrays (any CPU, and periodic domains).
fn in_arrays<J: Copy + Into<u32>>(
    space: &Space,
    x: &[Vec3],
    v: &[Vec3],
    i: usize,
    js: &[J],
    strength: &[Strength],
) -> Vec3 {
    let (xi, vi) = (x[i], v[i]);
    let mut sums = [[0.0f32; LANES]; 3];
    for (start, j, real) in blocks(js) {
        for lane in 0..LANES {
            let k = if lane < real {
                strength[start + lane].get()
            } else {
                0.0
            };
            let d = space.delta(xi, x[j[lane]]);
            let w = vi - v[j[lane]];
            let s = k * (d.x * w.x + d.y * w.y + d.z * w.z);
            add_along(&mut sums, lane, d.to_array(), s);
        }
    }
    Vec3::from_array(vector_total(sums))
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use glam::Vec3;

    use super::{Strength, LANES};
    use crate::sim::eight_lanes::avx2::{
        add_along, dot, for_blocks, offsets, scaled, splat, vector_total, Indices,
    };

    /// `in_arrays` (no periodic axes), one vector per lane array.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) unsafe fn pair_sum<J: Indices>(
        x: &[Vec3],
        v: &[Vec3],
        i: usize,
        js: &[J],
        strength: &[Strength],
    ) -> Vec3 {
        let (xi, vi) = (x[i], v[i]);
        let (xi, vi) = (splat(xi.x, xi.y, xi.z), splat(vi.x, vi.y, vi.z));
        let (xs, vs) = (x.as_ptr() as *const f32, v.as_ptr() as *const f32);
        let mut sums = [_mm256_setzero_ps(); 3];
        for_blocks(js, x.len().min(v.len()), |start, j, _| {
            let k = if start + LANES <= strength.len() {
                strengths(strength.as_ptr().add(start))
            } else {
                let mut k = [Strength(0); LANES];
                k[..strength.len() - start].copy_from_slice(&strength[start..]);
                strengths(k.as_ptr())
            };
            let at = scaled::<3>(j);
            let (d, w) = (offsets(xs, &xi, at), offsets(vs, &vi, at));
            add_along(&mut sums, &d, _mm256_mul_ps(k, dot(&d, &w)));
        });
        Vec3::from_array(vector_total(&sums))
    }

    /// Eight strengths from `at`, widened to f32 (`bf16::widen`).
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn strengths(at: *const Strength) -> __m256 {
        let bits = _mm256_cvtepu16_epi32(_mm_loadu_si128(at as *const __m128i));
        _mm256_castsi256_ps(_mm256_slli_epi32::<16>(bits))
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use crate::sim::eight_lanes::test_data::{no_avx2, open_space, points, rows};

    /// Both copies, rows of both widths and every length: the same bits.
    #[test]
    fn the_copies_agree_to_the_bit() {
        if no_avx2() {
            return;
        }
        let space = open_space();
        let x = points();
        let v: Vec<Vec3> = x
            .iter()
            .map(|p| Vec3::new(p.y, -p.z, 3.0 * p.x) * 50.0)
            .collect();
        let bits = |s: Vec3| s.to_array().map(f32::to_bits);
        for (wide, narrow) in rows() {
            let strength: Vec<Strength> = (0..wide.len())
                .map(|k| Strength::new(1e-3 * (k + 1) as f32))
                .collect();
            for i in [0, 3, 40_001] {
                // SAFETY (both): the CPU has AVX2.
                let (sum, sum_avx2) = (in_arrays(&space, &x, &v, i, &wide, &strength), unsafe {
                    avx2::pair_sum(&x, &v, i, &wide, &strength)
                });
                assert_eq!(bits(sum), bits(sum_avx2), "row of {}", wide.len());
                assert!(wide.is_empty() || sum != Vec3::ZERO);
                let (sum, sum_avx2) = (in_arrays(&space, &x, &v, i, &narrow, &strength), unsafe {
                    avx2::pair_sum(&x, &v, i, &narrow, &strength)
                });
                assert_eq!(bits(sum), bits(sum_avx2), "narrow row of {}", narrow.len());
            }
        }
    }
}
