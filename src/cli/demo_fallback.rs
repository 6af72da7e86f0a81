//! TEMPORARY stand-in for `gloop::demos` (written by another helper) with the same
//! signatures, so the CLI builds and runs before that lands. Delete on merge.

use glam::{Mat4, Vec3};
use gloop::scene::{presets, Materials, Motion, Role, SceneObject, Settings, TriMesh};
use gloop::Scene;

pub const DEMO_NAMES: &[&str] = &["honey-drop", "paint-drops", "fan"];

pub fn demo_scene(name: &str) -> Option<Scene> {
    let settings = Settings {
        frame_end: 200,
        particle_radius: 0.0025,
        ..Settings::default()
    };
    let ball = |material: &str| SceneObject {
        name: "Ball".into(),
        role: Role::Obstacle {
            material: material.into(),
        },
        mesh: sphere(Vec3::ZERO, 0.05, 24, 12),
        motion: Motion::default(),
    };
    let drop = |name: &str, material: &str, centre: Vec3| SceneObject {
        name: name.into(),
        role: Role::Liquid {
            material: material.into(),
            initial_velocity: Vec3::ZERO,
        },
        mesh: sphere(centre, 0.025, 16, 8),
        motion: Motion::default(),
    };
    match name {
        "honey-drop" => Some(Scene::new(
            Settings {
                moves: 8,
                ..settings
            },
            Materials {
                liquids: vec![presets::honey()],
                solids: vec![presets::steel()],
                adhesion_overrides: vec![],
            },
            vec![
                ball("steel"),
                drop("Honey", "honey", Vec3::new(0.0, 0.0, 0.1)),
            ],
        )),
        "paint-drops" => Some(Scene::new(
            settings,
            Materials {
                liquids: vec![
                    presets::paint("red paint", [0.8, 0.05, 0.05]),
                    presets::paint("yellow paint", [0.9, 0.8, 0.05]),
                    presets::paint("blue paint", [0.05, 0.1, 0.8]),
                ],
                solids: vec![presets::plastic()],
                adhesion_overrides: vec![],
            },
            vec![
                ball("plastic"),
                drop("Red", "red paint", Vec3::new(0.0, 0.0, 0.09)),
                drop("Yellow", "yellow paint", Vec3::new(0.01, 0.0, 0.16)),
                drop("Blue", "blue paint", Vec3::new(-0.01, 0.0, 0.23)),
            ],
        )),
        "fan" => {
            let blades = cuboid(Vec3::new(-0.1, -0.01, -0.004), Vec3::new(0.1, 0.01, 0.004));
            let matrices = (0..=200)
                .map(|f| Mat4::from_rotation_z(f as f32 * 0.15))
                .collect();
            Some(Scene::new(
                Settings {
                    substeps: 9,
                    moves: 3,
                    particle_radius: 0.003,
                    ..settings
                },
                Materials {
                    liquids: vec![presets::gel()],
                    solids: vec![presets::plastic()],
                    adhesion_overrides: vec![],
                },
                vec![
                    SceneObject {
                        name: "Fan".into(),
                        role: Role::Obstacle {
                            material: "plastic".into(),
                        },
                        mesh: blades,
                        motion: Motion::Rigid {
                            first_frame: 1,
                            matrices,
                        },
                    },
                    SceneObject {
                        name: "Gel".into(),
                        role: Role::Liquid {
                            material: "gel".into(),
                            initial_velocity: Vec3::new(0.0, 0.0, -1.0),
                        },
                        mesh: cuboid(Vec3::new(-0.04, -0.04, 0.05), Vec3::new(0.04, 0.04, 0.13)),
                        motion: Motion::default(),
                    },
                ],
            ))
        }
        _ => None,
    }
}

/// A closed axis-aligned box, triangles counter-clockwise seen from outside.
fn cuboid(min: Vec3, max: Vec3) -> TriMesh {
    let vertices = (0..8)
        .map(|i| {
            Vec3::new(
                if i & 1 == 0 { min.x } else { max.x },
                if i & 2 == 0 { min.y } else { max.y },
                if i & 4 == 0 { min.z } else { max.z },
            )
        })
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let triangles = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    TriMesh {
        vertices,
        triangles,
    }
}

/// A closed UV sphere.
fn sphere(centre: Vec3, radius: f32, segments: u32, rings: u32) -> TriMesh {
    let mut vertices = vec![centre + Vec3::Z * radius];
    for ring in 1..rings {
        let theta = std::f32::consts::PI * ring as f32 / rings as f32;
        for s in 0..segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            let dir = Vec3::new(
                theta.sin() * phi.cos(),
                theta.sin() * phi.sin(),
                theta.cos(),
            );
            vertices.push(centre + dir * radius);
        }
    }
    let bottom = vertices.len() as u32;
    vertices.push(centre - Vec3::Z * radius);
    let at = |ring: u32, s: u32| 1 + (ring - 1) * segments + s % segments;
    let mut triangles = Vec::new();
    for s in 0..segments {
        triangles.push([0, at(1, s), at(1, s + 1)]);
        triangles.push([bottom, at(rings - 1, s + 1), at(rings - 1, s)]);
        for ring in 1..rings - 1 {
            let (a, b) = (at(ring, s), at(ring, s + 1));
            let (c, d) = (at(ring + 1, s), at(ring + 1, s + 1));
            triangles.push([a, c, d]);
            triangles.push([a, d, b]);
        }
    }
    TriMesh {
        vertices,
        triangles,
    }
}
