//! The solver's hot loops have a copy compiled for AVX2, chosen at run time where the CPU has
//! it (`sim::avx2`). Both copies must give the same bits, or a bake resumed on another
//! machine would go another way: the honey drop's first frames, through its impact on the
//! ball, baked with each are identical. (Alone in its file: which copy runs is set for the
//! whole process.)
use std::sync::atomic::AtomicBool;

use gloop::demos::demo_scene;
use gloop::sim::{avx2, LiquidParticles};
use gloop::Simulation;

/// The honey drop's frames 1 to 14 (the drop meets the ball at about frame 9), and the
/// density passes they took.
fn honey_drop(portable_only: bool) -> (LiquidParticles, u32) {
    avx2::set_portable_only(portable_only);
    let mut scene = demo_scene("honey-drop").unwrap();
    scene.settings.frame_end = scene.settings.frame_start + 13;
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let mut passes = 0;
    for _ in 0..14 {
        passes += sim.step_frame(&cancel).unwrap().density_iterations;
    }
    (sim.liquid().clone(), passes)
}

#[test]
fn the_avx2_copies_give_the_portable_bits() {
    let (portable, portable_passes) = honey_drop(true);
    let avx2_runs = {
        avx2::set_portable_only(false);
        avx2::enabled()
    };
    if !avx2_runs {
        eprintln!("this CPU has no AVX2: only the portable copies run here, nothing to compare");
        return;
    }
    let (dispatched, dispatched_passes) = honey_drop(false);
    assert!(portable_passes > 100, "{portable_passes} density passes");
    assert_eq!(portable_passes, dispatched_passes);
    assert!(
        portable == dispatched,
        "the two copies baked different particles"
    );
}
