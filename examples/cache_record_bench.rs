//! Benchmark: what the cache lock and the per-frame records (size + XXH3 hash of each frame
//! file, and the manifest that holds them) cost, beside what a honey-drop frame costs to bake.
//!
//! `cargo run --release --example cache_record_bench -- [FRAMES] [REPEATS]`
//! (default 6 frames of the honey-drop demo, each cost timed 15 times; medians).
//!
//! Per frame, in one run: solving it, meshing it (as the bake's mesher thread does, obstacles
//! included), then the bookkeeping a bake adds per frame: reading back and hashing its
//! particle and surface files (from the page cache, as right after writing), and the growth
//! of the manifest it rewrites (and syncs) once per frame, as it did before records: one that
//! records 250 frames (a long bake's) against one without records. The lock is taken once
//! per bake, not per frame; it is timed the same way and counted in full against one frame
//! anyway.

use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use gloop::cache::{write_particles, CacheDir, CacheLock, FileRecord, Manifest};
use gloop::demos::honey_drop;
use gloop::surface::{mesh_liquid, write_surface_ply, ObstacleSurface, SurfaceSettings};
use gloop::Simulation;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        0.5 * (values[n / 2 - 1] + values[n / 2])
    }
}

/// Median seconds of `repeats` runs of `f`.
fn time_median(repeats: usize, mut f: impl FnMut()) -> f64 {
    let times = (0..repeats)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    median(times)
}

/// A manifest of `scene` recording `frames` frames, with these files' records.
fn long_manifest(scene: &gloop::Scene, frames: i32, p: &FileRecord, s: &FileRecord) -> Manifest {
    let mut manifest = Manifest::for_scene(scene);
    manifest.surface = Some(SurfaceSettings::default());
    for frame in 1..=frames {
        manifest.record_particles(frame, p.clone());
        manifest.record_surface(frame, s.clone());
    }
    manifest.last_complete_frame = Some(frames);
    manifest
}

fn size_of(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().len()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let frames: i32 = args.first().and_then(|a| a.parse().ok()).unwrap_or(6);
    let repeats: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(15);
    let scene = honey_drop::scene();
    let radius = scene.settings.particle_radius;
    let settings = SurfaceSettings::default();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let cache = CacheDir::new(dir.path());
    let mut sim = Simulation::new(&scene).expect("the demo builds");
    let stop = AtomicBool::new(false);

    let (mut solve, mut mesh, mut hash, mut manifest_write, mut manifest_bare, mut lock) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    let (mut particle_bytes, mut surface_bytes) = (vec![], vec![]);
    println!("honey-drop: {} liquid particles", sim.liquid().len());
    println!("frame  solve s  mesh s  hash ms  manifest ms  lock ms");
    for _ in 0..frames {
        let t = Instant::now();
        sim.step_frame(&stop).expect("the demo steps");
        let solve_s = t.elapsed().as_secs_f64();
        let frame = sim.frame();
        let (particles, surface) = (cache.particles(frame), cache.surface(frame));
        write_particles(&particles, frame, sim.liquid()).unwrap();

        let t = Instant::now();
        let obstacles = ObstacleSurface::of_scene(&scene, frame);
        let surface_mesh = mesh_liquid(sim.liquid(), radius, &settings, &obstacles);
        let mesh_s = t.elapsed().as_secs_f64();
        write_surface_ply(&surface, &surface_mesh).unwrap();

        let hash_s = time_median(repeats, || {
            FileRecord::of_file(&particles).unwrap();
            FileRecord::of_file(&surface).unwrap();
        });
        let (p, s) = (
            FileRecord::of_file(&particles).unwrap(),
            FileRecord::of_file(&surface).unwrap(),
        );
        let recorded = long_manifest(&scene, 250, &p, &s);
        let manifest_s = time_median(repeats, || recorded.write(&cache.manifest()).unwrap());
        // What the same rewrite cost before records: a manifest without them.
        let bare = Manifest::for_scene(&scene);
        let bare_s = time_median(repeats, || bare.write(&cache.manifest()).unwrap());
        let lock_s = time_median(repeats, || {
            drop(CacheLock::acquire(dir.path(), "bench").unwrap());
        });
        println!(
            "{frame:>5}  {solve_s:>7.3}  {mesh_s:>6.3}  {:>7.2}  {:>11.2}  {:>7.3}",
            hash_s * 1e3,
            manifest_s * 1e3,
            lock_s * 1e3
        );
        solve.push(solve_s);
        mesh.push(mesh_s);
        hash.push(hash_s);
        manifest_write.push(manifest_s);
        manifest_bare.push(bare_s);
        lock.push(lock_s);
        particle_bytes.push(size_of(&particles) as f64);
        surface_bytes.push(size_of(&surface) as f64);
    }

    let frame_s = median(solve.clone()) + median(mesh.clone());
    // What records add: hashing, and the manifest's growth (the bare rewrite existed before).
    let added_s =
        median(hash.clone()) + (median(manifest_write.clone()) - median(manifest_bare.clone()));
    let lock_s = median(lock);
    let pct = |s: f64| 100.0 * s / frame_s;
    println!("\nmedians over {frames} frames ({repeats} timings each for the bookkeeping):");
    println!(
        "  files per frame: particles {:.0} KB, surface {:.0} KB",
        median(particle_bytes) / 1e3,
        median(surface_bytes) / 1e3
    );
    println!(
        "  honey-drop frame: solve {:.3} s + mesh {:.3} s = {frame_s:.3} s",
        median(solve.clone()),
        median(mesh)
    );
    println!(
        "  hash both files: {:.2} ms ({:.3}% of a frame)",
        median(hash.clone()) * 1e3,
        pct(median(hash))
    );
    println!(
        "  manifest rewrite (once a frame) with 250 frames recorded: {:.2} ms (without records \
         {:.2} ms; mostly the sync)",
        median(manifest_write) * 1e3,
        median(manifest_bare) * 1e3
    );
    println!(
        "  cache lock take + release (once per bake): {:.3} ms ({:.4}% of a frame)",
        lock_s * 1e3,
        pct(lock_s)
    );
    println!(
        "  lock + records: {:.2} ms = {:.3}% of a frame (of the solve alone: {:.3}%)",
        (added_s + lock_s) * 1e3,
        pct(added_s + lock_s),
        100.0 * (added_s + lock_s) / median(solve)
    );
}
