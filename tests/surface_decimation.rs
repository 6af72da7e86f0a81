//! Decimation (issue 33): far fewer triangles, the same surface within 0.25 r (symmetric
//! Hausdorff distance against the undecimated mesh of the same particles), still closed.

use glam::Vec3;
use gloop::surface::bench::bench_particles;
use gloop::surface::hausdorff::hausdorff;
use gloop::surface::{mesh_particles, quality, SurfaceMesh, SurfaceSettings};

const R: f32 = 0.01;

fn mesh(particles: &[Vec3], max_error: f32) -> SurfaceMesh {
    let settings = SurfaceSettings {
        max_error,
        ..Default::default()
    };
    mesh_particles(particles, &[], &[], R, &settings)
}

/// A jittered slab with drops above it (the meshing benchmark's liquid), a ball, and a
/// thread two particles thick, so flat, round and thin parts are all judged.
fn liquid() -> Vec<Vec3> {
    let mut p = bench_particles(4000, R);
    let centre = Vec3::new(0.2, 0.2, 0.5);
    for i in -6i32..=6 {
        for j in -6i32..=6 {
            for k in -6i32..=6 {
                let q = Vec3::new(i as f32, j as f32, k as f32) * 2.0 * R;
                if q.length() <= 12.0 * R {
                    p.push(centre + q);
                }
            }
        }
    }
    for i in 0..60 {
        for (dy, dz) in [(0.0, 0.0), (1.7, 0.3), (0.4, 1.8)] {
            p.push(Vec3::new(-0.3, 0.1 + dy * R, 0.3 + dz * R) + Vec3::X * (i as f32 * 1.9 * R));
        }
    }
    p
}

#[test]
fn decimated_surface_stays_within_a_quarter_radius_with_a_fraction_of_the_triangles() {
    let particles = liquid();
    let full = mesh(&particles, 0.0);
    let slim = mesh(&particles, 0.02);
    let (full_report, slim_report) = (quality::measure(&full), quality::measure(&slim));
    assert!(slim_report.is_closed_manifold(), "{slim_report:?}");
    assert_eq!(slim_report.components, full_report.components);
    assert!(
        slim.triangles.len() * 4 < full.triangles.len(),
        "{} of {} triangles kept",
        slim.triangles.len(),
        full.triangles.len()
    );
    let (to, from) = hausdorff(
        (&full.positions, &full.triangles),
        (&slim.positions, &slim.triangles),
        R,
    );
    assert!(
        to.max(from) <= 0.25 * R,
        "Hausdorff {:.3} r / {:.3} r",
        to / R,
        from / R
    );
    // The liquid's volume is kept to a percent.
    let change = (slim_report.volume / full_report.volume - 1.0).abs();
    assert!(change < 0.01, "volume changed by {change}");
}
