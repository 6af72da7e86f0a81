//! `gloop mesh` refuses bad arguments and a damaged manifest radius (issue 35, defects 7
//! and 8): a clear error naming the field, a non-zero exit, in well under a second, and the
//! cache left byte-for-byte as it was (no `null` in manifest.json, no surfaces emptied).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use glam::Vec3;
use gloop::cache::{write_particles, CacheDir, Manifest};
use gloop::sim::LiquidParticles;
use gloop::surface::{write_surface_ply, SurfaceMesh};

mod bake_support;
use bake_support::{snapshot, tiny_scene};

/// A baked-looking cache: three frames of a 4×4×4 block of particles at r = 1 cm, its scene,
/// its manifest, and a non-empty surface per frame.
fn cache_in(dir: &Path, with_scene: bool) {
    let cache = CacheDir::new(dir);
    let scene = tiny_scene(3);
    let mut particles = LiquidParticles::default();
    for i in 0..64 {
        let p = Vec3::new((i % 4) as f32, (i / 4 % 4) as f32, (i / 16) as f32) * 0.02;
        particles.push(p, Vec3::ZERO, 0, [0.8, 0.4, 0.05]);
    }
    let surface = SurfaceMesh {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        normals: vec![Vec3::Z; 3],
        colours: vec![[1.0; 3]; 3],
        velocities: vec![Vec3::ZERO; 3],
        triangles: vec![[0, 1, 2]],
    };
    for frame in 1..=3 {
        write_particles(&cache.particles(frame), frame, &particles).unwrap();
        write_surface_ply(&cache.surface(frame), &surface).unwrap();
    }
    let mut manifest = Manifest::for_scene(&scene);
    manifest.last_complete_frame = Some(3);
    manifest.write(&cache.manifest()).unwrap();
    if with_scene {
        scene.save(&cache.scene()).unwrap();
    }
}

/// Replaces the manifest's particle radius by `value` as written in the JSON text.
fn set_manifest_radius(dir: &Path, value: &str) {
    let path = CacheDir::new(dir).manifest();
    let mut json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    json["particle_radius"] = serde_json::Value::from(0.0);
    let text = serde_json::to_string_pretty(&json).unwrap().replace(
        "\"particle_radius\": 0.0",
        &format!("\"particle_radius\": {value}"),
    );
    assert!(text.contains(value));
    std::fs::write(&path, text).unwrap();
}

/// Runs `gloop mesh DIR args…`; asserts a refusal within a second whose message mentions
/// every one of `expected`, and an untouched cache.
fn assert_refused(dir: &Path, args: &[&str], expected: &[&str]) {
    let before = snapshot(dir);
    let clock = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_gloop"))
        .arg("mesh")
        .arg(dir)
        .args(args)
        .output()
        .unwrap();
    let took = clock.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    for word in expected {
        assert!(stderr.contains(word), "{args:?}: '{word}' not in: {stderr}");
    }
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(took < Duration::from_secs(1), "{args:?} took {took:?}");
    let after = snapshot(dir);
    for (name, bytes) in &before {
        assert!(after.get(name) == Some(bytes), "{args:?} changed {name}");
    }
    // Whatever it refused, the cache still reads.
    Manifest::read(&CacheDir::new(dir).manifest()).unwrap();
}

#[test]
fn non_finite_or_out_of_range_arguments_are_refused_and_the_manifest_stays_readable() {
    let work = tempfile::tempdir().unwrap();
    cache_in(work.path(), true);
    for value in ["NaN", "inf", "-inf", "0", "1e-4", "-1", "100"] {
        assert_refused(
            work.path(),
            &["--resolution", value],
            &["'resolution'", "0.2", "4"],
        );
    }
    for value in ["NaN", "-0.5", "2"] {
        assert_refused(work.path(), &["--smoothness", value], &["'smoothness'"]);
    }
    for value in ["NaN", "inf", "1"] {
        assert_refused(work.path(), &["--max-error", value], &["'max_error'"]);
    }
}

#[test]
fn a_damaged_manifest_radius_is_refused_naming_the_manifest() {
    for with_scene in [true, false] {
        for value in ["1e39", "0", "-1", "1e-7", "-1e39"] {
            let work = tempfile::tempdir().unwrap();
            cache_in(work.path(), with_scene);
            set_manifest_radius(work.path(), value);
            assert_refused(
                work.path(),
                &[],
                &["manifest.json", "particle_radius", "metres"],
            );
        }
    }
}

#[test]
fn without_a_scene_a_radius_far_below_the_particle_spacing_is_refused() {
    // In range (1e-5 m), but the particles are 2 cm apart: each would be meshed alone.
    let work = tempfile::tempdir().unwrap();
    cache_in(work.path(), false);
    set_manifest_radius(work.path(), "0.00002");
    assert_refused(
        work.path(),
        &[],
        &["manifest.json", "particle_radius", "apart"],
    );
}

#[test]
fn a_manifest_radius_that_disagrees_with_the_baked_scene_is_refused() {
    let work = tempfile::tempdir().unwrap();
    cache_in(work.path(), true);
    // In range, but not the 0.01 m the scene was baked at.
    set_manifest_radius(work.path(), "0.02");
    assert_refused(
        work.path(),
        &[],
        &[
            "manifest.json",
            "particle_radius",
            "baked at 0.01",
            "scene.gloop",
        ],
    );
}

#[test]
fn good_arguments_still_mesh_and_record_the_settings() {
    let work = tempfile::tempdir().unwrap();
    cache_in(work.path(), true);
    let out = Command::new(env!("CARGO_BIN_EXE_gloop"))
        .arg("mesh")
        .arg(work.path())
        .args(["--resolution", "0.4", "--smoothness", "0.2"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cache = CacheDir::new(work.path());
    let surface = gloop::surface::read_surface_ply(&cache.surface(2)).unwrap();
    assert!(surface.triangles.len() > 100, "{}", surface.triangles.len());
    let manifest = Manifest::read(&cache.manifest()).unwrap();
    let settings = manifest.surface.unwrap();
    assert_eq!((settings.resolution, settings.smoothness), (0.4, 0.2));
}
