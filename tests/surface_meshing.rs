//! Behaviour of `mesh_particles` on the inputs artists produce: empty frames, lone drops,
//! strands, separate drops, mixed paints, moving liquid; and its determinism.

use glam::Vec3;
use gloop::surface::{mesh_particles, quality, SurfaceMesh, SurfaceSettings};

const R: f32 = 0.01;

fn mesh(positions: &[Vec3], velocities: &[Vec3], colours: &[[f32; 3]]) -> SurfaceMesh {
    mesh_particles(
        positions,
        velocities,
        colours,
        R,
        &SurfaceSettings::default(),
    )
}

fn block(nx: i32, ny: i32, nz: i32, origin: Vec3) -> Vec<Vec3> {
    let mut v = Vec::new();
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                v.push(origin + Vec3::new(i as f32, j as f32, k as f32) * 2.0 * R);
            }
        }
    }
    v
}

#[test]
fn empty_frame_gives_a_valid_empty_mesh() {
    let m = mesh(&[], &[], &[]);
    assert!(m.positions.is_empty() && m.triangles.is_empty());
    assert_eq!(m.normals.len(), 0);
    // Non-finite particles and a bad radius are ignored, not a panic.
    let nan = [Vec3::NAN, Vec3::splat(f32::INFINITY)];
    assert!(mesh(&nan, &[], &[]).is_empty());
    assert!(mesh_particles(&[Vec3::ZERO], &[], &[], 0.0, &SurfaceSettings::default()).is_empty());
    let odd = SurfaceSettings {
        resolution: f32::NAN,
        smoothness: -3.0,
        ..Default::default()
    };
    assert!(!mesh_particles(&[Vec3::ZERO], &[], &[], R, &odd).is_empty());
}

#[test]
fn isolated_particles_become_closed_round_drops_without_degenerate_triangles() {
    let centres: Vec<Vec3> = (0..6)
        .map(|i| Vec3::new(0.1 * i as f32 + 0.0037 * i as f32, 0.013 * i as f32, -0.021))
        .collect();
    let m = mesh(&centres, &[], &[]);
    let report = quality::measure(&m);
    assert!(report.is_closed_manifold(), "{report:?}");
    assert_eq!(report.components, 6);
    assert_eq!(report.degenerate, 0);
    // Each drop holds one particle's volume, (2r)^3.
    let expected = 6.0 * (2.0 * R as f64).powi(3);
    assert!(
        (report.volume / expected - 1.0).abs() < 0.03,
        "{}",
        report.volume / expected
    );
    for (x, n) in m.positions.iter().zip(&m.normals) {
        let c = centres
            .iter()
            .min_by(|a, b| a.distance(*x).total_cmp(&b.distance(*x)))
            .unwrap();
        let d = (*x - *c).length() / R;
        assert!((1.0..1.5).contains(&d), "drop radius {d} r");
        assert!(n.dot((*x - *c).normalize()) > 0.9, "normal not outward");
    }
}

#[test]
fn a_one_particle_strand_stays_one_connected_tube() {
    // A gently curved chain of 30 particles, 2r apart: honey's thread.
    let chain: Vec<Vec3> = (0..30)
        .map(|i| {
            let t = i as f32 * 2.0 * R;
            Vec3::new(t, 0.15 * (t / (10.0 * R)).sin() * R * 4.0, 0.0)
        })
        .collect();
    let m = mesh(&chain, &[], &[]);
    let report = quality::measure(&m);
    assert!(report.is_closed_manifold(), "{report:?}");
    assert_eq!(report.components, 1);
    assert_eq!(report.degenerate, 0);
    // Tube radius near the middle: the strand's volume (2r)^3 per particle is a tube of radius
    // ~1.13 r; no vertex there may come closer than 0.6 r to the axis (no beading necks).
    let middle: Vec<f32> = m
        .positions
        .iter()
        .filter(|x| (x.x - 30.0 * R).abs() < 10.0 * R)
        .map(|x| {
            let c = chain
                .iter()
                .min_by(|a, b| a.distance(*x).total_cmp(&b.distance(*x)))
                .unwrap();
            let along = (chain[16] - chain[14]).normalize();
            let d = *x - *c;
            (d - along * d.dot(along)).length() / R
        })
        .collect();
    let min = middle.iter().cloned().fold(f32::INFINITY, f32::min);
    let mean = middle.iter().sum::<f32>() / middle.len() as f32;
    assert!(min > 0.6, "neck of {min} r");
    assert!((0.9..1.5).contains(&mean), "tube radius {mean} r");

    // Stretched to 2.8 r between particles (a thread thinning before it breaks): still one.
    let stretched: Vec<Vec3> = chain.iter().map(|p| *p * 1.4).collect();
    let report = quality::measure(&mesh(&stretched, &[], &[]));
    assert!(report.is_closed_manifold(), "{report:?}");
    assert_eq!(report.components, 1);
    assert_eq!(report.degenerate, 0);
}

#[test]
fn separate_drops_are_meshed_apart_and_touching_ones_merge() {
    let a = block(4, 4, 4, Vec3::ZERO);
    let far: Vec<Vec3> = block(3, 3, 3, Vec3::new(6.0 * 2.0 * R + 3.5 * R, 0.0, 0.0));
    let near: Vec<Vec3> = block(3, 3, 3, Vec3::new(4.0 * 2.0 * R, 0.0, 0.0));
    let apart = quality::measure(&mesh(&[a.clone(), far].concat(), &[], &[]));
    assert_eq!(apart.components, 2);
    assert!(apart.is_closed_manifold());
    let merged = quality::measure(&mesh(&[a, near].concat(), &[], &[]));
    assert_eq!(merged.components, 1);
    assert!(merged.is_closed_manifold());
}

#[test]
fn colours_mix_where_paints_meet_and_velocities_are_carried() {
    let particles = block(12, 6, 6, Vec3::ZERO);
    let colours: Vec<[f32; 3]> = particles
        .iter()
        .map(|p| {
            if p.x < 11.0 * R {
                [1.0, 0.0, 0.0]
            } else {
                [0.0, 0.0, 1.0]
            }
        })
        .collect();
    let v = Vec3::new(0.5, -1.0, 0.25);
    let velocities = vec![v; particles.len()];
    let m = mesh(&particles, &velocities, &colours);
    assert!(!m.is_empty());
    for (x, c) in m.positions.iter().zip(&m.colours) {
        assert!(c.iter().all(|k| (0.0..=1.0).contains(k)));
        assert!((c[0] + c[2] - 1.0).abs() < 1e-4 && c[1].abs() < 1e-6);
        if x.x < 2.0 * R {
            assert!(c[0] > 0.99, "far red end is red: {c:?}");
        }
        if x.x > 20.0 * R {
            assert!(c[2] > 0.99, "far blue end is blue: {c:?}");
        }
    }
    // At the interface the paints blend.
    let mixed = m
        .colours
        .iter()
        .filter(|c| (0.3..0.7).contains(&c[0]))
        .count();
    assert!(mixed > 20, "only {mixed} blended vertices");
    for u in &m.velocities {
        assert!((*u - v).length() < 1e-5);
    }
}

#[test]
fn output_is_bit_identical_with_one_or_two_threads() {
    let mut particles = block(10, 8, 6, Vec3::new(0.013, -0.2, 0.05));
    particles.extend(block(1, 1, 1, Vec3::new(0.5, 0.0, 0.0)));
    let colours: Vec<[f32; 3]> = (0..particles.len())
        .map(|i| [(i % 7) as f32 / 7.0, 0.5, 0.2])
        .collect();
    let velocities: Vec<Vec3> = particles.iter().map(|p| *p * 3.0).collect();
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| mesh(&particles, &velocities, &colours))
    };
    let (one, two) = (run(1), run(2));
    assert!(!one.is_empty());
    let bits = |m: &SurfaceMesh| {
        let mut v: Vec<u32> = Vec::new();
        for (((p, n), c), u) in m
            .positions
            .iter()
            .zip(&m.normals)
            .zip(&m.colours)
            .zip(&m.velocities)
        {
            v.extend(p.to_array().map(f32::to_bits));
            v.extend(n.to_array().map(f32::to_bits));
            v.extend(c.map(f32::to_bits));
            v.extend(u.to_array().map(f32::to_bits));
        }
        v.extend(m.triangles.iter().flatten());
        v
    };
    assert_eq!(bits(&one), bits(&two));
}

#[test]
fn a_monolayer_sheet_stays_one_sheet_without_holes() {
    let sheet: Vec<Vec3> = (0..196)
        .map(|k| Vec3::new((k % 14) as f32 * 2.0 * R, (k / 14) as f32 * 2.0 * R, 0.0013))
        .collect();
    let m = mesh(&sheet, &[], &[]);
    let report = quality::measure(&m);
    assert!(report.is_closed_manifold(), "{report:?}");
    assert_eq!(report.components, 1);
    assert_eq!(report.degenerate, 0);
    // Euler characteristic V - E + F = 2: a sphere-like closed surface, no holes.
    let euler =
        report.vertices as i64 - (report.triangles * 3 / 2) as i64 + report.triangles as i64;
    assert_eq!(euler, 2);
}

#[test]
fn a_simulation_frame_meshes_like_its_arrays() {
    let mut liquid = gloop::sim::LiquidParticles::default();
    for p in block(5, 5, 3, Vec3::ZERO) {
        liquid.push(p, Vec3::X, 0, [0.9, 0.7, 0.1]);
    }
    let settings = SurfaceSettings::default();
    let m = gloop::surface::mesh_liquid(&liquid, R, &settings, &[]);
    assert!(!m.is_empty());
    assert_eq!(m, mesh(&liquid.position, &liquid.velocity, &liquid.colour));
}
