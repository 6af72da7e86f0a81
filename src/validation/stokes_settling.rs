//! `stokes-settling` (issue 44): a steel ball (R = 5 mm, 7,800 kg/m³) released on the axis of
//! a cylindrical tank of honey (1,420 kg/m³, 19 Pa·s) sinks at the Stokes terminal velocity
//! v∞ = 2 (ρ_s − ρ_f) g R² / (9 μ), slowed by the tank's wall as Haberman & Sayre (1958) give
//! for a sphere on a cylinder's axis (PHYSICS_NOTES §7), λ = R / R_c:
//!
//!   v / v∞ = (1 − 2.105 λ + 2.0865 λ³ − 1.7068 λ⁵ + 0.72603 λ⁶) / (1 − 0.75857 λ⁵).
//!
//! The ball's velocity relaxes within 2 ρ_s R² / (9 μ) ≈ 2 ms, so after the liquid's first
//! settling the ball's mean speed over a window of frames is the terminal one. It starts 9 R
//! above the floor and ends the window more than 7 R above it, under 4 R of honey.
//!
//! The tank (an open tube over a floor) and the ball have no-slip surfaces (friction 1, the
//! Stokes problem's boundary condition; the implicit viscosity's wall terms scale with the
//! solid's friction) and no stickiness, which would add a pull Stokes does not have.

use glam::{Mat4, Vec3};

use crate::demos::shapes;
use crate::geometry::{box_mesh, OBJECT_PARTICLE_RADIUS_FACTOR};
use crate::scene::{presets, Materials, Motion, Role, Scene, SceneObject, TriMesh};
use crate::validation::scenes::small_scene_settings;
use crate::validation::Check;
use crate::Simulation;

const BALL_RADIUS: f32 = 0.005;
const BALL_DENSITY: f32 = 7800.0;
/// The tank's inner radius: λ = 0.25.
const TANK_RADIUS: f32 = 0.02;
/// Particle radius: the ball is five particle diameters across.
const PARTICLE_RADIUS: f32 = 0.001;
/// The ball's centre at the start, above the floor, and the liquid's depth.
const START_HEIGHT: f32 = 9.0 * BALL_RADIUS;
const DEPTH: f32 = 14.0 * BALL_RADIUS;
/// Frames skipped while the liquid settles under its own weight, then frames measured.
const SETTLING_FRAMES: i32 = 6;
const MEASURED_FRAMES: i32 = 12;

/// The Haberman & Sayre factor v / v∞ at λ = R / R_c.
pub fn haberman_sayre(lambda: f64) -> f64 {
    let l = lambda;
    (1.0 - 2.105 * l + 2.0865 * l.powi(3) - 1.7068 * l.powi(5) + 0.72603 * l.powi(6))
        / (1.0 - 0.75857 * l.powi(5))
}

/// An open tube (no caps) along z from `bottom` to `bottom + height`: a tank's wall,
/// two-sided.
fn tube(radius: f32, bottom: f32, height: f32, segments: u32) -> TriMesh {
    let n = segments;
    let vertices = (0..2)
        .flat_map(|level| {
            (0..n).map(move |i| {
                let a = std::f32::consts::TAU * i as f32 / n as f32;
                Vec3::new(
                    radius * a.cos(),
                    radius * a.sin(),
                    bottom + level as f32 * height,
                )
            })
        })
        .collect();
    let triangles = (0..n)
        .flat_map(|i| {
            let j = (i + 1) % n;
            [[i, j, n + j], [i, n + j, n + i]]
        })
        .collect();
    TriMesh {
        vertices,
        triangles,
    }
}

pub fn scene() -> Scene {
    let r = PARTICLE_RADIUS;
    let gap = r * OBJECT_PARTICLE_RADIUS_FACTOR;
    let frames = 1 + SETTLING_FRAMES + MEASURED_FRAMES;
    let mut settings = small_scene_settings(r, frames);
    settings.max_particles = 200_000;
    let no_slip = presets::solid("no-slip steel", 1.0, 0.0);
    let materials = Materials {
        liquids: vec![presets::honey()],
        solids: vec![no_slip.clone()],
        adhesion_overrides: vec![],
    };
    let at = |z: f32| Mat4::from_translation(Vec3::new(0.0, 0.0, z));
    let ball_centre = START_HEIGHT;
    // The liquid: the tank's inside less the ball (and a contact gap round both), as one
    // closed mesh of two shells (the fill counts crossings, so the ball's shell is a hole).
    let column = shapes::transformed(
        &shapes::cylinder(TANK_RADIUS - gap, DEPTH, 96),
        at(0.5 * DEPTH),
    );
    let hole = shapes::transformed(&shapes::icosphere(BALL_RADIUS + gap, 3), at(ball_centre));
    let tall = 2.0 * DEPTH;
    let solid = |name: &str, mesh: TriMesh| SceneObject {
        name: name.into(),
        role: Role::Obstacle {
            material: no_slip.name.clone(),
        },
        mesh,
        motion: Motion::default(),
    };
    let wall = TANK_RADIUS + 4.0 * r;
    let floor_bottom = -gap - 6.0 * r;
    let objects = vec![
        SceneObject {
            name: "Honey".into(),
            role: Role::Liquid {
                material: "honey".into(),
                initial_velocity: Vec3::ZERO,
            },
            mesh: shapes::merged(&[column, hole]),
            motion: Motion::default(),
        },
        solid(
            "Floor",
            box_mesh(
                Vec3::new(-wall, -wall, floor_bottom),
                Vec3::new(wall, wall, -gap),
            ),
        ),
        // The wall stands on the floor's bottom face: no gap for the liquid to leave by.
        solid(
            "Wall",
            tube(TANK_RADIUS, floor_bottom, tall - floor_bottom, 96),
        ),
        SceneObject {
            name: "Ball".into(),
            role: Role::RigidBody {
                material: no_slip.name.clone(),
                density: Some(BALL_DENSITY),
                mass: None,
                initial_velocity: Vec3::ZERO,
            },
            mesh: shapes::icosphere(BALL_RADIUS, 3),
            motion: Motion::Static {
                matrix: at(ball_centre),
            },
        },
    ];
    Scene::new(settings, materials, objects)
}

pub struct Settling {
    /// Mean sinking speed over the measured frames, m/s.
    pub speed: f64,
    /// The same over the window's first and second halves (steadiness).
    pub first_half: f64,
    pub second_half: f64,
    /// Height of the ball's centre above the floor at the window's end, in ball radii.
    pub end_height_radii: f64,
    pub liquid_particles: usize,
    pub seconds_per_frame: f64,
}

pub fn settle() -> crate::Result<Settling> {
    let scene = scene();
    let fps = scene.settings.fps as f64;
    let mut sim = Simulation::new(&scene)?;
    let cancel = std::sync::atomic::AtomicBool::new(false);
    let started = std::time::Instant::now();
    for _ in 0..SETTLING_FRAMES {
        sim.step_frame(&cancel)?;
    }
    let height = |sim: &Simulation| sim.rigid_bodies()[0].state.position.z;
    let mut heights = vec![height(&sim)];
    for _ in 0..MEASURED_FRAMES {
        sim.step_frame(&cancel)?;
        heights.push(height(&sim));
    }
    let frames = (SETTLING_FRAMES + MEASURED_FRAMES) as f64;
    let speed_over = |a: usize, b: usize| (heights[a] - heights[b]) * fps / (b - a) as f64;
    let n = heights.len() - 1;
    Ok(Settling {
        speed: speed_over(0, n),
        first_half: speed_over(0, n / 2),
        second_half: speed_over(n / 2, n),
        end_height_radii: heights[n] / BALL_RADIUS as f64,
        liquid_particles: sim.liquid().len(),
        seconds_per_frame: started.elapsed().as_secs_f64() / frames,
    })
}

pub fn run() -> crate::Result<Vec<Check>> {
    let honey = presets::honey();
    let (rho_f, mu) = (honey.density as f64, honey.viscosity as f64);
    let (rho_s, radius) = (BALL_DENSITY as f64, BALL_RADIUS as f64);
    let unbounded = 2.0 * (rho_s - rho_f) * 9.81 * radius * radius / (9.0 * mu);
    let lambda = radius / TANK_RADIUS as f64;
    let expected = unbounded * haberman_sayre(lambda);
    let s = settle()?;
    let reynolds = rho_f * s.speed * 2.0 * radius / mu;
    Ok(vec![
        Check::info("liquid particles", s.liquid_particles as f64),
        Check::info("unbounded Stokes velocity v∞ (m/s)", unbounded),
        Check::info("λ = R / R_tank", lambda),
        Check::info("wall-corrected velocity (Haberman & Sayre) (m/s)", expected),
        Check::near("terminal velocity (m/s)", s.speed, expected, 0.10),
        Check::info("speed over the window's first half (m/s)", s.first_half),
        Check::info("speed over the window's second half (m/s)", s.second_half),
        Check::at_most("Reynolds number", reynolds, 0.1),
        Check::at_least(
            "ball's height above the floor at the end (R)",
            s.end_height_radii,
            5.0,
        ),
        Check::info("seconds per frame", s.seconds_per_frame),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn haberman_sayre_is_one_without_walls_and_slows_with_them() {
        assert_eq!(haberman_sayre(0.0), 1.0);
        // The formula at λ = 0.2, evaluated independently (in Python).
        assert!(
            (haberman_sayre(0.2) - 0.59534).abs() < 1e-4,
            "{}",
            haberman_sayre(0.2)
        );
        assert!(haberman_sayre(0.4) < haberman_sayre(0.2));
    }
}
