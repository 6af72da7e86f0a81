//! The classic (explicit) viscosity model cannot reach a thick liquid's viscosity at fine
//! resolution: a bake says so before it starts, naming the liquid and how much it gets
//! (`tests/cli_bake.rs` checks that `gloop bake` prints it).

use gloop::scene::{presets, ViscosityModel};
use gloop::sim::scene_warnings;

mod bake_support;
use bake_support::tiny_scene;

/// The share of its viscosity a warning says the liquid gets, in percent.
fn percent_in(warning: &str) -> f32 {
    let end = warning.find('%').expect("a percentage");
    let start = warning[..end].rfind(' ').unwrap() + 1;
    warning[start..end].parse().unwrap()
}

#[test]
fn classic_honey_is_reported_thinner_than_asked_and_by_how_much() {
    let mut scene = tiny_scene(2);
    scene.settings.viscosity_model = ViscosityModel::Classic;
    let coarse = scene_warnings(&scene).unwrap();
    assert_eq!(coarse.len(), 1, "{coarse:?}");
    assert!(coarse[0].contains("'honey'"), "{}", coarse[0]);
    // Finer particles and shorter steps both lower the ceiling ν ≈ 0.9⟨d²⟩/(6δt): at
    // r = 1 mm and 4 substeps, honey (1.3e-2 m²/s) gets a few percent at most.
    scene.settings.particle_radius = 0.001;
    scene.settings.substeps = 4;
    let fine = scene_warnings(&scene).unwrap();
    assert!(
        percent_in(&fine[0]) < percent_in(&coarse[0]),
        "{fine:?} {coarse:?}"
    );
    assert!(percent_in(&fine[0]) < 3.0, "{fine:?}");

    // Water is within the ceiling; the implicit model gives every liquid its viscosity.
    scene.materials.liquids = vec![presets::water()];
    scene.objects[1].role = gloop::scene::Role::Liquid {
        material: "water".into(),
        initial_velocity: glam::Vec3::ZERO,
    };
    assert_eq!(scene_warnings(&scene).unwrap(), Vec::<String>::new());
    let mut implicit = tiny_scene(2);
    implicit.settings.viscosity_model = ViscosityModel::Implicit;
    assert_eq!(scene_warnings(&implicit).unwrap(), Vec::<String>::new());
}
