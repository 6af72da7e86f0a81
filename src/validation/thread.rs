//! `thread`: straight threads of liquid of radius 1.5, 2, 3 and 4 r must mesh as round, even
//! cylinders (issue 33): along the middle of each, the cross-section area varies by at most 5%
//! (coefficient of variation over planes r/4 apart: no beads) and the RMS radial deviation
//! from the best-fit cylinder is at most 3% of that cylinder's radius.
//!
//! The particles fill the cylinder at the liquid's density, one particle per (2r)³: layers 2r
//! apart across the axis, layer k holding round((k+1) n) − round(k n) particles for the n =
//! πR²/(2r)² a layer's volume needs (so thin threads alternate, e.g. 2, 2, 1, … at 1.5 r), spread
//! over the disc as a sunflower (Vogel) pattern — each at the middle of an equal share of the
//! disc's area, the golden-angle spiral running on from layer to layer as in phyllotaxis —
//! then each particle jittered (`noise::jitter`). No lattice direction lies along the axis, and the axis is tilted against
//! the marching-cubes grid.
//!
//! The radius judged against is the fitted cylinder's, from the mesh itself: the mesher is free
//! to make the thread a little thicker or thinner (its volume is the particles' by
//! construction); what it must not make is beads, twists or flats. The ends are left out: a
//! stretch of R + 6r at each (the cap, then the field's support of 4r and the smoothing's
//! reach beyond it).

use std::f32::consts::PI;

use glam::Vec3;

use super::cylinder;
use super::noise::{jitter, uniform_noise};
use super::Check;
use crate::surface::{mesh_particles, quality, SurfaceSettings};

/// The threads' radii, in particle radii (issue 33).
pub const RADII: [f32; 4] = [1.5, 2.0, 3.0, 4.0];
/// Each thread's length in particle radii: long enough that its judged middle holds several
/// times the field's support after the ends are left out.
pub const LENGTH: f32 = 60.0;

/// The cylinder's axis: tilted against the grid's axes and its diagonals.
fn axis() -> Vec3 {
    Vec3::new(0.8, 0.5, 0.33).normalize()
}

/// Particles filling a cylinder of radius `radius` from `start` along the unit `axis`, `length`
/// long, at particle radius `r` (see the module documentation).
pub fn jittered_thread(
    start: Vec3,
    axis: Vec3,
    length: f32,
    radius: f32,
    r: f32,
    seed: u32,
) -> Vec<Vec3> {
    let spacing = 2.0 * r;
    let (u, v) = axis.any_orthonormal_pair();
    let per_layer = PI * radius * radius / (spacing * spacing);
    let golden = PI * (3.0 - 5f32.sqrt());
    let mut noise = uniform_noise(seed);
    let layers = (length / spacing).round() as usize;
    let mut points = Vec::new();
    for k in 0..layers {
        let count =
            (per_layer * (k + 1) as f32).round() as usize - (per_layer * k as f32).round() as usize;
        let centre = start + (k as f32 + 0.5) * spacing * axis;
        for i in 0..count {
            let rho = radius * ((i as f32 + 0.5) / count as f32).sqrt();
            // The spiral runs on from layer to layer, so each particle's neighbours in the
            // next layer are spread around it rather than bunched on one side.
            let angle = golden * points.len() as f32;
            let offset = rho * (angle.cos() * u + angle.sin() * v);
            points.push(centre + offset + jitter(&mut noise, r));
        }
    }
    points
}

/// The checks of threads of `radii` (particle radii), each `length` particle radii long.
pub fn thread_checks(radii: &[f32], length: f32, settings: &SurfaceSettings) -> Vec<Check> {
    let r = 0.01f32;
    let start = Vec3::new(0.0123, -0.0311, 0.0472);
    let axis = axis();
    let mut checks = Vec::new();
    for (k, &radius) in radii.iter().enumerate() {
        let particles = jittered_thread(
            start,
            axis,
            length * r,
            radius * r,
            r,
            0x5EED_0001 + k as u32,
        );
        let mesh = mesh_particles(&particles, &[], &[], r, settings);
        let margin = ((radius + 6.0) * r) as f64;
        let stretch = (margin, (length * r) as f64 - margin);
        let c = |what: &str| format!("R = {radius} r: {what}");
        checks.push(Check::info(c("particles"), particles.len() as f64));
        checks.push(Check::info(
            c("connected components"),
            quality::measure(&mesh).components as f64,
        ));
        let Some(shape) = cylinder::measure(&mesh, start, axis, stretch, 0.25 * r as f64) else {
            checks.push(Check::at_least(
                c("mesh vertices along the thread"),
                0.0,
                1.0,
            ));
            continue;
        };
        checks.extend([
            Check::at_most(
                c("cross-section area, std / mean"),
                shape.area_variation(),
                0.05,
            ),
            Check::at_most(
                c("RMS off best-fit cylinder / its radius"),
                shape.rms_deviation / shape.radius,
                0.03,
            ),
            Check::info(c("fitted radius (r)"), shape.radius / r as f64),
            Check::info(
                c("deepest bead or neck |area/mean - 1|"),
                shape.worst_area_departure(),
            ),
            Check::info(
                c("fitted axis off the thread's (deg)"),
                shape
                    .axis
                    .dot(axis.as_dvec3())
                    .abs()
                    .min(1.0)
                    .acos()
                    .to_degrees(),
            ),
        ]);
    }
    checks
}

pub fn run() -> crate::Result<Vec<Check>> {
    Ok(thread_checks(&RADII, LENGTH, &SurfaceSettings::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_holds_the_liquid_of_its_cylinder_and_stays_inside_it() {
        let r = 0.01;
        for radius in RADII {
            let points = jittered_thread(Vec3::ZERO, axis(), 60.0 * r, radius * r, r, 3);
            let volume = points.len() as f32 * (2.0 * r).powi(3);
            let cylinder = PI * (radius * r).powi(2) * 60.0 * r;
            assert!(
                (volume / cylinder - 1.0).abs() < 0.02,
                "{radius}: {volume} {cylinder}"
            );
            for p in &points {
                let h = p.dot(axis());
                let off = (*p - h * axis()).length();
                // Jitter reaches at most √3 × r/4 in any direction.
                assert!(off <= (radius + 0.44) * r, "{radius}: {off}");
                assert!((-0.44 * r..=60.44 * r).contains(&h));
            }
        }
    }
}
