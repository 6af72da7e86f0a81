//! Whether the AVX2 copies of the solver's hottest loops run: the pair loops eight
//! neighbours at a time (`sim::eight_lanes`), chosen at run time where the CPU has AVX2.
//!
//! Gloop ships for any x86-64 CPU (SSE2). Built for x86-64-v3 as a whole, a 30k honey block
//! ran 9% faster, but its frames differed in their last bits from the portable build's: glam
//! picks other instructions (fused multiply-adds among them) when the whole crate is compiled
//! for those features. The AVX2 copies instead do the portable copies' IEEE operations in
//! the same order, none fused, so both give the same bits (`tests/cpu_dispatch.rs` bakes a
//! scene with each and compares the frames).
//!
//! (Before the eight-lane loops, the same per-particle bodies were compiled twice by a macro,
//! once with `#[target_feature(enable = "avx2,…")]`: a 30k honey block
//! (`examples/honey_drop_bench.rs 34 34 26 5`) 0.82/0.85 → 0.79/0.80 s per frame, a 100k
//! one (`50 50 40 4`) 3.04/3.13 → 2.96/2.89. Wrapped so too and measured within noise: the
//! adhesion forces, the moves' contact push and the push out of obstacles; and the neighbour
//! search, no faster built for x86-64-v3 as a whole (`neighbours::cell_grid::full_search`).)

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::LazyLock;

/// Set to run the portable copies on any CPU (for the test that compares the two).
static PORTABLE_ONLY: AtomicBool = AtomicBool::new(false);

/// Whether the CPU has every feature the AVX2 copies are compiled with (asked once).
static CPU_HAS_AVX2: LazyLock<bool> = LazyLock::new(|| {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("fma")
            && std::arch::is_x86_feature_detected!("bmi1")
            && std::arch::is_x86_feature_detected!("bmi2")
            && std::arch::is_x86_feature_detected!("lzcnt")
            && std::arch::is_x86_feature_detected!("popcnt")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
});

/// Runs the portable copies from now on, even where the CPU has AVX2 (or the AVX2 copies
/// again, with `false`). For comparing the two; a bake never needs it.
#[doc(hidden)]
pub fn set_portable_only(portable_only: bool) {
    PORTABLE_ONLY.store(portable_only, Ordering::Relaxed);
}

/// Whether the AVX2 copies run.
#[inline(always)]
pub fn enabled() -> bool {
    !PORTABLE_ONLY.load(Ordering::Relaxed) && *CPU_HAS_AVX2
}
