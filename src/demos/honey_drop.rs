//! Figure 1 of the paper: a spherical drop of honey falls onto a ball suspended several inches
//! above the floor, coats it and pulls into strings underneath.
//!
//! Sizes: at r = 1 mm the drop of radius 26 mm fills to ~9,200 particles on the 2 mm lattice,
//! and the ball of radius 35 mm (an icosphere of 5,120 triangles) samples to ~4,000 object particles (Table 1: 9,198 + 3,966).
//!
//! A wooden plate under the ball (not in Table 1: the paper does not say what its floor was)
//! catches the honey that drains off: without it, nearly all of it left the domain through
//! the floor (9,220 particles at the start, 482 at frame 200), and the demo ended with an
//! empty-looking ball. The plate is a thin box, 16 cm square: the honey drains off the ball's
//! underside onto its middle and, at 19 Pa·s, spreads only a few centimetres in the seconds
//! left. Its ~13,400 object particles (both faces are sampled) cost little, as only those
//! near the liquid take part.

use glam::Vec3;

use super::{demo_settings, domain, liquid_at, shapes, static_obstacle};
use crate::scene::{presets, Materials, Scene, SolidMaterial};

pub const PARTICLE_RADIUS: f32 = 0.001;
pub const DROP_RADIUS: f32 = 0.026;
pub const BALL_RADIUS: f32 = 0.035;
/// The ball hangs 12 cm above the floor (the domain's bottom), 9 cm above the plate.
pub const BALL_CENTRE: Vec3 = Vec3::new(0.0, 0.0, 0.12);
/// The plate's top, 3 cm above the floor (its object particles keep 20 radii from the
/// domain's walls, as every demo's obstacles do).
pub const PLATE_TOP: f32 = 0.03;
pub const PLATE_HALF_WIDTH: f32 = 0.08;
pub const PLATE_THICKNESS: f32 = 0.006;
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
        80_000,
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
    let plate_wood = presets::wood();
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
        static_obstacle(
            "plate",
            &plate_wood.name,
            shapes::box_mesh(Vec3::new(
                PLATE_HALF_WIDTH,
                PLATE_HALF_WIDTH,
                PLATE_THICKNESS / 2.0,
            )),
            Vec3::new(0.0, 0.0, PLATE_TOP - PLATE_THICKNESS / 2.0),
        ),
    ];
    let materials = Materials {
        liquids: vec![honey],
        solids: vec![steel, plate_wood],
        adhesion_overrides: Vec::new(),
    };
    Scene::new(settings, materials, objects)
}
