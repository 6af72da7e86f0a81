//! A pour's thread holds together whatever substep floor the scene sets: while an emitter
//! pours, the adaptive rule's stretch bound (`sim::adaptive`, g·δt² ≤ TENSION_BAND · 2r) takes
//! enough substeps that gravity does not tear the stream from the nozzle's held throat.
//!
//! The pour is the one next to `honey-pour` that issue 42 found breaking at the scene's floor
//! of 2 substeps (nozzle radius 3.5 mm, 8 mL/s, 7 cm above the plate, r = 0.5 mm, 96 fps,
//! 6 moves): without the bound it takes the speed bound's 2-3 substeps, and its thread parts
//! 4-8 mm below the nozzle at about 0.2 s (a gap of 4r at frame 20, 10r at frame 21).

use std::sync::atomic::AtomicBool;

use glam::{Mat4, Vec3};
use gloop::demos::{honey_pour as pour, shapes};
use gloop::scene::{Motion, Role, Scene};
use gloop::sim::adaptive::Bound;
use gloop::Simulation;

const R: f32 = 0.0005;
const HEIGHT: f32 = 0.07;

fn neighbouring_pour(floor: u32, seconds: f32) -> Scene {
    let mut scene = pour::scene(R, 96.0, seconds);
    scene.settings.substeps = floor;
    scene.settings.moves = 6;
    scene.settings.domain.max.z = HEIGHT + 0.01;
    let nozzle = &mut scene.objects[0];
    nozzle.mesh = shapes::downward_disc(0.0035, 48);
    nozzle.motion = Motion::Static {
        matrix: Mat4::from_translation(Vec3::new(0.0, 0.0, HEIGHT)),
    };
    if let Role::Emitter { emission, .. } = &mut nozzle.role {
        emission.flow = Some(8e-6);
    }
    scene
}

/// The widest gap between consecutive particle heights, in radii: a stream that has parted
/// shows at least this much empty height.
fn widest_gap(x: &[Vec3]) -> f32 {
    let mut z: Vec<f32> = x.iter().map(|p| p.z).collect();
    z.sort_by(f32::total_cmp);
    z.windows(2).map(|w| w[1] - w[0]).fold(0.0, f32::max) / R
}

#[test]
fn a_pour_at_one_substep_a_frame_stays_one_stream() {
    let seconds = 0.3;
    let scene = neighbouring_pour(1, seconds);
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let frames = (seconds * 96.0).round() as usize;
    let mut set_by_stretch = 0;
    for frame in 1..=frames {
        let stats = sim.step_frame(&cancel).unwrap();
        // √(g / (2r · 0.15)) / 96 = 2.66: at least 3 substeps, set by the stretch bound
        // unless the speed asks for as many or more.
        assert!(stats.substeps >= 3, "frame {frame}: {stats:?}");
        set_by_stretch += (stats.substep_bound == Bound::Stretch) as usize;
        let gap = widest_gap(&sim.liquid().position);
        assert!(
            gap < 3.0,
            "frame {frame}: the stream parted, a gap of {gap:.1}r"
        );
    }
    // The fall starts slowly: the stream's first frames are the stretch bound's.
    assert!(
        set_by_stretch >= 5,
        "{set_by_stretch} frames set by the stretch bound"
    );
}
