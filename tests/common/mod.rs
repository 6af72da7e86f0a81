//! Small scenes for the solver tests.
#![allow(dead_code)]

use glam::{Mat4, Vec3};
use gloop::geometry::box_mesh;
use gloop::scene::{presets, Domain, Materials, Motion, Role, Scene, SceneObject, Settings};

pub fn settings(radius: f32, frames: i32) -> Settings {
    Settings {
        fps: 24.0,
        frame_start: 1,
        frame_end: frames,
        particle_radius: radius,
        substeps: 4,
        moves: 6,
        domain: Domain {
            min: Vec3::splat(-1.0),
            max: Vec3::splat(1.0),
            periodic: [false; 3],
        },
        ..Settings::default()
    }
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

/// A block of honey filling the bottom of a steel tank: a floor slab and four wall slabs,
/// placed so the liquid lattice starts exactly at contact distance from every wall.
pub fn resting_block(radius: f32, frames: i32) -> Scene {
    let s = 2.0 * radius;
    let n = Vec3::new(8.0, 8.0, 6.0);
    let size = n * s;
    let gap = radius * 1.5; // object particle radius: contact distance = r + 1.5 r
    let t = 3.0 * s; // wall thickness
    let h = size.z * 2.0;
    let lo = Vec3::new(-gap, -gap, -gap);
    let hi = Vec3::new(size.x + gap, size.y + gap, h);
    let mut objects = vec![liquid_box("Block", Vec3::ZERO, size)];
    objects.push(obstacle_box(
        "Floor",
        Vec3::new(lo.x - t, lo.y - t, lo.z - t),
        Vec3::new(hi.x + t, hi.y + t, lo.z),
    ));
    objects.push(obstacle_box(
        "Wall -x",
        Vec3::new(lo.x - t, lo.y - t, lo.z),
        Vec3::new(lo.x, hi.y + t, h),
    ));
    objects.push(obstacle_box(
        "Wall +x",
        Vec3::new(hi.x, lo.y - t, lo.z),
        Vec3::new(hi.x + t, hi.y + t, h),
    ));
    objects.push(obstacle_box(
        "Wall -y",
        Vec3::new(lo.x, lo.y - t, lo.z),
        Vec3::new(hi.x, lo.y, h),
    ));
    objects.push(obstacle_box(
        "Wall +y",
        Vec3::new(lo.x, hi.y, lo.z),
        Vec3::new(hi.x, hi.y + t, h),
    ));
    Scene::new(settings(radius, frames), materials(), objects)
}
