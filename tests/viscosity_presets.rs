//! Every liquid preset, from water to lava, is stable with the implicit viscosity at default
//! substeps: a small block dropped on a steel plate stays finite, lands and stays on the plate.
use std::sync::atomic::AtomicBool;

use glam::{Mat4, Vec3};
use gloop::geometry::box_mesh;
use gloop::scene::{
    presets, LiquidMaterial, Materials, Motion, Role, Scene, SceneObject, Settings, ViscosityModel,
};
use gloop::Simulation;

fn drop_on_plate(liquid: LiquidMaterial) -> (f32, f32) {
    let r = 0.004;
    let name = liquid.name.clone();
    let objects = vec![
        SceneObject {
            name: "Block".into(),
            role: Role::Liquid {
                material: name,
                initial_velocity: Vec3::ZERO,
            },
            mesh: box_mesh(
                Vec3::new(-0.024, -0.024, 0.01),
                Vec3::new(0.024, 0.024, 0.058),
            ),
            motion: Motion::default(),
        },
        SceneObject {
            name: "Plate".into(),
            role: Role::Obstacle {
                material: "steel".into(),
            },
            mesh: box_mesh(Vec3::new(-0.2, -0.2, -0.03), Vec3::new(0.2, 0.2, 0.0)),
            motion: Motion::Static {
                matrix: Mat4::IDENTITY,
            },
        },
    ];
    let settings = Settings {
        particle_radius: r,
        viscosity_model: ViscosityModel::Implicit,
        ..Settings::default()
    };
    let materials = Materials {
        liquids: vec![liquid],
        solids: vec![presets::steel()],
        adhesion_overrides: vec![],
    };
    let scene = Scene::new(settings, materials, objects);
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    for _ in 0..12 {
        sim.step_frame(&cancel).unwrap();
    }
    let l = sim.liquid();
    let lowest = l.position.iter().map(|x| x.z).fold(f32::MAX, f32::min);
    let fastest = l.velocity.iter().map(|v| v.length()).fold(0.0, f32::max);
    (lowest, fastest)
}

#[test]
fn every_liquid_preset_is_stable_at_default_substeps() {
    for liquid in presets::liquids() {
        let name = liquid.name.clone();
        let (lowest, fastest) = drop_on_plate(liquid);
        // Free fall from 1 cm for half a second would reach 3 m/s and z far below the plate.
        assert!(
            lowest > -0.004,
            "{name}: fell through the plate to z = {lowest}"
        );
        assert!(fastest < 1.5, "{name}: a particle moves at {fastest} m/s");
    }
}
