//! The solver's hottest per-particle loops, compiled twice: for any x86-64 CPU, and for one
//! with AVX2 (x86-64-v3's feature set), the copy chosen at run time.
//!
//! Gloop ships for any x86-64 CPU (SSE2). Built for x86-64-v3 as a whole, a 30k honey block
//! ran 9% faster, most of it in the density passes, but its frames differed in their last
//! bits from the portable build's: glam picks other instructions (fused multiply-adds among
//! them) when the whole crate is compiled for those features. Here only the compiler's own
//! code generation changes: glam's operations stay the portable ones, Rust never fuses a
//! multiply and an add on its own, and the compiler may not reorder float operations, so
//! both copies give the same bits (`tests/cpu_dispatch.rs` bakes a scene with each and
//! compares the frames; the fan's frames 1-4 and the honey drop's 1-8 are byte-identical to
//! the portable build's).
//!
//! Wrapped: the density passes' sums and pushes and the viscosity solve's operator. Measured
//! against the portable build (alternating binaries, two rounds): a 30k honey block
//! (`examples/honey_drop_bench.rs 34 34 26 5`) 0.82/0.85 → 0.79/0.80 s per frame (built
//! for x86-64-v3 as a whole: 0.77/0.80), a 100k one (`50 50 40 4`) 3.04/3.13 → 2.96/2.89
//! (x86-64-v3: 2.76/2.85 against 2.91/2.91 in another run); `gloop bench --frames 10`, honey
//! drop 0.187/0.174 → 0.167/0.171, paint drops 0.126/0.122 → 0.114/0.121, fan 1.49/1.46 →
//! 1.46/1.47. Not wrapped: the neighbour search, no faster built for x86-64-v3
//! (`neighbours::cell_grid`); the adhesion forces, the moves' contact push and the push out
//! of obstacles, wrapped and measured (the same bits) within noise: the honey drop's frames
//! 2-41 (`examples/frame_profile.rs honey-drop 40`) 5.77/5.76 → 5.84/5.73 s, a 30k honey
//! block's median frame 0.83/0.84 → 0.82/0.82 s.

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

/// `twice! { fn name(args) -> Ret { body } }` defines `name`, whose body is compiled both
/// for any CPU and for AVX2, `enabled()` choosing between them at each call. The body is
/// written out in each copy, so the closures it holds are compiled for its CPU too (a
/// closure takes the features of the function it is written in, wherever it is inlined);
/// what it calls is compiled for AVX2 only where it is inlined. So the unit to wrap is one
/// particle's work, with its hot closures written in it, not a parallel loop (rayon's
/// closures are functions of their own, compiled for any CPU).
macro_rules! twice {
    (
        $(#[$meta:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty $body:block
    ) => {
        $(#[$meta])*
        $vis fn $name($($arg: $ty),*) -> $ret {
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2,fma,bmi1,bmi2,lzcnt,popcnt")]
            fn with_avx2($($arg: $ty),*) -> $ret $body
            #[cfg(target_arch = "x86_64")]
            if $crate::sim::avx2::enabled() {
                // SAFETY: the CPU has every feature `with_avx2` is compiled with.
                return unsafe { with_avx2($($arg),*) };
            }
            $body
        }
    };
}
pub(crate) use twice;
