//! Scene files round-trip, and bad input gets an error naming what is wrong.
mod common;

use std::path::Path;

use glam::{Mat4, Vec3};
use gloop::scene::{Motion, Scene, SCENE_FORMAT_VERSION};
use gloop::GloopError;

fn sample() -> Scene {
    common::resting_block(0.005, 10)
}

fn message(result: Result<impl std::fmt::Debug, GloopError>) -> String {
    result.expect_err("must be refused").to_string()
}

#[test]
fn binary_and_json_round_trip() {
    let scene = sample();
    let origin = Path::new("mem");
    assert_eq!(
        Scene::from_binary(&scene.to_binary(), origin).unwrap(),
        scene
    );
    assert_eq!(Scene::from_json(&scene.to_json(), origin).unwrap(), scene);
    let dir = tempfile::tempdir().unwrap();
    for name in ["scene.gloop", "scene.json"] {
        let path = dir.path().join(name);
        scene.save(&path).unwrap();
        assert_eq!(Scene::load(&path).unwrap(), scene, "{name}");
        assert!(!dir.path().join(format!("{name}.tmp")).exists());
    }
}

#[test]
fn a_truncated_file_is_refused_by_name() {
    let bytes = sample().to_binary();
    let msg = message(Scene::from_binary(
        &bytes[..bytes.len() / 2],
        Path::new("cut.gloop"),
    ));
    assert!(
        msg.contains("cut.gloop") && msg.contains("truncated"),
        "{msg}"
    );
}

#[test]
fn a_binary_of_an_older_format_is_refused_with_a_way_out() {
    let mut bytes = sample().to_binary();
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    let msg = message(Scene::from_binary(&bytes, Path::new("old.gloop")));
    assert!(
        msg.contains("old.gloop") && msg.contains("older Gloop") && msg.contains("export"),
        "{msg}"
    );
}

/// `gloop demo honey-pour`'s scene as the build before format 3 wrote it (binary, version 2):
/// it still reads, as today's demo scene with the new fields at their defaults.
#[test]
fn a_binary_of_format_2_still_reads() {
    let path =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/honey_pour_scene_v2.gloop");
    let old = Scene::load(&path).expect("a version-2 binary scene reads");
    let today = gloop::demos::honey_pour::demo();
    assert_eq!(old.version, 2);
    assert_eq!(old.settings, today.settings);
    assert_eq!(old.objects, today.objects);
    let names = |s: &Scene| -> Vec<String> {
        let liquids = s.materials.liquids.iter().map(|m| m.name.clone());
        liquids
            .chain(s.materials.solids.iter().map(|m| m.name.clone()))
            .collect()
    };
    assert_eq!(names(&old), names(&today));
    assert!(old
        .materials
        .liquids
        .iter()
        .all(|m| m.look == gloop::scene::Look::Glassy));
    assert!(old.materials.solids.iter().all(|m| !m.see_through));
}

#[test]
fn a_newer_format_is_refused() {
    let mut bytes = sample().to_binary();
    bytes[8..12].copy_from_slice(&(SCENE_FORMAT_VERSION + 1).to_le_bytes());
    let msg = message(Scene::from_binary(&bytes, Path::new("future.gloop")));
    assert!(
        msg.contains("future.gloop") && msg.contains("newer"),
        "{msg}"
    );
    let mut json: serde_json::Value = serde_json::from_str(&sample().to_json()).unwrap();
    json["version"] = (SCENE_FORMAT_VERSION + 1).into();
    let msg = message(Scene::from_json(
        &json.to_string(),
        Path::new("future.json"),
    ));
    assert!(
        msg.contains("future.json") && msg.contains("newer"),
        "{msg}"
    );
}

#[test]
fn an_unknown_material_is_named() {
    let mut scene = sample();
    scene.objects[1].role = gloop::scene::Role::Obstacle {
        material: "unobtainium".into(),
    };
    let msg = message(scene.validate());
    assert!(
        msg.contains("Floor") && msg.contains("unobtainium"),
        "{msg}"
    );
}

#[test]
fn an_open_liquid_mesh_is_named() {
    let mut scene = sample();
    scene.objects[0].mesh.triangles.pop();
    let msg = message(scene.validate());
    assert!(msg.contains("Liquid") && msg.contains("closed"), "{msg}");
}

#[test]
fn nan_in_a_transform_is_named() {
    let mut scene = sample();
    let mut m = Mat4::IDENTITY;
    m.w_axis.y = f32::NAN;
    scene.objects[2].motion = Motion::Rigid {
        first_frame: 1,
        matrices: vec![Mat4::IDENTITY, m],
    };
    let msg = message(scene.validate());
    assert!(
        msg.contains("Wall -x") && msg.contains("frame 2") && msg.contains("NaN"),
        "{msg}"
    );
}

#[test]
fn a_radius_over_the_particle_cap_is_refused() {
    let mut scene = sample();
    scene.settings.particle_radius = 0.0002;
    let msg = message(scene.validate());
    assert!(
        msg.contains("max_particles") && msg.contains("particle_radius"),
        "{msg}"
    );
    scene.settings.particle_radius = f32::NAN;
    assert!(message(scene.validate()).contains("particle_radius"));
    scene.settings.particle_radius = 0.005;
    scene.objects[0].mesh.vertices[0] = Vec3::splat(f32::INFINITY);
    assert!(message(scene.validate()).contains("Liquid"));
}

/// A liquid of less than half a particle's volume (2r)³ is refused by validation, before any
/// bake starts: the fill holds round(V / (2r)³) particles, wherever the liquid sits.
#[test]
fn a_liquid_too_small_for_one_particle_is_refused_naming_it() {
    let r = 0.005;
    let mut scene = sample();
    scene.settings.particle_radius = r;
    // 0.6 of a cell across, around a lattice point: 0.22 of a particle's volume.
    scene.objects.push(common::liquid_box(
        "Droplet",
        Vec3::splat(0.4 * r),
        Vec3::splat(1.6 * r),
    ));
    let msg = message(scene.validate());
    assert!(
        msg.contains("'Droplet'") && msg.contains("too small") && msg.contains("particle_radius"),
        "{msg}"
    );
    // 0.8 of a cell across, between lattice points: half a particle's volume, so one (the
    // lattice-cell count gave none).
    scene.objects.last_mut().unwrap().mesh =
        gloop::geometry::box_mesh(Vec3::splat(1.2 * r), Vec3::splat(2.8 * r));
    scene
        .validate()
        .expect("half a particle's volume holds one");
    // One lattice cell, exactly around one point: it holds that particle.
    scene.objects.last_mut().unwrap().mesh =
        gloop::geometry::box_mesh(Vec3::ZERO, Vec3::splat(2.0 * r));
    scene
        .validate()
        .expect("a liquid of one particle is accepted");
}
