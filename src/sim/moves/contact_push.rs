//! How far a particle's overlapping liquid neighbours push it, Σ_j d (½(c − |d|)/|d|) over
//! the pairs closer than the contact distance c (d = x_i − x_j), eight neighbours at a time
//! (`sim::eight_lanes`). A pair beyond contact, or at distance 0, adds an exact zero.
//!
//! Against one neighbour at a time (a root and a division per pair, at every move),
//! alternating binaries, three rounds: a 30k honey block's 5 frames
//! (`examples/honey_drop_bench.rs 34 34 26 5`) took 5.88/5.92/5.83 → 5.48/5.56/5.61 s of
//! CPU time (the same 336 density passes over 6 frames); the honey drop's moves (frames 2-13,
//! `examples/frame_profile.rs honey-drop 13`) 0.533/0.558 → 0.449/0.456 s.

use glam::Vec3;

use crate::sim::eight_lanes::{add_along, blocks, in_avx2, vector_total, LANES};
use crate::sim::neighbours::{with_indices, Row, Space};

/// The push on particle i at `xi` from its neighbours in `row` (before any limit).
#[inline(always)]
pub(super) fn contact_push(space: &Space, contact: f32, x: &[Vec3], xi: Vec3, row: Row) -> Vec3 {
    #[cfg(target_arch = "x86_64")]
    if in_avx2(space) {
        // SAFETY: the CPU has AVX2 (`in_avx2`).
        return unsafe { with_indices!(row, |js| avx2::contact_push(contact, x, xi, js)) };
    }
    with_indices!(row, |js| in_arrays(space, contact, x, xi, js))
}

/// The lanes as arrays.
fn in_arrays<J: Copy + Into<u32>>(
    space: &Space,
    contact: f32,
    x: &[Vec3],
    xi: Vec3,
    js: &[J],
) -> Vec3 {
    let mut sums = [[0.0f32; LANES]; 3];
    for (_, j, real) in blocks(js) {
        for lane in 0..LANES {
            let d = space.delta(xi, x[j[lane]]);
            let dist = (d.x * d.x + d.y * d.y + d.z * d.z).sqrt();
            let scale = if lane < real && dist < contact && dist > 0.0 {
                0.5 * (contact - dist) / dist
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

    use crate::sim::eight_lanes::avx2::{
        add_along, dot, for_blocks, offsets, scaled, splat, vector_total, Indices,
    };

    /// `super::in_arrays` (no periodic axes), one vector per lane array.
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    pub(super) unsafe fn contact_push<J: Indices>(
        contact: f32,
        x: &[Vec3],
        xi: Vec3,
        js: &[J],
    ) -> Vec3 {
        let (xi, xs) = (splat(xi.x, xi.y, xi.z), x.as_ptr() as *const f32);
        let (zero, c) = (_mm256_setzero_ps(), _mm256_set1_ps(contact));
        let mut sums = [zero; 3];
        for_blocks(js, x.len(), |_, j, real| {
            let d = offsets(xs, &xi, scaled::<3>(j));
            let dist = _mm256_sqrt_ps(dot(&d, &d));
            let overlaps = _mm256_and_ps(
                _mm256_and_ps(
                    _mm256_cmp_ps::<_CMP_LT_OQ>(dist, c),
                    _mm256_cmp_ps::<_CMP_GT_OQ>(dist, zero),
                ),
                _mm256_castsi256_ps(real),
            );
            let scale = _mm256_div_ps(
                _mm256_mul_ps(_mm256_set1_ps(0.5), _mm256_sub_ps(c, dist)),
                dist,
            );
            add_along(&mut sums, &d, _mm256_and_ps(scale, overlaps));
        });
        Vec3::from_array(vector_total(&sums))
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
        // Contact at 2 cm: the 2 cm cube's pairs are within and beyond it.
        let contact = 0.02;
        let bits = |s: Vec3| s.to_array().map(f32::to_bits);
        let mut pushed = 0;
        for (wide, narrow) in rows() {
            for i in [0, 3, 40_001] {
                let xi = x[i];
                // SAFETY (both): the CPU has AVX2.
                let push = in_arrays(&space, contact, &x, xi, &wide);
                let push_avx2 = unsafe { avx2::contact_push(contact, &x, xi, &wide) };
                assert_eq!(bits(push), bits(push_avx2), "row of {}", wide.len());
                let push = in_arrays(&space, contact, &x, xi, &narrow);
                let push_avx2 = unsafe { avx2::contact_push(contact, &x, xi, &narrow) };
                assert_eq!(
                    bits(push),
                    bits(push_avx2),
                    "narrow row of {}",
                    narrow.len()
                );
                pushed += (push != Vec3::ZERO) as u32;
            }
        }
        assert!(pushed > 60, "{pushed} rows pushed");
    }
}
