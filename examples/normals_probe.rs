//! The mesher's stages on one cached frame, and how far its shading normals (the field's,
//! `surface::field_normals`) lie from the facets' own vertex normals (issue 41).
//!
//! Usage: cargo run --release --example normals_probe -- CACHE_DIR FRAME [--max-error E]
//!        [--runs N]
//! Prints each stage's median wall time over the runs (the meshing benchmark's stage names),
//! and percentiles of the angle between field and facet normals.

use std::path::PathBuf;

use glam::Vec3;
use gloop::cache::{read_particles, CacheDir, Manifest};
use gloop::scene::Scene;
use gloop::surface::{mesh_particles_timed, ObstacleSurface, SurfaceSettings};

fn main() -> gloop::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let cache = CacheDir::new(PathBuf::from(&args[0]));
    let frame: i32 = args[1].parse().expect("a frame number");
    let max_error: f32 = value("--max-error").map_or(0.0, |v| v.parse().expect("a number"));
    let runs: usize = value("--runs").map_or(3, |v| v.parse().expect("a count"));
    let manifest = Manifest::read(&cache.manifest())?;
    let scene = Scene::load(&cache.scene())?;
    let obstacles = ObstacleSurface::of_scene(&scene, frame);
    let particles = read_particles(&cache.particles(frame))?;
    let settings = SurfaceSettings {
        max_error,
        ..SurfaceSettings::default()
    };
    let mut times: Vec<Vec<(&'static str, f64)>> = Vec::new();
    let mut mesh = None;
    for _ in 0..runs {
        let (m, stages) = mesh_particles_timed(
            &particles.position,
            &particles.velocity,
            &particles.colour,
            manifest.particle_radius,
            &settings,
            &obstacles,
        );
        times.push(stages.iter().map(|(n, d)| (*n, d.as_secs_f64())).collect());
        mesh = Some(m);
    }
    let mesh = mesh.expect("at least one run");
    println!(
        "frame {frame}: {} particles, {} vertices, {} triangles, max_error {max_error}",
        particles.position.len(),
        mesh.positions.len(),
        mesh.triangles.len()
    );
    let mut total = 0.0;
    for (k, (name, _)) in times[0].iter().enumerate() {
        let mut t: Vec<f64> = times.iter().map(|run| run[k].1).collect();
        t.sort_by(f64::total_cmp);
        let median = t[t.len() / 2];
        total += median;
        println!("  {name:<40} {:8.1} ms", median * 1e3);
    }
    println!("  {:<40} {:8.1} ms", "total", total * 1e3);

    let mut facets = vec![Vec3::ZERO; mesh.positions.len()];
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|i| mesh.positions[i as usize]);
        let n = (b - a).cross(c - a);
        for &i in t {
            facets[i as usize] += n;
        }
    }
    let mut angles: Vec<f32> = facets
        .iter()
        .zip(&mesh.normals)
        .map(|(f, n)| {
            f.normalize_or_zero()
                .dot(*n)
                .clamp(-1.0, 1.0)
                .acos()
                .to_degrees()
        })
        .collect();
    angles.sort_by(f32::total_cmp);
    let at = |p: f32| angles[((angles.len() - 1) as f32 * p) as usize];
    println!(
        "field against facet normals: median {:.1}°, p90 {:.1}°, p99 {:.1}°, p99.9 {:.1}°, max {:.1}°; over 90°: {}",
        at(0.5),
        at(0.9),
        at(0.99),
        at(0.999),
        at(1.0),
        angles.iter().filter(|&&a| a > 90.0).count()
    );
    let ball = Vec3::new(0.0, 0.0, 0.12);
    let mut hist = std::collections::BTreeMap::new();
    for ((p, f), n) in mesh.positions.iter().zip(&facets).zip(&mesh.normals) {
        if f.normalize_or_zero().dot(*n) < 0.0 {
            let d = ((p.distance(ball) - 0.035) / manifest.particle_radius).round() as i32;
            let dz = ((p.z - 0.03) / manifest.particle_radius).round() as i32;
            *hist.entry((d.min(20), dz.min(20))).or_insert(0) += 1;
        }
    }
    println!("flipped by (distance from ball in r, height over plate in r): {hist:?}");
    Ok(())
}
