//! The contact line (issue 41, point 3): a cube of honey falls onto a wooden floor (as Quick
//! Honey makes it) and spreads; its rim, half a particle radius above the floor, is a smooth
//! curve (RMS distance from its own moving average over 3 r at most 0.25 r), and no vertex lies
//! deeper inside the floor than the contact face's offset. Before the fix the rim carried a
//! saw-tooth of spikes (0.27-0.30 r here at frames 7-10) and the contact face floated above the
//! floor.
use glam::{Mat4, Vec3};
use gloop::geometry::box_mesh;
use gloop::scene::{presets, Materials, Motion, Role, Scene, SceneObject};
use gloop::surface::{mesh_liquid, ObstacleSurface, SurfaceSettings, CONTACT_OFFSET};
use gloop::validation::contact_line::{roughness, section_loops};
use gloop::validation::scenes::small_scene_settings;
use gloop::Simulation;
use std::sync::atomic::AtomicBool;

const R: f32 = 0.002;

fn cube_over_floor(cells: u32, fall: f32, frames: i32) -> Scene {
    let size = cells as f32 * 2.0 * R;
    let lo = Vec3::new(-size / 2.0, -size / 2.0, fall);
    let objects = vec![
        SceneObject {
            name: "Honey".into(),
            role: Role::Liquid {
                material: "honey".into(),
                initial_velocity: Vec3::ZERO,
            },
            mesh: box_mesh(lo, lo + Vec3::splat(size)),
            motion: Motion::default(),
        },
        SceneObject {
            name: "Floor".into(),
            role: Role::Obstacle {
                material: "wood".into(),
            },
            mesh: box_mesh(Vec3::new(-0.1, -0.1, -0.02), Vec3::new(0.1, 0.1, 0.0)),
            motion: Motion::Static {
                matrix: Mat4::IDENTITY,
            },
        },
    ];
    let materials = Materials {
        liquids: vec![presets::honey()],
        solids: vec![presets::wood()],
        adhesion_overrides: vec![],
    };
    Scene::new(small_scene_settings(R, frames), materials, objects)
}

#[test]
fn a_puddle_on_a_floor_has_a_smooth_rim_and_stays_within_the_offset() {
    let scene = cube_over_floor(12, 0.05, 12);
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let settings = SurfaceSettings::default();
    for frame in 2..=10 {
        sim.step_frame(&cancel).unwrap();
        if frame < 7 {
            continue; // falling, then landing (frame 4)
        }
        let obstacles = ObstacleSurface::of_scene(&scene, frame);
        let mesh = mesh_liquid(sim.liquid(), R, &settings, &obstacles);
        let deepest = mesh
            .positions
            .iter()
            .map(|p| p.z / R)
            .fold(f32::MAX, f32::min);
        assert!(
            deepest >= -CONTACT_OFFSET - 1e-3,
            "frame {frame}: a vertex {deepest} r inside the floor"
        );
        let loops = section_loops(&mesh, 0.5 * R);
        let rim = loops.first().expect("the puddle meets the floor");
        let rms = roughness(rim, 0.25 * R as f64, 3.0 * R as f64) / R as f64;
        println!("frame {frame}: rim RMS {rms:.3} r, deepest {deepest:.3} r");
        assert!(
            rms <= 0.25,
            "frame {frame}: the rim is {rms} r RMS off smooth"
        );
    }
}
