//! Adaptive substeps: a frame takes as many substeps as its fastest particle needs (no particle
//! moves more than `MOVE_FRACTION · r` per move), between the scene's `substeps` and
//! `max_substeps`; a fast impact then cannot tunnel through a thin plate.
mod common;

use std::sync::atomic::AtomicBool;

use glam::{Mat4, Vec3};
use gloop::scene::{Motion, Role, Scene};
use gloop::sim::FrameStats;
use gloop::Simulation;

const R: f32 = 0.001;
const PLATE_HALF: f32 = 0.05;
const PLATE_THICKNESS: f32 = 0.001;

/// A 16 × 16 × 8 mm honey block (8 × 8 × 4 cells at r = 1 mm) thrown down at `speed` onto a
/// 1 mm thick steel plate (10 cm square, its top at z = 0), from 1 cm above it (it meets the
/// plate at 5.02 m/s when thrown at 5).
fn impact_scene(speed: f32, substeps: u32, max_substeps: u32) -> Scene {
    let mut settings = common::settings(R, 8);
    settings.substeps = substeps;
    settings.max_substeps = max_substeps;
    let s = 2.0 * R;
    let lo = Vec3::new(-4.0 * s, -4.0 * s, 0.01);
    let mut block = common::liquid_box("Block", lo, lo + Vec3::new(8.0 * s, 8.0 * s, 4.0 * s));
    if let Role::Liquid {
        initial_velocity, ..
    } = &mut block.role
    {
        *initial_velocity = Vec3::new(0.0, 0.0, -speed);
    }
    let plate = common::obstacle_box(
        "Plate",
        Vec3::new(-PLATE_HALF, -PLATE_HALF, -PLATE_THICKNESS),
        Vec3::new(PLATE_HALF, PLATE_HALF, 0.0),
    );
    Scene::new(settings, common::materials(), vec![block, plate])
}

/// Bakes `frames` frames; returns the frames' figures and the particles that went through the
/// plate: those below it, under it (within its footprint, so liquid running off an edge does
/// not count), and those that fell out of the domain.
fn tunnelled(scene: &Scene, frames: usize) -> (Vec<FrameStats>, usize) {
    let mut sim = Simulation::new(scene).unwrap();
    let cancel = AtomicBool::new(false);
    let stats: Vec<FrameStats> = (0..frames)
        .map(|_| sim.step_frame(&cancel).unwrap())
        .collect();
    // Whatever left the domain fell through: nothing else goes that far in a few frames.
    let removed: usize = stats.iter().map(|s| s.removed).sum();
    let under = sim
        .liquid()
        .position
        .iter()
        .filter(|x| x.z < -PLATE_THICKNESS && x.x.abs() < PLATE_HALF && x.y.abs() < PLATE_HALF)
        .count();
    (stats, under + removed)
}

/// The figures behind `MOVE_FRACTION`: particles through the plate at fixed substep counts,
/// chosen for a largest move of `fraction` r at each impact speed.
/// `cargo test --release --test adaptive_substeps -- --ignored --nocapture`
#[test]
#[ignore]
fn measure_tunnelling_by_move_fraction() {
    let speeds: Vec<f32> = std::env::var("SPEEDS")
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![2.0, 5.0, 7.0, 10.0]);
    let fractions: Vec<f32> = std::env::var("FRACTIONS")
        .map(|s| s.split(',').map(|x| x.parse().unwrap()).collect())
        .unwrap_or(vec![4.0, 2.0, 1.5, 1.0, 0.75, 0.5, 0.35, 0.25]);
    for &speed in &speeds {
        for &fraction in &fractions {
            let per_move = fraction * R;
            let n = ((speed + 9.81 / 24.0) / 24.0 / (6.0 * per_move)).ceil() as u32;
            let (_, through) = tunnelled(&impact_scene(speed, n, n), 4);
            println!(
                "speed {speed:4} m/s, {fraction:4} r/move ({n:3} substeps): {through} through"
            );
        }
    }
}

/// A 5 m/s impact on a 1 mm plate at r = 1 mm: at a fixed 4 substeps most of the block goes
/// through; adaptive substeps (4 at least, the default cap) stop all of it.
#[test]
fn a_5_m_s_impact_leaves_nothing_beyond_a_1_mm_plate() {
    let (_, fixed) = tunnelled(&impact_scene(5.0, 4, 4), 4);
    assert!(
        fixed > 10,
        "at a fixed 4 substeps the block should tunnel: {fixed} through"
    );
    let scene = impact_scene(5.0, 4, gloop::scene::Settings::default().max_substeps);
    let (stats, through) = tunnelled(&scene, 4);
    assert_eq!(through, 0, "particles went through the plate");
    // 5 m/s + 9.81/24 over a frame of 1/24 s at 6 moves of r: 38 substeps.
    assert_eq!(stats[0].substeps, 38, "{stats:?}");
    assert!(stats.iter().all(|s| !s.substeps_capped));
}

fn liquid_velocity(scene: &mut Scene, velocity: Vec3) {
    for object in &mut scene.objects {
        if let Role::Liquid {
            initial_velocity, ..
        } = &mut object.role
        {
            *initial_velocity = velocity;
        }
    }
}

fn frame_stats(scene: &Scene, frames: usize) -> Vec<FrameStats> {
    let mut sim = Simulation::new(scene).unwrap();
    let cancel = AtomicBool::new(false);
    (0..frames)
        .map(|_| sim.step_frame(&cancel).unwrap())
        .collect()
}

/// Liquid at rest takes the minimum; a blob falling freely takes more every frame as it
/// gathers speed; one thrown fast takes more from its first frame.
#[test]
fn substeps_grow_with_speed() {
    let resting = frame_stats(&common::resting_block(0.0025, 10), 6);
    assert!(
        resting.iter().all(|s| s.substeps == 4),
        "resting: {:?}",
        resting.iter().map(|s| s.substeps).collect::<Vec<_>>()
    );

    let mut falling = common::settings(R, 20);
    falling.domain.min.z = -10.0;
    let s = 2.0 * R;
    let blob = common::liquid_box("Blob", Vec3::ZERO, Vec3::splat(4.0 * s));
    let mut scene = Scene::new(falling, common::materials(), vec![blob]);
    let counts: Vec<u32> = frame_stats(&scene, 12).iter().map(|s| s.substeps).collect();
    // From rest, gravity's gain over a frame asks for 3 at r = 1 mm: the minimum.
    assert_eq!(counts[0], 4, "{counts:?}");
    assert!(counts.windows(2).all(|w| w[1] >= w[0]), "{counts:?}");
    // 11 frames of fall, 4.5 m/s, then 0.41 more over the frame: 34 substeps of 6 moves of r.
    assert!((33..=36).contains(&counts[11]), "{counts:?}");

    liquid_velocity(&mut scene, Vec3::new(0.0, 0.0, -3.0));
    let thrown = frame_stats(&scene, 1);
    // (3 + 0.41) / 24 / (6 × 1 mm) = 23.7.
    assert_eq!(thrown[0].substeps, 24, "{thrown:?}");
    assert!((thrown[0].substep_speed - 3.409).abs() < 1e-3);

    // A cap below what the speed asks for holds, and says so.
    scene.settings.max_substeps = 10;
    let capped = frame_stats(&scene, 1);
    assert_eq!(capped[0].substeps, 10);
    assert!(capped[0].substeps_capped);
}

/// A fast obstacle counts, not only fast liquid: resting liquid beside a paddle sweeping at
/// 2 m/s takes the substeps the paddle's speed asks for.
#[test]
fn a_fast_obstacle_counts() {
    let mut settings = common::settings(0.0025, 4);
    settings.gravity = Vec3::ZERO;
    let s = 0.005;
    let blob = common::liquid_box("Blob", Vec3::ZERO, Vec3::splat(4.0 * s));
    let mut paddle = common::obstacle_box(
        "Paddle",
        Vec3::new(0.2, 0.0, 0.0),
        Vec3::new(0.21, 0.05, 0.05),
    );
    // 2 m/s along y: 1/12 m per frame.
    paddle.motion = Motion::Rigid {
        first_frame: 1,
        matrices: (0..6)
            .map(|k| Mat4::from_translation(Vec3::new(0.0, k as f32 * 2.0 / 24.0, 0.0)))
            .collect(),
    };
    let scene = Scene::new(settings, common::materials(), vec![blob, paddle]);
    let stats = frame_stats(&scene, 3);
    // 2 m/s over 1/24 s at 6 moves of 2.5 mm: 5.6, so 6.
    assert!(stats.iter().all(|s| s.substeps == 6), "{stats:?}");
    assert!((stats[0].substep_speed - 2.0).abs() < 1e-3);
}

/// The maximum may not be below the minimum; a file without one gets the default.
#[test]
fn max_substeps_below_substeps_is_refused_and_defaults_when_absent() {
    let mut scene = impact_scene(0.0, 8, 6);
    let error = Simulation::new(&scene).err().expect("refused").to_string();
    assert!(
        error.contains("max_substeps") && error.contains("(6)") && error.contains("(8)"),
        "{error}"
    );

    scene.settings.max_substeps = 8;
    let mut json: serde_json::Value = serde_json::from_str(&scene.to_json()).unwrap();
    json["settings"]
        .as_object_mut()
        .unwrap()
        .remove("max_substeps");
    let loaded = Scene::from_json(&json.to_string(), std::path::Path::new("scene.json")).unwrap();
    assert_eq!(
        loaded.settings.max_substeps,
        gloop::scene::settings::default_max_substeps()
    );
}
