//! Whole-solver behaviour on small scenes: moving obstacles push, emitters emit what they
//! promise, results do not depend on the thread count, resume continues exactly.
mod common;

use std::sync::atomic::AtomicBool;

use glam::{Mat4, Vec3};
use gloop::geometry::box_mesh;
use gloop::scene::{Emission, Motion, Role, Scene, SceneObject};
use gloop::Simulation;

fn run(scene: &Scene, frames: usize) -> Simulation {
    let mut sim = Simulation::new(scene).unwrap();
    let cancel = AtomicBool::new(false);
    for _ in 0..frames {
        sim.step_frame(&cancel).unwrap();
    }
    sim
}

/// A honey block falling onto a steel slab.
fn drop_scene(frames: i32) -> Scene {
    let r = 0.004;
    let s = 2.0 * r;
    let mut settings = common::settings(r, frames);
    settings.moves = 4;
    Scene::new(
        settings,
        common::materials(),
        vec![
            common::liquid_box(
                "Drop",
                Vec3::new(0.0, 0.0, 0.05),
                Vec3::new(6.0 * s, 5.0 * s, 0.05 + 6.0 * s),
            ),
            common::obstacle_box(
                "Slab",
                Vec3::new(-0.1, -0.1, -0.05),
                Vec3::new(0.15, 0.15, 0.0),
            ),
        ],
    )
}

#[test]
fn a_moving_obstacle_pushes_liquid() {
    let r = 0.004;
    let s = 2.0 * r;
    let mut settings = common::settings(r, 40);
    settings.gravity = Vec3::ZERO;
    // A paddle sweeping +x at 0.5 m/s through where the liquid sits.
    let matrices: Vec<Mat4> = (0..40)
        .map(|f| Mat4::from_translation(Vec3::new(0.5 * f as f32 / 24.0, 0.0, 0.0)))
        .collect();
    let paddle = SceneObject {
        name: "Paddle".into(),
        role: Role::Obstacle {
            material: "steel".into(),
        },
        mesh: box_mesh(Vec3::new(-0.06, -0.05, -0.05), Vec3::new(-0.03, 0.09, 0.09)),
        motion: Motion::Rigid {
            first_frame: 1,
            matrices,
        },
    };
    let scene = Scene::new(
        settings,
        common::materials(),
        vec![
            common::liquid_box("Blob", Vec3::ZERO, Vec3::splat(5.0 * s)),
            paddle,
        ],
    );
    let start_x = run(&scene, 0)
        .liquid()
        .position
        .iter()
        .map(|p| p.x)
        .sum::<f32>();
    let sim = run(&scene, 36);
    let l = sim.liquid();
    let n = l.len() as f32;
    let mean_vx = l.velocity.iter().map(|v| v.x).sum::<f32>() / n;
    let moved = (l.position.iter().map(|p| p.x).sum::<f32>() - start_x) / n;
    assert!(
        mean_vx > 0.25,
        "liquid should be carried along at about the paddle's 0.5 m/s, got {mean_vx}"
    );
    assert!(
        moved > 0.05,
        "liquid should have been pushed along +x, mean shift {moved} m"
    );
    // Nothing went through the paddle: every particle is ahead of its front face.
    let paddle_front = -0.03 + 0.5 * 36.0 / 24.0;
    assert!(
        l.position.iter().all(|p| p.x > paddle_front),
        "liquid passed through the paddle"
    );
}

#[test]
fn an_emitter_emits_the_expected_count() {
    let r = 0.004;
    let mut settings = common::settings(r, 30);
    settings.gravity = Vec3::ZERO; // nothing may fall out of the domain: we count
    settings.domain.min = Vec3::splat(-5.0);
    settings.domain.max = Vec3::splat(5.0);
    let rate = 900.0; // particles per second
    let nozzle = SceneObject {
        name: "Spout".into(),
        role: Role::Emitter {
            material: "honey".into(),
            // Scene format 1's particle rate, still read as a flow of rate × (2r)³.
            emission: Emission {
                flow: None,
                rate: Some(rate),
                speed: Some(0.5),
                frame_start: 3,
                frame_end: 21,
            },
        },
        mesh: gloop::scene::TriMesh {
            // A 2 cm square facing down (-z), so liquid pours downward.
            vertices: vec![
                Vec3::new(0.0, 0.0, 0.3),
                Vec3::new(0.02, 0.0, 0.3),
                Vec3::new(0.02, 0.02, 0.3),
                Vec3::new(0.0, 0.02, 0.3),
            ],
            triangles: vec![[0, 2, 1], [0, 3, 2]],
        },
        motion: Motion::default(),
    };
    let scene = Scene::new(settings, common::materials(), vec![nozzle]);
    let mut sim = Simulation::new(&scene).unwrap();
    assert_eq!(sim.liquid().len(), 0);
    let cancel = AtomicBool::new(false);
    let mut counts = Vec::new();
    for _ in 0..29 {
        counts.push(sim.step_frame(&cancel).unwrap().liquid_particles);
    }
    // 18 frames of emission at 24 fps: floor(900 × 18/24) = 675, then no more.
    assert_eq!(*counts.last().unwrap(), 675);
    assert_eq!(
        counts[21 - 2],
        675,
        "emission is complete at its last frame"
    );
    assert!(
        counts[1] == 0 && counts[5] > 0,
        "emission starts at frame 3: {counts:?}"
    );
    // It pours downward.
    let mean_vz = sim.liquid().velocity.iter().map(|v| v.z).sum::<f32>() / 675.0;
    assert!(mean_vz < -0.3, "mean vertical speed {mean_vz}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let scene = drop_scene(12);
    let bake = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| run(&scene, 11))
    };
    let (one, two) = (bake(1), bake(2));
    let bits = |s: &Simulation| {
        s.liquid()
            .position
            .iter()
            .chain(&s.liquid().velocity)
            .flat_map(|v| v.to_array())
            .map(f32::to_bits)
            .collect::<Vec<_>>()
    };
    assert!(one.liquid().len() > 100);
    assert_eq!(
        bits(&one),
        bits(&two),
        "1 and 2 threads must give the same bits"
    );
}

#[test]
fn resume_continues_exactly() {
    let scene = drop_scene(12);
    let straight = run(&scene, 10);
    let first = run(&scene, 6);
    let mut resumed = Simulation::resume(&scene, first.frame(), first.liquid().clone()).unwrap();
    let cancel = AtomicBool::new(false);
    for _ in 0..4 {
        resumed.step_frame(&cancel).unwrap();
    }
    assert_eq!(resumed.frame(), straight.frame());
    assert_eq!(
        resumed.liquid(),
        straight.liquid(),
        "a resumed bake must match an uninterrupted one"
    );
}

#[test]
fn cancel_stops_before_the_next_substep() {
    let scene = drop_scene(12);
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(true);
    let before = sim.liquid().clone();
    assert!(matches!(
        sim.step_frame(&cancel),
        Err(gloop::GloopError::Cancelled)
    ));
    assert_eq!(
        sim.liquid(),
        &before,
        "a cancelled frame must not have advanced"
    );
}
