//! `sphere`: a ball of radius R = 10 r of randomly jittered particles must mesh to one closed,
//! manifold, outward-wound component that is round (issue 33): volume within 2% of the true
//! sphere, RMS radial deviation <= 0.5% of R, vertex normals within 3° RMS of radial.
//!
//! The judged ball is a shell-sampled ball (concentric shells 2r apart, evenly spread points on
//! each, so its particles are round at the liquid's density) with every particle jittered
//! (`noise::jitter`), so the mesher meets disorder as in a simulation.
//!
//! Two more balls are meshed and judged only for being one closed, manifold surface of the
//! right volume; their roundness is shown for information:
//! - the lattice ball of the earlier surface issue (lattice of spacing 2r centred on a lattice
//!   point, the particles within R). Its particles are not round themselves: digitising a ball
//!   of 5 spacings leaves the poles about 0.45 r flatter than the diagonals, so a surface true
//!   to the particles deviates from a sphere by ~1% of R (its "particles' own RMS radial
//!   deviation" figure). Its roundness criterion is retired (issue 33);
//! - the shell ball without jitter.
//!
//! Radial deviation is measured from the sphere of the liquid's volume (N (2r)^3, what the
//! surface encloses by construction).
//!
//! What was tried on the lattice ball (measured 2026-11, lattice RMS radial / R and normal
//! angle; shells alongside): default 1.03% / 3.39° (shells 0.22% / 1.01°); twice the mesh
//! smoothing 0.95% / 2.91° (shells 0.34%); four times 0.98% / 2.82° (shells 0.67%,
//! over-smoothed); Taubin lambda|mu (0.5, -0.53) 1.69% / 9.7° (keeps the lattice's facets);
//! kernel support 6 r 0.99% / 2.73°; 8 r (the largest allowed, 2x the default, 8x the field's
//! cost, and it thickens strands) 0.75% / 2.08°. None reaches 0.5%: the deviation is the
//! particles' own low-order shape (flat poles, 1.2% of R), not bumps.

use std::f64::consts::PI;

use glam::{DVec3, Vec3};

use crate::surface::{mesh_particles, quality, SurfaceMesh, SurfaceSettings};
use crate::validation::noise::{jitter, uniform_noise};
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

/// Evenly spread directions (Fibonacci sphere), rotated by `twist` radians about z.
fn fibonacci(n: usize, twist: f64) -> Vec<DVec3> {
    let golden = PI * (3.0 - 5f64.sqrt());
    (0..n)
        .map(|i| {
            let z = 1.0 - 2.0 * (i as f64 + 0.5) / n as f64;
            let s = (1.0 - z * z).sqrt();
            let phi = golden * i as f64 + twist;
            DVec3::new(s * phi.cos(), s * phi.sin(), z)
        })
        .collect()
}

/// Particles on concentric shells 2r apart (radii r, 3r, ...), each holding as many evenly
/// spread particles as its area needs at spacing 2r, filling a ball of `ball_radius`.
pub fn shell_ball(centre: Vec3, ball_radius: f32, r: f32) -> Vec<Vec3> {
    let a = 2.0 * r as f64;
    let shells = (ball_radius as f64 / a).round() as usize;
    let mut points = Vec::new();
    for k in 0..shells {
        let rho = (k as f64 + 0.5) * a;
        // Shell volume / cell volume, so the ball holds the sphere's volume.
        let volume = 4.0 / 3.0 * PI * (((k + 1) as f64 * a).powi(3) - (k as f64 * a).powi(3));
        let n = (volume / a.powi(3)).round().max(1.0) as usize;
        for d in fibonacci(n, k as f64) {
            points.push(centre + (d * rho).as_vec3());
        }
    }
    points
}

/// [`shell_ball`] with every particle jittered by up to r/4 along each axis.
pub fn jittered_ball(centre: Vec3, ball_radius: f32, r: f32, seed: u32) -> Vec<Vec3> {
    let mut noise = uniform_noise(seed);
    shell_ball(centre, ball_radius, r)
        .into_iter()
        .map(|p| p + jitter(&mut noise, r))
        .collect()
}

fn mesh_ball(particles: &[Vec3], r: f32, settings: &SurfaceSettings) -> SurfaceMesh {
    let white = vec![[1.0; 3]; particles.len()];
    let still = vec![Vec3::ZERO; particles.len()];
    mesh_particles(particles, &still, &white, r, settings)
}

/// The particles' own radius in each of `directions`: the volume of their cells (cubes of side
/// 2r, sampled 3^3 times) within a 20° cone, as the radius of a ball with that volume per solid
/// angle.
fn particle_shape_radius(particles: &[Vec3], centre: Vec3, r: f32, dirs: &[DVec3]) -> Vec<f64> {
    let cos_cone = 20f64.to_radians().cos();
    let a = 2.0 * r as f64;
    let mut samples = Vec::with_capacity(particles.len() * 27);
    for p in particles {
        for k in 0..27 {
            let o =
                DVec3::new((k % 3) as f64, (k / 3 % 3) as f64, (k / 9) as f64) / 3.0 - 1.0 / 3.0;
            samples.push((p - centre).as_dvec3() + o * a);
        }
    }
    let solid = 2.0 * PI * (1.0 - cos_cone);
    dirs.iter()
        .map(|u| {
            let count = samples
                .iter()
                .filter(|s| s.length() > 0.0 && s.normalize().dot(*u) >= cos_cone)
                .count();
            let volume = count as f64 * a.powi(3) / 27.0;
            (3.0 * volume / solid).cbrt()
        })
        .collect()
}

/// The checks for balls of `radius_in_r` particle radii meshed with `settings`.
pub fn sphere_checks(radius_in_r: f32, settings: &SurfaceSettings) -> Vec<Check> {
    let r = 0.01;
    // Off the grid's origin so nothing lines up with cube corners by accident.
    let centre = Vec3::new(0.123, -0.071, 0.402);
    let big_r = radius_in_r * r;
    let true_volume = 4.0 / 3.0 * PI * (big_r as f64).powi(3);
    let mut checks = Vec::new();
    for (name, particles) in [
        ("jittered", jittered_ball(centre, big_r, r, 0x0BA1_1001)),
        ("lattice", lattice_ball(centre, big_r, r)),
        ("shells", shell_ball(centre, big_r, r)),
    ] {
        let mesh = mesh_ball(&particles, r, settings);
        let report = quality::measure(&mesh);
        let liquid_volume = particles.len() as f64 * (2.0 * r as f64).powi(3);
        let r_eq = (liquid_volume * 3.0 / (4.0 * PI)).cbrt();
        let (radial, normal_deg) = quality::sphere_deviation(&mesh, centre, r_eq as f32);
        let sphericity = PI.cbrt() * (6.0 * report.volume).powf(2.0 / 3.0) / report.area;
        let c = |what: &str| format!("{name}: {what}");
        checks.extend([
            Check::info(c("particles"), particles.len() as f64),
            Check::info(c("triangles"), report.triangles as f64),
            Check::at_most(c("connected components"), report.components as f64, 1.0),
            Check::at_least(c("connected components"), report.components as f64, 1.0),
            Check::at_most(
                c("edges not in exactly two triangles"),
                report.bad_edges as f64,
                0.0,
            ),
            Check::at_most(
                c("edges wound inconsistently"),
                report.flipped_edges as f64,
                0.0,
            ),
            Check::at_most(c("degenerate triangles"), report.degenerate as f64, 0.0),
            Check::at_least(c("enclosed volume (m^3, > 0)"), report.volume, 1e-12),
            Check::near(
                c("volume / true sphere volume"),
                report.volume / true_volume,
                1.0,
                0.02,
            ),
            Check::info(
                c("volume / liquid volume N(2r)^3"),
                report.volume / liquid_volume,
            ),
            Check::info(c("1 - sphericity"), 1.0 - sphericity),
        ]);
        if name == "jittered" {
            checks.push(Check::at_most(
                c("RMS radial deviation / R"),
                radial / big_r as f64,
                0.005,
            ));
            checks.push(Check::at_most(
                c("RMS normal angle from radial (deg)"),
                normal_deg,
                3.0,
            ));
        } else {
            // The thresholds, shown but not judged: the issue judges the jittered ball
            // (see the module documentation).
            checks.push(Check::shown_against(
                c("RMS radial deviation / R"),
                radial / big_r as f64,
                "issue: <= 0.005",
            ));
            checks.push(Check::shown_against(
                c("RMS normal angle from radial (deg)"),
                normal_deg,
                "issue: <= 3",
            ));
        }
        if name == "lattice" {
            // The lattice's own shape (sampled in 200 directions) and the mesh's distance from
            // it: the earlier issue's criterion, now shown for information.
            let dirs = fibonacci(200, 0.0);
            let shape = particle_shape_radius(&particles, centre, r, &dirs);
            let mean = shape.iter().sum::<f64>() / shape.len() as f64;
            let spread =
                (shape.iter().map(|s| (s - mean).powi(2)).sum::<f64>() / shape.len() as f64).sqrt();
            checks.push(Check::info(
                c("particles' own RMS radial deviation / R"),
                spread / big_r as f64,
            ));
            let misfit = mesh
                .positions
                .iter()
                .map(|x| {
                    let d = (*x - centre).as_dvec3();
                    let u = d.normalize();
                    let k = (0..dirs.len())
                        .max_by(|&i, &j| dirs[i].dot(u).total_cmp(&dirs[j].dot(u)))
                        .unwrap_or(0);
                    (d.length() - shape[k] * r_eq / mean).powi(2)
                })
                .sum::<f64>()
                / mesh.positions.len().max(1) as f64;
            checks.push(Check::shown_against(
                c("RMS deviation from the particles' shape / R"),
                misfit.sqrt() / big_r as f64,
                "earlier issue: <= 0.01",
            ));
        }
    }
    checks
}

pub fn run() -> crate::Result<Vec<Check>> {
    Ok(sphere_checks(10.0, &SurfaceSettings::default()))
}
