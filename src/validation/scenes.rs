//! Scenes shared by validation and tests.

use glam::{Mat4, Vec3};

use crate::geometry::{box_mesh, OBJECT_PARTICLE_RADIUS_FACTOR};
use crate::scene::{
    presets, Domain, LiquidMaterial, Materials, Motion, Role, Scene, SceneObject, Settings,
};

/// A block of `cells` lattice cells of liquid filling the bottom of a steel tank (a floor and
/// four walls), placed so the lattice starts exactly at contact distance from every wall.
pub fn liquid_in_tank(radius: f32, cells: [u32; 3], liquid: LiquidMaterial, frames: i32) -> Scene {
    let s = 2.0 * radius;
    let size = Vec3::new(cells[0] as f32, cells[1] as f32, cells[2] as f32) * s;
    let gap = radius * OBJECT_PARTICLE_RADIUS_FACTOR;
    let t = 3.0 * s; // wall thickness
    let h = size.z * 2.0 + 4.0 * s;
    let lo = Vec3::splat(-gap);
    let hi = Vec3::new(size.x + gap, size.y + gap, h);
    let slab = |name: &str, a: Vec3, b: Vec3| SceneObject {
        name: name.into(),
        role: Role::Obstacle {
            material: "steel".into(),
        },
        mesh: box_mesh(a, b),
        motion: Motion::Static {
            matrix: Mat4::IDENTITY,
        },
    };
    let material = liquid.name.clone();
    let objects = vec![
        SceneObject {
            name: "Liquid".into(),
            role: Role::Liquid {
                material,
                initial_velocity: Vec3::ZERO,
            },
            mesh: box_mesh(Vec3::ZERO, size),
            motion: Motion::default(),
        },
        slab(
            "Floor",
            Vec3::new(lo.x - t, lo.y - t, lo.z - t),
            Vec3::new(hi.x + t, hi.y + t, lo.z),
        ),
        slab(
            "Wall -x",
            Vec3::new(lo.x - t, lo.y - t, lo.z),
            Vec3::new(lo.x, hi.y + t, h),
        ),
        slab(
            "Wall +x",
            Vec3::new(hi.x, lo.y - t, lo.z),
            Vec3::new(hi.x + t, hi.y + t, h),
        ),
        slab(
            "Wall -y",
            Vec3::new(lo.x, lo.y - t, lo.z),
            Vec3::new(hi.x, lo.y, h),
        ),
        slab(
            "Wall +y",
            Vec3::new(lo.x, hi.y, lo.z),
            Vec3::new(hi.x, hi.y + t, h),
        ),
    ];
    let settings = small_scene_settings(radius, frames);
    let materials = Materials {
        liquids: vec![liquid],
        solids: vec![presets::steel()],
        adhesion_overrides: vec![],
    };
    Scene::new(settings, materials, objects)
}

/// Settings of the small validation and test scenes: 24 fps from frame 1, 4 substeps × 6
/// moves, a 2 m domain around the origin.
pub fn small_scene_settings(radius: f32, frames: i32) -> Settings {
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
