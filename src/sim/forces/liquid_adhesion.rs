//! The liquid–liquid adhesion on one particle, Σ_j f(|x_j − x_i|) (x_j − x_i)/|x_j − x_i|,
//! eight neighbours at a time (`sim::eight_lanes`).
//!
//! Each pair's term is computed as `AdhesionFunction::eval` computes it, pair for pair: the
//! AVX2 copy finds each lane's segment of the piecewise-linear function by comparisons
//! instead of a binary search, and does the same subtraction, division and interpolation.
//! It runs when every liquid pair shares one function (one liquid, or several alike) and no
//! axis is periodic; otherwise the lanes are arrays, each pair evaluating its own materials'
//! function. A pair at distance 0, or whose function is 0 there, adds an exact zero.
//!
//! Against one neighbour at a time (a binary search per pair, alternating binaries, two
//! rounds): the forces' phase of the fan's frames 2-5 (`examples/frame_profile.rs fan 4`)
//! 0.547/0.534 → 0.144/0.148 s, of the honey drop's 2-13 0.124/0.123 → 0.035/0.034 s; a
//! 30k honey block's median frame (`examples/honey_drop_bench.rs 34 34 26 6`, frames 3-7)
//! 0.73/0.73 → 0.69/0.70 s.

use glam::Vec3;

use crate::scene::AdhesionFunction;
use crate::sim::eight_lanes::{add_along, blocks, in_avx2, vector_total, LANES};
use crate::sim::neighbours::{with_indices, Row, Space};

/// Σ_j f_ij(d_ij / r) d_ij / |d_ij| over the neighbours j in `row` of particle i at `xi`
/// (d_ij = x_j − x_i), with `function(j)` the pair's adhesion function and `shared` the one
/// every pair has, if any.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn liquid_adhesion<'f>(
    space: &Space,
    inv_r: f32,
    x: &[Vec3],
    xi: Vec3,
    row: Row,
    shared: Option<&AdhesionFunction>,
    function: impl Fn(usize) -> &'f AdhesionFunction,
) -> Vec3 {
    #[cfg(target_arch = "x86_64")]
    if let Some(f) = shared.filter(|_| in_avx2(space)) {
        // SAFETY: the CPU has AVX2 (`in_avx2`).
        return unsafe { with_indices!(row, |js| avx2::liquid_adhesion(inv_r, x, xi, js, f)) };
    }
    let _ = shared; // Only the AVX2 copy reads it.
    with_indices!(row, |js| in_arrays(space, inv_r, x, xi, js, function))
}

/// The lanes as arrays.
fn in_arrays<'f, J: Copy + Into<u32>>(
    space: &Space,
    inv_r: f32,
    x: &[Vec3],
    xi: Vec3,
    js: &[J],
    function: impl Fn(usize) -> &'f AdhesionFunction,
) -> Vec3 {
    let mut sums = [[0.0f32; LANES]; 3];
    for (_, j, real) in blocks(js) {
        for lane in 0..LANES {
            let d = space.delta(x[j[lane]], xi);
            let dist = (d.x * d.x + d.y * d.y + d.z * d.z).sqrt();
            let f = if lane < real {
                function(j[lane]).eval(dist * inv_r)
            } else {
                0.0
            };
            let scale = if f != 0.0 && dist > 0.0 {
                f / dist
            } else {
                0.0
            };
            add_along(&mut sums, lane, d.to_array(), scale);
        }
    }
    Vec3::from_array(vector_total(sums))
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use glam::Vec3;

    use crate::scene::AdhesionFunction;
    use crate::sim::eight_lanes::avx2::{
        add_along, dot, for_blocks, gather, scaled, splat, vector_total, Indices,
    };

    /// `super::in_arrays` (no periodic axes, one function for every pair), one vector per
    /// lane array.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) unsafe fn liquid_adhesion<J: Indices>(
        inv_r: f32,
        x: &[Vec3],
        xi: Vec3,
        js: &[J],
        function: &AdhesionFunction,
    ) -> Vec3 {
        let (xi, xs) = (splat(xi.x, xi.y, xi.z), x.as_ptr() as *const f32);
        let zero = _mm256_setzero_ps();
        let mut sums = [zero; 3];
        for_blocks(js, x.len(), |_, j, real| {
            let at = scaled::<3>(j);
            let d = [0, 1, 2].map(|a| _mm256_sub_ps(gather(xs, a, at), xi[a]));
            let dist = _mm256_sqrt_ps(dot(&d, &d));
            let f = _mm256_and_ps(
                eval(function, _mm256_mul_ps(dist, _mm256_set1_ps(inv_r))),
                _mm256_castsi256_ps(real),
            );
            let acts = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_NEQ_UQ>(f, zero),
                _mm256_cmp_ps::<_CMP_GT_OQ>(dist, zero),
            );
            add_along(&mut sums, &d, _mm256_and_ps(_mm256_div_ps(f, dist), acts));
        });
        Vec3::from_array(vector_total(&sums))
    }

    /// `AdhesionFunction::eval` on eight distances (in radii), operation for operation: each
    /// lane takes the segment [a, b) holding it, as the binary search finds it.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) unsafe fn eval(function: &AdhesionFunction, d: __m256) -> __m256 {
        let points = &function.points;
        let (Some(first), Some(last)) = (points.first(), points.last()) else {
            return _mm256_setzero_ps();
        };
        // NaN, and anything no segment holds, is 0.
        let mut value = _mm256_setzero_ps();
        for segment in points.windows(2) {
            let (a, b) = (segment[0], segment[1]);
            let holds = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_LE_OQ>(_mm256_set1_ps(a[0]), d),
                _mm256_cmp_ps::<_CMP_LT_OQ>(d, _mm256_set1_ps(b[0])),
            );
            let t = _mm256_div_ps(
                _mm256_sub_ps(d, _mm256_set1_ps(a[0])),
                _mm256_set1_ps((b[0] - a[0]).max(1e-12)),
            );
            let on_segment = _mm256_add_ps(
                _mm256_set1_ps(a[1]),
                _mm256_mul_ps(t, _mm256_set1_ps(b[1] - a[1])),
            );
            value = _mm256_blendv_ps(value, on_segment, holds);
        }
        // Checked before the segments in `eval`, so they take precedence here, the first
        // point's value over all.
        let beyond = _mm256_cmp_ps::<_CMP_GE_OQ>(d, _mm256_set1_ps(last[0]));
        value = _mm256_blendv_ps(value, _mm256_setzero_ps(), beyond);
        let before = _mm256_cmp_ps::<_CMP_LE_OQ>(d, _mm256_set1_ps(first[0]));
        _mm256_blendv_ps(value, _mm256_set1_ps(first[1]), before)
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use std::arch::x86_64::*;

    use super::*;
    use crate::sim::eight_lanes::test_data::{no_avx2, open_space, points, rows};

    fn functions() -> Vec<AdhesionFunction> {
        vec![
            AdhesionFunction::lennard_jones_like(3.0),
            AdhesionFunction::attractive(2.0),
            AdhesionFunction::repulsive(1.5),
            AdhesionFunction::zero(),
            AdhesionFunction {
                points: vec![[1.5, 4.0]],
            },
            // A step: two points at one distance.
            AdhesionFunction {
                points: vec![[0.5, 1.0], [2.0, 1.0], [2.0, -3.0], [3.5, 0.0]],
            },
        ]
    }

    /// The AVX2 `eval` against `AdhesionFunction::eval` at the points themselves, between
    /// and beyond them, and at NaN: the same bits.
    #[test]
    fn eight_lane_eval_is_eval() {
        if no_avx2() {
            return;
        }
        let mut d: Vec<f32> = (-8..=40).map(|k| k as f32 * 0.125).collect();
        d.extend([f32::NAN, 0.3333, 2.6, 1e-7, f32::INFINITY, -f32::INFINITY]);
        d.resize(d.len().next_multiple_of(8), 7.0);
        for function in functions() {
            for d in d.chunks(8) {
                let mut got = [0.0f32; 8];
                // SAFETY: the CPU has AVX2.
                unsafe {
                    let lanes = avx2::eval(&function, _mm256_loadu_ps(d.as_ptr()));
                    _mm256_storeu_ps(got.as_mut_ptr(), lanes);
                }
                for (d, got) in d.iter().zip(got) {
                    let want = function.eval(*d);
                    assert_eq!(got.to_bits(), want.to_bits(), "{function:?} at {d}");
                }
            }
        }
    }

    /// Both copies of the sum, rows of both widths and every length: the same bits.
    #[test]
    fn the_copies_agree_to_the_bit() {
        if no_avx2() {
            return;
        }
        let space = open_space();
        let x = points();
        let inv_r = 1.0 / 0.0025;
        let bits = |s: Vec3| s.to_array().map(f32::to_bits);
        let mut acting = 0;
        for function in functions() {
            for (wide, narrow) in rows() {
                for i in [0, 3, 40_001] {
                    let xi = x[i];
                    // SAFETY (both): the CPU has AVX2.
                    let sum = in_arrays(&space, inv_r, &x, xi, &wide, |_| &function);
                    let sum_avx2 =
                        unsafe { avx2::liquid_adhesion(inv_r, &x, xi, &wide, &function) };
                    assert_eq!(bits(sum), bits(sum_avx2), "row of {}", wide.len());
                    let sum = in_arrays(&space, inv_r, &x, xi, &narrow, |_| &function);
                    let sum_avx2 =
                        unsafe { avx2::liquid_adhesion(inv_r, &x, xi, &narrow, &function) };
                    assert_eq!(bits(sum), bits(sum_avx2), "narrow row of {}", narrow.len());
                    acting += (sum != Vec3::ZERO) as u32;
                }
            }
        }
        assert!(acting > 100, "{acting} rows with a force");
    }
}
