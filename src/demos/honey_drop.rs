//! Figure 1 of the paper: a spherical drop of honey falls onto a ball suspended several inches
//! above the floor, coats it and pulls into strings underneath.
//!
//! Sizes: at r = 1 mm the drop of radius 26 mm fills to ~9,200 particles on the 2 mm lattice,
//! and the ball of radius 35 mm (an icosphere of 5,120 triangles) samples to ~4,000 object particles (Table 1: 9,198 + 3,966).

use glam::Vec3;

use super::{demo_settings, domain, liquid_at, shapes, static_obstacle};
use crate::scene::{presets, Materials, Scene, SolidMaterial};

pub const PARTICLE_RADIUS: f32 = 0.001;
pub const DROP_RADIUS: f32 = 0.026;
pub const BALL_RADIUS: f32 = 0.035;
/// The ball hangs 12 cm above the floor (the domain's bottom).
pub const BALL_CENTRE: Vec3 = Vec3::new(0.0, 0.0, 0.12);
/// The drop starts with its lowest point 3 cm above the ball: it lands at about 0.8 m/s.
pub const DROP_CENTRE: Vec3 = Vec3::new(0.0, 0.0, 0.12 + BALL_RADIUS + 0.03 + DROP_RADIUS);

pub fn scene() -> Scene {
    let settings = demo_settings(
        PARTICLE_RADIUS,
        (4, 8),
        domain(
            Vec3::new(-0.15, -0.15, 0.0),
            Vec3::new(0.15, 0.15, DROP_CENTRE.z + DROP_RADIUS + 0.03),
        ),
        60_000,
    );
    // The paper raises the ball's pull on the honey above gravity, so honey clings, slides
    // round to the underside and is drawn into strings there rather than dropping at once.
    let steel = SolidMaterial {
        stickiness: 12.0,
        // Honey wets steel and does not slip on it: near no-slip friction (fraction of the
        // touching liquid's velocity lost per 1/30 s).
        friction: 0.95,
        ..presets::steel()
    };
    let honey = presets::honey();
    let objects = vec![
        liquid_at(
            "honey drop",
            &honey.name,
            shapes::icosphere(DROP_RADIUS, 4),
            DROP_CENTRE,
        ),
        static_obstacle(
            "ball",
            &steel.name,
            shapes::icosphere(BALL_RADIUS, 4),
            BALL_CENTRE,
        ),
    ];
    let materials = Materials {
        liquids: vec![honey],
        solids: vec![steel],
        adhesion_overrides: Vec::new(),
    };
    Scene::new(settings, materials, objects)
}
