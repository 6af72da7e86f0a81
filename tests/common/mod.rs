//! Small scenes for the solver tests.
#![allow(dead_code)]

use glam::{Mat4, Vec3};
use gloop::geometry::box_mesh;
use gloop::scene::{presets, Materials, Motion, Role, Scene, SceneObject, Settings};

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
