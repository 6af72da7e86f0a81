//! Small scenes for the solver tests.
#![allow(dead_code)]

use glam::{Mat4, Vec3};
use gloop::geometry::box_mesh;
use gloop::scene::{
    presets, Emission, Materials, Motion, Role, Scene, SceneObject, Settings, TriMesh,
};

pub fn settings(radius: f32, frames: i32) -> Settings {
    gloop::validation::scenes::small_scene_settings(radius, frames)
}

pub fn materials() -> Materials {
    Materials {
        liquids: vec![presets::honey()],
        solids: vec![presets::steel()],
        adhesion_overrides: vec![],
    }
}

pub fn liquid_box(name: &str, lo: Vec3, hi: Vec3) -> SceneObject {
    SceneObject {
        name: name.into(),
        role: Role::Liquid {
            material: "honey".into(),
            initial_velocity: Vec3::ZERO,
        },
        mesh: box_mesh(lo, hi),
        motion: Motion::default(),
    }
}

pub fn obstacle_box(name: &str, lo: Vec3, hi: Vec3) -> SceneObject {
    SceneObject {
        name: name.into(),
        role: Role::Obstacle {
            material: "steel".into(),
        },
        mesh: box_mesh(lo, hi),
        motion: Motion::Static {
            matrix: Mat4::IDENTITY,
        },
    }
}

/// A block of honey filling the bottom of a steel tank (objects "Liquid", "Floor", "Wall ±x/±y").
pub fn resting_block(radius: f32, frames: i32) -> Scene {
    gloop::validation::scenes::liquid_in_tank(radius, [8, 8, 6], presets::honey(), frames)
}

/// A honey nozzle: a flat disc of `radius` metres centred at `centre`, facing down (-z), made
/// of a fan of 48 triangles.
pub fn disc_nozzle(name: &str, centre: Vec3, radius: f32, emission: Emission) -> SceneObject {
    let segments = 48;
    let mut vertices = vec![centre];
    vertices.extend((0..segments).map(|k| {
        let angle = std::f32::consts::TAU * k as f32 / segments as f32;
        centre + radius * Vec3::new(angle.cos(), angle.sin(), 0.0)
    }));
    // Wound clockwise seen from above, so the normal points down.
    let triangles = (0..segments)
        .map(|k| [0, 1 + (k + 1) % segments, 1 + k])
        .collect();
    SceneObject {
        name: name.into(),
        role: Role::Emitter {
            material: "honey".into(),
            emission,
        },
        mesh: TriMesh {
            vertices,
            triangles,
        },
        motion: Motion::default(),
    }
}
