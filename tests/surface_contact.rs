//! Contact: liquid resting on an obstacle meshes down to it (within 0.25 r) and never deeper into
//! it than the contact face's offset, on a floor and on a ball; the same particles meshed
//! without the obstacle float above.

use glam::Vec3;
use gloop::surface::{
    mesh_particles, mesh_particles_touching, ObstacleSurface, SurfaceMesh, SurfaceSettings,
    CONTACT_OFFSET,
};

const R: f32 = 0.01;

fn floor() -> ObstacleSurface {
    ObstacleSurface {
        vertices: vec![
            Vec3::new(-1.0, -1.0, 0.0),
            Vec3::new(1.0, -1.0, 0.0),
            Vec3::new(1.0, 1.0, 0.0),
            Vec3::new(-1.0, 1.0, 0.0),
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
        transparent: false,
    }
}

/// A coat two particles thick resting on z = 0 as the solver leaves it: centres 2 r and 4 r up,
/// jittered by up to 0.3 r.
fn coat() -> Vec<Vec3> {
    let mut points = Vec::new();
    for k in 0..2 {
        for j in 0..16 {
            for i in 0..16 {
                let n = points.len() as u32;
                let jitter = |s: u32| {
                    ((n.wrapping_mul(2_654_435_761).wrapping_add(s * 40_503) >> 8) % 1000) as f32
                        / 1000.0
                        - 0.5
                };
                let base = Vec3::new(i as f32, j as f32, 1.0 + k as f32) * 2.0 * R;
                points.push(base + Vec3::new(jitter(1), jitter(2), jitter(3)) * 0.6 * R);
            }
        }
    }
    points
}

/// The lowest vertex of the coat's middle (away from its rim), in particle radii above z = 0.
fn bottom_in_middle(mesh: &SurfaceMesh) -> f32 {
    mesh.positions
        .iter()
        .filter(|p| (8.0 * R..22.0 * R).contains(&p.x) && (8.0 * R..22.0 * R).contains(&p.y))
        .map(|p| p.z / R)
        .fold(f32::INFINITY, f32::min)
}

#[test]
fn a_coat_on_a_floor_reaches_it_and_never_passes_through() {
    let settings = SurfaceSettings::default();
    let touching = mesh_particles_touching(&coat(), &[], &[], R, &settings, &[floor()]);
    let lowest = touching
        .positions
        .iter()
        .map(|p| p.z / R)
        .fold(f32::MAX, f32::min);
    // The contact face lies inside the opaque floor by the offset, never deeper.
    assert!(
        lowest >= -CONTACT_OFFSET - 1e-4,
        "a vertex {lowest} r below the floor"
    );
    let bottom = bottom_in_middle(&touching);
    assert!(
        bottom <= 0.25,
        "the coat's bottom floats {bottom} r above the floor"
    );
    // Without the floor the same particles' mesh ends well above it.
    let floating = bottom_in_middle(&mesh_particles(&coat(), &[], &[], R, &settings));
    assert!(floating > 0.5, "{floating}");
    let report = gloop::surface::quality::measure(&touching);
    assert!(
        report.is_closed_manifold(),
        "contact left the mesh open: {report:?}"
    );
}

#[test]
fn a_coat_on_a_ball_hugs_it() {
    // A ball of radius 20 r as an icosphere-like UV mesh, and particles 2 r off its top cap.
    let radius = 20.0 * R;
    let (rings, segments) = (48, 96);
    let mut vertices = Vec::new();
    for i in 0..=rings {
        let theta = std::f32::consts::PI * i as f32 / rings as f32;
        for j in 0..segments {
            let phi = std::f32::consts::TAU * j as f32 / segments as f32;
            vertices.push(
                radius
                    * Vec3::new(
                        theta.sin() * phi.cos(),
                        theta.sin() * phi.sin(),
                        theta.cos(),
                    ),
            );
        }
    }
    let mut triangles = Vec::new();
    for i in 0..rings {
        for j in 0..segments {
            let a = (i * segments + j) as u32;
            let b = (i * segments + (j + 1) % segments) as u32;
            let (c, d) = (a + segments as u32, b + segments as u32);
            triangles.push([a, c, d]);
            triangles.push([a, d, b]);
        }
    }
    let ball = ObstacleSurface {
        vertices,
        triangles,
        transparent: false,
    };
    let mut particles = Vec::new();
    for j in -5..=5 {
        for i in -5..=5 {
            let p = Vec3::new(i as f32, j as f32, 0.0) * 2.0 * R;
            if p.length() < 9.0 * R {
                let on_ball = Vec3::new(p.x, p.y, (radius * radius - p.length_squared()).sqrt());
                particles.push(on_ball * (1.0 + 2.0 * R / radius));
            }
        }
    }
    let mesh = mesh_particles_touching(
        &particles,
        &[],
        &[],
        R,
        &SurfaceSettings::default(),
        &[ball],
    );
    // Under the cap's middle the mesh comes down to the ball and into it by the offset, no
    // deeper (the UV mesh's flat facets lie up to 0.04 r inside the true sphere).
    let depths: Vec<f32> = mesh
        .positions
        .iter()
        .filter(|p| p.x.hypot(p.y) < 5.0 * R)
        .map(|p| (p.length() - radius) / R)
        .collect();
    let lowest = depths.iter().cloned().fold(f32::MAX, f32::min);
    assert!(lowest > -CONTACT_OFFSET - 0.05, "{lowest} r into the ball");
    assert!(lowest < 0.25, "the coat floats {lowest} r above the ball");
}
