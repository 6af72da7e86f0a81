//! Pair loops eight neighbours at a time, for the solver's hottest loops: the viscosity
//! solve's operator (`viscosity_operator::eight_pairs`), the density passes' sums and
//! pushes (`density::eight_lanes`), the liquid's adhesion (`forces::liquid_adhesion`), the
//! moves' contact push (`moves::contact_push`), and the viscosity couplings' pair weights
//! (`viscosity_operator::pair_weights`, where nothing is summed). The neighbour searches
//! keep what is within reach eight at a time too (`keep_within` here, and
//! `neighbours::cell_grid::full_search`), appending the kept ones with one store
//! (`avx2::append_kept`).
//!
//! Each of eight lanes sums every eighth neighbour of a row, and the lanes are added up at the
//! end in a fixed tree (`add_lanes`). On a CPU with AVX2 (`sim::avx2::enabled`) the lanes
//! are one vector each and the neighbours' coordinates are gathered (`vgatherdps`) straight
//! from the particle arrays; elsewhere, and in periodic domains, the lanes are plain arrays.
//! Both copies do the same IEEE operations in the same order, none fused, so they give the
//! same bits: each loop's tests compare them on rows of both index widths, and
//! `tests/cpu_dispatch.rs` compares whole frames. A row whose length is not a multiple of
//! eight ends with a block padded with neighbour 0, whose lanes each loop makes add an exact
//! zero.
//!
//! Each loop's module gives what it measured. The first two, against the loops they replaced
//! (the density passes four neighbours at a time in the lanes of a `Vec4`, the viscosity's
//! operator one pair at a time, both compiled for AVX2 by a macro), alternating binaries,
//! two rounds:
//! - a 30k honey block (`examples/honey_drop_bench.rs 34 34 26 6`), median of frames 3-7:
//!   0.81/0.78 → 0.71/0.80 s per frame (a noisy second round: 0.81/0.84 → 0.73/0.74 in
//!   another run);
//! - the honey drop's frames 2-13 (`examples/frame_profile.rs honey-drop 13`): density
//!   correction 0.75/0.73 → 0.58/0.60 s, the viscosity solve in substeps 0.54/0.54 →
//!   0.50/0.52 s;
//! - `gloop bench --frames 10`: honey drop 0.167/0.163 → 0.150/0.157 s per frame, paint
//!   drops 0.123/0.117 → 0.114/0.115, fan 1.42/1.44 → 1.32/1.35;
//! - the viscosity's operator alone, the fan's first falling frame: its solve 0.53 → 0.43 s.
//!
//! The gathers are what the loops wait on now (a profile puts most of the viscosity loop's
//! samples on them). Earlier forms, for the record: the density passes' four lanes had
//! taken a 30k honey block from 1.04 to 0.97 s per frame against one neighbour at a time;
//! the viscosity's operator four pairs at a time into four sums, without gathers, was no
//! faster than one at a time; and the density loops written as plain loops, their sums in
//! registers rather than through a closure, were no faster either. Nor is a gather slow
//! here: the viscosity's operator reading each neighbour's position and velocity with one
//! 16-byte load each and a transpose instead of six gathers (the same bits) took a 30k
//! honey block (`examples/honey_drop_bench.rs 34 34 26 5`) 4.83/4.83 → 4.94/4.89 s of CPU.

use crate::sim::neighbours::{with_indices, Row, Space};

pub(crate) const LANES: usize = 8;

/// Whether the loops run their AVX2 copies here: where the CPU has AVX2, and the space has
/// no periodic axis (whose minimum-image wrap the array copies do per axis).
#[inline(always)]
pub(crate) fn in_avx2(space: &Space) -> bool {
    crate::sim::avx2::enabled() && !space.is_periodic()
}

/// The row's neighbours in blocks of eight: each block's first position in the row, its
/// indices (the last block padded with 0), and how many of them are real.
#[inline(always)]
pub(crate) fn blocks<J: Copy + Into<u32>>(
    js: &[J],
) -> impl Iterator<Item = (usize, [usize; LANES], usize)> + '_ {
    js.chunks(LANES).enumerate().map(|(b, block)| {
        let mut j = [0usize; LANES];
        for (lane, &index) in block.iter().enumerate() {
            j[lane] = index.into() as usize;
        }
        (b * LANES, j, block.len())
    })
}

/// The lanes' total, in the order the AVX2 copy adds them: halves, then quarters, then pairs.
#[inline(always)]
pub(crate) fn add_lanes(l: [f32; LANES]) -> f32 {
    let half = [l[0] + l[4], l[1] + l[5], l[2] + l[6], l[3] + l[7]];
    let quarter = [half[0] + half[2], half[1] + half[3]];
    quarter[0] + quarter[1]
}

/// Adds `d · s` to lane `lane` of three lane arrays summing a vector's x, y and z.
#[inline(always)]
pub(crate) fn add_along(sums: &mut [[f32; LANES]; 3], lane: usize, d: [f32; 3], s: f32) {
    for axis in 0..3 {
        sums[axis][lane] += d[axis] * s;
    }
}

/// The vector three lane arrays sum (`add_lanes` of each).
#[inline(always)]
pub(crate) fn vector_total(sums: [[f32; LANES]; 3]) -> [f32; 3] {
    sums.map(add_lanes)
}

/// Appends to `out`, in the row's order, the neighbours j in `row` closer to `x` than
/// √`reach2` among `points`: the row cut to a shorter reach. Where the CPU has AVX2 (and no
/// axis is periodic), eight neighbours are measured at once, each exactly as
/// `Vec3::length_squared` measures it, so the cut is the same.
#[inline(always)]
pub(crate) fn keep_within(
    space: &Space,
    points: &[glam::Vec3],
    x: glam::Vec3,
    row: Row,
    reach2: f32,
    out: &mut Vec<u32>,
) {
    #[cfg(target_arch = "x86_64")]
    if in_avx2(space) {
        // SAFETY: the CPU has AVX2 (`in_avx2`).
        unsafe { with_indices!(row, |js| avx2::keep_within(points, x, js, reach2, out)) };
        return;
    }
    out.extend(
        row.into_iter()
            .filter(|&j| space.delta(points[j as usize], x).length_squared() < reach2),
    );
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    //! The lanes as AVX2 vectors. Every function here is compiled for AVX2 and must only be
    //! called where the CPU has it.
    use std::arch::x86_64::*;

    use super::LANES;

    /// A row's index width.
    pub(crate) trait Indices: Copy + Into<u32> {
        const WIDE: bool;
    }

    impl Indices for u16 {
        const WIDE: bool = false;
    }

    impl Indices for u32 {
        const WIDE: bool = true;
    }

    /// `super::blocks` as vectors: calls `f(start, j, real)` for each block of eight, with
    /// its first position in the row, its indices widened to 32 bits (the last block padded
    /// with 0) and which lanes are real (all bits set). Every index must be below `points`;
    /// a block that is not stops with a panic before anything is gathered.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn for_blocks<J: Indices>(
        js: &[J],
        points: usize,
        mut f: impl FnMut(usize, __m256i, __m256i),
    ) {
        if js.is_empty() {
            return;
        }
        assert!(0 < points && points <= i32::MAX as usize / 4);
        let last = _mm256_set1_epi32(points as i32 - 1);
        let mut checked = |start: usize, j: __m256i, real: __m256i| {
            // Unsigned: j ≤ last in every lane.
            let within = _mm256_cmpeq_epi32(_mm256_min_epu32(j, last), j);
            assert!(
                _mm256_movemask_epi8(within) == -1,
                "neighbour index out of range"
            );
            f(start, j, real)
        };
        let whole = js.len() - js.len() % LANES;
        for start in (0..whole).step_by(LANES) {
            let at = js.as_ptr().add(start);
            let j = if J::WIDE {
                _mm256_loadu_si256(at as *const __m256i)
            } else {
                _mm256_cvtepu16_epi32(_mm_loadu_si128(at as *const __m128i))
            };
            checked(start, j, _mm256_set1_epi32(-1));
        }
        if whole < js.len() {
            let real = js.len() - whole;
            let mut j = [0u32; LANES];
            for lane in 0..real {
                j[lane] = js[whole + lane].into();
            }
            let lane_numbers = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            let mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(real as i32), lane_numbers);
            checked(
                whole,
                _mm256_loadu_si256(j.as_ptr() as *const __m256i),
                mask,
            );
        }
    }

    /// Coordinate `axis` of the points `j` in an array of `stride`-float points
    /// (`at` = j·stride, from `scaled`).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn gather(points: *const f32, axis: usize, at: __m256i) -> __m256 {
        _mm256_i32gather_ps::<4>(points.add(axis), at)
    }

    /// The offsets x_i − x_j, per axis, of the points `j` (`at` = j·stride, from `scaled`)
    /// from `xi`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn offsets(points: *const f32, xi: &[__m256; 3], at: __m256i) -> [__m256; 3] {
        [0, 1, 2].map(|a| _mm256_sub_ps(xi[a], gather(points, a, at)))
    }

    /// j·3 (12-byte points) or j·4 (16-byte points): the first float of each.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn scaled<const STRIDE: i32>(j: __m256i) -> __m256i {
        if STRIDE == 4 {
            _mm256_slli_epi32::<2>(j)
        } else {
            _mm256_mullo_epi32(j, _mm256_set1_epi32(STRIDE))
        }
    }

    /// `[x, y, z]`, each in every lane.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn splat(x: f32, y: f32, z: f32) -> [__m256; 3] {
        [_mm256_set1_ps(x), _mm256_set1_ps(y), _mm256_set1_ps(z)]
    }

    /// (a·b) per lane, added up as x² + y², then z².
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn dot(a: &[__m256; 3], b: &[__m256; 3]) -> __m256 {
        _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(a[0], b[0]), _mm256_mul_ps(a[1], b[1])),
            _mm256_mul_ps(a[2], b[2]),
        )
    }

    /// `super::keep_within` (no periodic axes).
    ///
    /// # Safety
    /// The CPU has AVX2.
    #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
    pub(crate) unsafe fn keep_within<J: Indices>(
        points: &[glam::Vec3],
        x: glam::Vec3,
        js: &[J],
        reach2: f32,
        out: &mut Vec<u32>,
    ) {
        let (x, at_points) = (splat(x.x, x.y, x.z), points.as_ptr() as *const f32);
        let reach2 = _mm256_set1_ps(reach2);
        for_blocks(js, points.len(), |_, j, real| {
            let at = scaled::<3>(j);
            let d = [0, 1, 2].map(|a| _mm256_sub_ps(gather(at_points, a, at), x[a]));
            let within = _mm256_and_ps(
                _mm256_cmp_ps::<_CMP_LT_OQ>(dot(&d, &d), reach2),
                _mm256_castsi256_ps(real),
            );
            append_kept(out, j, _mm256_movemask_ps(within) as u32);
        });
    }

    /// Appends the lanes of `j` whose bits are set in `kept` to `out`, in lane order: moved
    /// to the front of one vector by a permutation looked up from the bits, and stored at
    /// once. (Appended one by one, the loop over the bits mispredicted its exit in nearly
    /// every block, most of a neighbour search's time.)
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn append_kept(out: &mut Vec<u32>, j: __m256i, kept: u32) {
        debug_assert!(kept < 256);
        let packed = _mm256_permutevar8x32_epi32(j, LEFT_PACK.0[kept as usize & 255]);
        out.reserve(LANES);
        let len = out.len();
        // SAFETY: `out` has room for eight more; the first `kept`'s count of them are set.
        _mm256_storeu_si256(out.as_mut_ptr().add(len) as *mut __m256i, packed);
        out.set_len(len + kept.count_ones() as usize);
    }

    #[repr(align(32))]
    struct Permutations([__m256i; 256]);

    /// For each set of lanes (a mask's bits), those lanes' numbers in order, then zeros.
    static LEFT_PACK: Permutations = {
        let mut table = [[0u32; LANES]; 256];
        let mut bits = 0;
        while bits < 256 {
            let (mut lane, mut kept) = (0, 0);
            while lane < LANES {
                if bits & (1 << lane) != 0 {
                    table[bits][kept] = lane as u32;
                    kept += 1;
                }
                lane += 1;
            }
            bits += 1;
        }
        // SAFETY: eight u32 are an __m256i's 32 bytes, and any bits are a valid __m256i.
        unsafe { std::mem::transmute::<[[u32; LANES]; 256], Permutations>(table) }
    };

    /// `super::add_along` on vectors: adds `d · s` to the sums of x, y and z.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn add_along(sums: &mut [__m256; 3], d: &[__m256; 3], s: __m256) {
        for axis in 0..3 {
            sums[axis] = _mm256_add_ps(sums[axis], _mm256_mul_ps(d[axis], s));
        }
    }

    /// `super::vector_total` on vectors.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn vector_total(sums: &[__m256; 3]) -> [f32; 3] {
        [total(sums[0]), total(sums[1]), total(sums[2])]
    }

    /// `super::add_lanes` on a vector.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) unsafe fn total(l: __m256) -> f32 {
        let half = _mm_add_ps(_mm256_castps256_ps128(l), _mm256_extractf128_ps::<1>(l));
        let quarter = _mm_add_ps(half, _mm_movehl_ps(half, half));
        _mm_cvtss_f32(_mm_add_ss(quarter, _mm_movehdup_ps(quarter)))
    }
}

/// Points and rows for the tests that hold each loop's two copies to the same bits.
#[cfg(test)]
pub(crate) mod test_data {
    use glam::Vec3;

    use crate::validation::noise::uniform_noise;

    /// More points than a narrow row can index (65,536), in a 2 cm cube, so that pairs
    /// drawn at random lie both within and beyond kernels of a few millimetres.
    pub(crate) fn points() -> Vec<Vec3> {
        let mut noise = uniform_noise(17);
        (0..70_000)
            .map(|_| Vec3::new(noise(), noise(), noise()) * 0.02)
            .collect()
    }

    /// Space without periodic axes around the points.
    pub(crate) fn open_space() -> super::Space {
        super::Space::from_parts(Vec3::splat(-1.0), Vec3::splat(2.0), [false; 3])
    }

    /// Whether this CPU lacks AVX2, so that there is nothing to compare (said once).
    pub(crate) fn no_avx2() -> bool {
        let missing = !crate::sim::avx2::enabled();
        if missing {
            eprintln!("this CPU has no AVX2: nothing to compare");
        }
        missing
    }

    /// Rows of every length from 0 to 40 (whole blocks, padded ones), as wide indices into
    /// all the points and as narrow ones into the first 65,536.
    pub(crate) fn rows() -> Vec<(Vec<u32>, Vec<u16>)> {
        let mut noise = uniform_noise(29);
        (0..=40)
            .map(|len| {
                let mut index = || ((noise() + 0.5) * 65_535.0) as u32;
                let wide: Vec<u32> = (0..len).map(|_| index() + index() % 4_464).collect();
                let narrow: Vec<u16> = (0..len).map(|_| index() as u16).collect();
                (wide, narrow)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows of every length modulo eight, both widths: each neighbour once and in order, the
    /// padding 0, and the AVX2 blocks (where the CPU has it) the same as the arrays'.
    #[test]
    fn blocks_hold_every_neighbour_once_then_zeros() {
        for len in 0..20u32 {
            let wide: Vec<u32> = (0..len).map(|k| 100 + 7 * k).collect();
            let narrow: Vec<u16> = wide.iter().map(|&j| j as u16).collect();
            let mut seen = Vec::new();
            let mut expected_blocks = Vec::new();
            for (start, j, real) in blocks(&wide) {
                assert_eq!(start, seen.len());
                assert!((1..=LANES).contains(&real), "{real} real of {LANES}");
                seen.extend(j[..real].iter().map(|&j| j as u32));
                assert!(j[real..].iter().all(|&j| j == 0), "padding {j:?}");
                expected_blocks.push((start, j, real));
            }
            assert_eq!(seen, wide);
            assert_eq!(blocks(&narrow).collect::<Vec<_>>(), expected_blocks);
            #[cfg(target_arch = "x86_64")]
            if crate::sim::avx2::enabled() {
                // SAFETY: the CPU has AVX2.
                unsafe {
                    assert_eq!(avx2_blocks(&wide), expected_blocks);
                    assert_eq!(avx2_blocks(&narrow), expected_blocks);
                }
            }
        }
    }

    /// `avx2::for_blocks`' blocks as arrays: start, indices, and the count of real lanes
    /// (which must come first).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2_blocks<J: avx2::Indices>(js: &[J]) -> Vec<(usize, [usize; LANES], usize)> {
        use std::arch::x86_64::*;
        let mut out = Vec::new();
        avx2::for_blocks(js, 1000, |start, j, real| {
            let (mut indices, mut mask) = ([0u32; LANES], [0i32; LANES]);
            _mm256_storeu_si256(indices.as_mut_ptr() as *mut __m256i, j);
            _mm256_storeu_si256(mask.as_mut_ptr() as *mut __m256i, real);
            let count = mask.iter().take_while(|&&m| m == -1).count();
            assert!(mask[count..].iter().all(|&m| m == 0), "mask {mask:?}");
            out.push((start, indices.map(|j| j as usize), count));
        });
        out
    }

    /// The AVX2 cut keeps exactly the neighbours the arrays' cut keeps, rows of both widths.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_cut_rows_agree() {
        if test_data::no_avx2() {
            return;
        }
        let space = test_data::open_space();
        let x = test_data::points();
        let reach2 = 0.012f32 * 0.012;
        let mut kept = 0;
        for (wide, narrow) in test_data::rows() {
            for i in [0, 3, 40_001] {
                for row in [Row::Wide(&wide), Row::Narrow(&narrow)] {
                    let expected: Vec<u32> = row
                        .into_iter()
                        .filter(|&j| space.delta(x[j as usize], x[i]).length_squared() < reach2)
                        .collect();
                    let mut got = Vec::new();
                    // SAFETY: the CPU has AVX2.
                    unsafe {
                        with_indices!(row, |js| avx2::keep_within(&x, x[i], js, reach2, &mut got))
                    };
                    assert_eq!(got, expected, "row of {}", row.len());
                    kept += expected.len();
                }
            }
        }
        assert!(kept > 200, "{kept} kept");
    }

    /// The AVX2 blocks stop before gathering from beyond the arrays (the arrays' copy panics
    /// at its bounds check too).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn an_index_beyond_the_points_is_never_gathered() {
        if !crate::sim::avx2::enabled() {
            eprintln!("this CPU has no AVX2: nothing to check");
            return;
        }
        // SAFETY (both): the CPU has AVX2.
        let blocks_of = |js: &'static [u32]| {
            std::panic::catch_unwind(|| unsafe { avx2::for_blocks(js, 10, |_, _, _| {}) })
        };
        assert!(blocks_of(&[3, 9]).is_ok());
        let beyond = blocks_of(&[3, 10]).unwrap_err();
        assert_eq!(
            beyond.downcast_ref::<&str>(),
            Some(&"neighbour index out of range")
        );
    }
}
