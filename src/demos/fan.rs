//! Figure 6 of the paper: a sticky green gel falls onto the turning blades of a fan — a moving
//! obstacle, given as one world matrix per frame.
//!
//! Sizes: at r = 1 mm the gel ball of radius 49.7 mm fills to ~64,000 particles and the fan
//! (hub and four pitched blades reaching 9.5 cm out) samples to ~8,800 object particles (Table
//! 1: 64,296 + 8,786).

use std::f32::consts::TAU;

use glam::{Mat4, Vec3};

use super::{demo_settings, domain, liquid_at, shapes::FanShape};
use crate::scene::{presets, LiquidMaterial, Materials, Motion, Role, Scene, SceneObject};

pub const PARTICLE_RADIUS: f32 = 0.001;
pub const GEL_RADIUS: f32 = 0.0497;
/// The fan's centre (its hub's middle); it turns about the vertical axis through it.
pub const FAN_CENTRE: Vec3 = Vec3::new(0.0, 0.0, 0.25);
/// Revolutions per second (120 rpm, a slow ceiling fan); 30° per frame at 24 fps.
pub const REVOLUTIONS_PER_SECOND: f32 = 2.0;

pub fn fan_shape() -> FanShape {
    FanShape {
        blades: 4,
        hub_radius: 0.02,
        hub_height: 0.02,
        tip_radius: 0.095,
        blade_width: 0.032,
        blade_thickness: 0.005,
        pitch: 0.35,
        hub_segments: 48,
    }
}

/// The gel starts off the axis, over the blades, its lowest point 3 cm above the fan's top:
/// it meets the blades at about 0.8 m/s.
pub fn gel_centre() -> Vec3 {
    let fan_top = FAN_CENTRE.z + 0.5 * fan_shape().hub_height;
    Vec3::new(0.04, 0.0, fan_top + 0.03 + GEL_RADIUS)
}

/// The fan's world matrix at `frame` (frame 1 = angle 0): a rotation about +z at
/// `REVOLUTIONS_PER_SECOND`, about `FAN_CENTRE`.
pub fn fan_matrix(frame: i32, fps: f32) -> Mat4 {
    let seconds = (frame - 1) as f32 / fps;
    // Reduce the angle to one turn first so late frames keep full f32 precision.
    let turns = (REVOLUTIONS_PER_SECOND * seconds).fract();
    Mat4::from_translation(FAN_CENTRE) * Mat4::from_rotation_z(TAU * turns)
}

pub fn scene() -> Scene {
    let top = gel_centre().z + GEL_RADIUS;
    let settings = demo_settings(
        PARTICLE_RADIUS,
        (9, 3),
        domain(Vec3::new(-0.4, -0.4, 0.0), Vec3::new(0.4, 0.4, top + 0.05)),
        300_000,
    );
    let gel = LiquidMaterial {
        colour: [0.05, 0.55, 0.08],
        ..presets::gel()
    };
    let plastic = presets::plastic();
    let matrices = (settings.frame_start..=settings.frame_end)
        .map(|f| fan_matrix(f, settings.fps))
        .collect();
    let objects = vec![
        liquid_at(
            "gel",
            &gel.name,
            super::shapes::icosphere(GEL_RADIUS, 5),
            gel_centre(),
        ),
        SceneObject {
            name: "fan".into(),
            role: Role::Obstacle {
                material: plastic.name.clone(),
            },
            mesh: fan_shape().mesh(),
            motion: Motion::Rigid {
                first_frame: settings.frame_start,
                matrices,
            },
        },
    ];
    let materials = Materials {
        liquids: vec![gel],
        solids: vec![plastic],
        adhesion_overrides: Vec::new(),
    };
    Scene::new(settings, materials, objects)
}
