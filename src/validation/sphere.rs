//! `sphere`: a lattice ball of radius 10 r (particles on the spacing-2r lattice, centred on a
//! lattice point) must mesh to one closed, manifold, outward-wound component that is round:
//! volume within 2% of the true sphere, RMS radial deviation <= 0.5% of R, vertex normals within
//! 3° RMS of radial.
//!
//! Radial deviation is measured from the sphere of the liquid's volume (N (2r)^3, what the
//! surface encloses by construction), so it measures roundness, not the lattice's digitisation
//! of the volume, which is reported separately.

use glam::Vec3;

use crate::surface::{mesh_particles, quality, SurfaceSettings};
use crate::validation::Check;

/// Particles of a lattice of spacing `2 r` within `ball_radius` of `centre` (a lattice point).
pub fn lattice_ball(centre: Vec3, ball_radius: f32, r: f32) -> Vec<Vec3> {
    let n = (ball_radius / (2.0 * r)).ceil() as i32;
    let mut points = Vec::new();
    for k in -n..=n {
        for j in -n..=n {
            for i in -n..=n {
                let offset = Vec3::new(i as f32, j as f32, k as f32) * 2.0 * r;
                if offset.length() <= ball_radius * (1.0 + 1e-6) {
                    points.push(centre + offset);
                }
            }
        }
    }
    points
}

/// The checks for a ball of `radius_in_r` particle radii meshed with `settings`.
pub fn sphere_checks(radius_in_r: f32, settings: &SurfaceSettings) -> Vec<Check> {
    let r = 0.01;
    // Off the grid's origin so nothing lines up with cube corners by accident.
    let centre = Vec3::new(0.123, -0.071, 0.402);
    let big_r = radius_in_r * r;
    let particles = lattice_ball(centre, big_r, r);
    let white = vec![[1.0; 3]; particles.len()];
    let still = vec![Vec3::ZERO; particles.len()];
    let mesh = mesh_particles(&particles, &still, &white, r, settings);
    let report = quality::measure(&mesh);
    let true_volume = 4.0 / 3.0 * std::f64::consts::PI * (big_r as f64).powi(3);
    let liquid_volume = particles.len() as f64 * (2.0 * r as f64).powi(3);
    let r_eq = (liquid_volume * 3.0 / (4.0 * std::f64::consts::PI)).cbrt();
    let (radial, normal_deg) = quality::sphere_deviation(&mesh, centre, r_eq as f32);
    let sphericity =
        std::f64::consts::PI.cbrt() * (6.0 * report.volume).powf(2.0 / 3.0) / report.area;
    vec![
        Check::info("particles", particles.len() as f64),
        Check::info("triangles", report.triangles as f64),
        Check::at_most("connected components", report.components as f64, 1.0),
        Check::at_least("connected components", report.components as f64, 1.0),
        Check::at_most(
            "edges not shared by exactly two triangles",
            report.bad_edges as f64,
            0.0,
        ),
        Check::at_most(
            "edges wound inconsistently",
            report.flipped_edges as f64,
            0.0,
        ),
        Check::at_most("degenerate triangles", report.degenerate as f64, 0.0),
        Check::at_least(
            "enclosed volume (m^3, must be positive)",
            report.volume,
            1e-12,
        ),
        Check::near(
            "volume / true sphere volume",
            report.volume / true_volume,
            1.0,
            0.02,
        ),
        Check::info(
            "volume / liquid volume N(2r)^3",
            report.volume / liquid_volume,
        ),
        Check::at_most("RMS radial deviation / R", radial / big_r as f64, 0.005),
        Check::at_most("RMS normal angle from radial (deg)", normal_deg, 3.0),
        Check::info("1 - sphericity", 1.0 - sphericity),
    ]
}

pub fn run() -> crate::Result<Vec<Check>> {
    Ok(sphere_checks(10.0, &SurfaceSettings::default()))
}
