//! Tiny scenes and folder helpers shared by the bake and CLI integration tests.
//! (A folder module, so cargo does not build it as a test of its own.)
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use glam::Vec3;
use gloop::scene::{presets, Materials, Motion, Role, SceneObject, Settings, TriMesh};
use gloop::Scene;

/// A closed axis-aligned box, triangles counter-clockwise seen from outside.
pub fn cuboid(min: Vec3, max: Vec3) -> TriMesh {
    gloop::geometry::box_mesh(min, max)
}

/// About 216 honey particles (a 6×6×6 block at r = 1 cm) dropping onto a steel slab, a few
/// frames long: small enough for CI, big enough for neighbours, contact and viscosity.
pub fn tiny_scene(frame_end: i32) -> Scene {
    let settings = Settings {
        fps: 24.0,
        frame_start: 1,
        frame_end,
        particle_radius: 0.01,
        substeps: 2,
        moves: 3,
        max_particles: 20_000,
        ..Settings::default()
    };
    let materials = Materials {
        liquids: vec![presets::honey()],
        solids: vec![presets::steel()],
        adhesion_overrides: vec![],
    };
    let objects = vec![
        SceneObject {
            name: "Slab".into(),
            role: Role::Obstacle {
                material: "steel".into(),
            },
            mesh: cuboid(Vec3::new(-0.15, -0.15, -0.03), Vec3::new(0.15, 0.15, 0.0)),
            motion: Motion::default(),
        },
        SceneObject {
            name: "Blob".into(),
            role: Role::Liquid {
                material: "honey".into(),
                initial_velocity: Vec3::new(0.0, 0.0, -0.5),
            },
            mesh: cuboid(Vec3::new(-0.06, -0.06, 0.03), Vec3::new(0.06, 0.06, 0.15)),
            motion: Motion::default(),
        },
    ];
    Scene::new(settings, materials, objects)
}

/// Every file in `dir` (not recursive) with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

/// Only the particle files of a snapshot.
pub fn particle_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    snapshot(dir)
        .into_iter()
        .filter(|(name, _)| name.starts_with("particles_"))
        .collect()
}

/// Runs the `gloop` binary built for the tests.
pub fn gloop(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_gloop"))
        .args(args)
        .output()
        .unwrap()
}

/// A path as a command-line argument.
pub fn arg(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// What `gloop args` printed, after checking that it succeeded.
pub fn stdout_of(args: &[&str]) -> String {
    let out = gloop(args);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}
