//! A block of liquid resting in a tank stays at rest: it settles, then holds its density,
//! does not drift and does not jitter more as time goes on.
mod common;

use std::sync::atomic::AtomicBool;

use gloop::Simulation;

fn rms_speed(sim: &Simulation) -> f32 {
    let v = &sim.liquid().velocity;
    (v.iter().map(|v| v.length_squared()).sum::<f32>() / v.len() as f32).sqrt()
}

fn mean_height(sim: &Simulation) -> f32 {
    let x = &sim.liquid().position;
    x.iter().map(|p| p.z).sum::<f32>() / x.len() as f32
}

#[test]
fn resting_block_stays_at_rest_for_ten_seconds() {
    let radius = 0.005;
    let scene = common::resting_block(radius, 241);
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let count = sim.liquid().len();
    let mut settled_height = 0.0;
    let mut early_jitter = 0.0f32;
    let mut late_jitter = 0.0f32;
    for frame in 1..=240 {
        let stats = sim.step_frame(&cancel).unwrap();
        assert_eq!(
            stats.liquid_particles, count,
            "no particle may leave the tank"
        );
        if frame >= 48 {
            // After two seconds of settling the density holds within 1%.
            assert!(
                stats.max_density_error <= 0.01,
                "frame {frame}: density error {}",
                stats.max_density_error
            );
        }
        if frame == 48 {
            settled_height = mean_height(&sim);
        }
        if (48..72).contains(&frame) {
            early_jitter = early_jitter.max(rms_speed(&sim));
        }
        if frame > 216 {
            late_jitter = late_jitter.max(rms_speed(&sim));
        }
    }
    let drift = (mean_height(&sim) - settled_height).abs();
    assert!(
        drift < 0.05 * radius,
        "the settled liquid drifted by {drift} m"
    );
    assert!(
        late_jitter < 0.01,
        "RMS speed {late_jitter} m/s after ten seconds"
    );
    assert!(
        late_jitter <= early_jitter * 1.5 + 1e-4,
        "jitter grows: {early_jitter} m/s at 2–3 s, {late_jitter} m/s at 9–10 s"
    );
}

/// A frame reports the substeps whose density correction stopped at the pass cap and the
/// compression they left, so a benchmark bought by stopping short shows it.
#[test]
fn substeps_stopped_at_the_pass_cap_are_counted() {
    let cancel = AtomicBool::new(false);
    let run = |cap: u32| {
        let mut scene = common::resting_block(0.005, 48);
        scene.settings.max_density_iterations = cap;
        let tolerance = scene.settings.density_tolerance;
        let mut sim = Simulation::new(&scene).unwrap();
        let (mut capped, mut worst) = (0, 0.0f32);
        for frame in 1..=36 {
            let stats = sim.step_frame(&cancel).unwrap();
            assert!(
                stats.worst_density_error >= stats.max_density_error,
                "frame {frame}: the worst substep is at least the last: {stats:?}"
            );
            assert!(stats.capped_substeps <= stats.substeps);
            assert!(stats.substeps >= scene.settings.substeps);
            if frame > 24 {
                capped += stats.capped_substeps;
                worst = worst.max(stats.worst_density_error);
            }
        }
        (capped, worst, tolerance)
    };
    // Settled on the floor, each substep's correction needs some 17 passes.
    let (capped, worst, tolerance) = run(30);
    assert_eq!(capped, 0, "worst compression {worst}");
    assert!(worst <= tolerance, "{worst}");
    let (capped, worst, tolerance) = run(4);
    assert_eq!(capped, 12 * 4, "every substep stops at 4 passes");
    assert!(worst > tolerance, "{worst}");
}
