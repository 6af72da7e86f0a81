//! `gloop mesh DIR`: (re)mesh the particle files of a cache into surface files, e.g. after a
//! bake with `--no-surface` or to try other surface settings.

use std::path::Path;

use gloop::cache::{read_particles, CacheDir, CacheLock, FileRecord, Manifest};
use gloop::scene::Scene;
use gloop::surface::{mesh_liquid, write_surface_ply, ObstacleSurface, SurfaceSettings};
use gloop::{GloopError, Result};
use indicatif::{ProgressBar, ProgressStyle};

pub fn run(dir: &Path, frames: Option<(i32, i32)>, settings: SurfaceSettings) -> Result<()> {
    if !dir.is_dir() {
        return Err(GloopError::file(dir, "no such cache folder"));
    }
    // Re-meshing rewrites the surfaces and the manifest a running bake also writes.
    let _lock = CacheLock::acquire(dir, "mesh")?;
    let cache = CacheDir::new(dir);
    let mut manifest = Manifest::read(&cache.manifest())?;
    let present = cache
        .frames_present("particles")
        .map_err(|e| GloopError::io(dir, e))?;
    let selected: Vec<i32> = present
        .into_iter()
        .filter(|f| frames.is_none_or(|(a, b)| (a..=b).contains(f)))
        .collect();
    if selected.is_empty() {
        return Err(GloopError::file(
            dir,
            "no particle files to mesh in this range",
        ));
    }
    let bar = ProgressBar::new(selected.len() as u64).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} frames  {msg}")
            .expect("a valid progress template"),
    );
    // The obstacles the liquid touches, where the cache holds its scene.
    let scene = match cache.scene().exists() {
        true => Some(Scene::load(&cache.scene())?),
        false => None,
    };
    let mut triangles = 0;
    manifest.surface = Some(settings.clone());
    for &frame in &selected {
        let particles = read_particles(&cache.particles(frame))?;
        let obstacles = scene
            .as_ref()
            .map_or(vec![], |s| ObstacleSurface::of_scene(s, frame));
        let mesh = mesh_liquid(&particles, manifest.particle_radius, &settings, &obstacles);
        triangles = mesh.triangles.len();
        write_surface_ply(&cache.surface(frame), &mesh)?;
        // Recorded frame by frame: stopped part-way, every surface still matches its record
        // (a resume would otherwise take the re-meshed ones for damaged).
        manifest.record_surface(frame, FileRecord::of_file(&cache.surface(frame))?);
        manifest.write(&cache.manifest())?;
        bar.set_message(format!("frame {frame}: {triangles} triangles"));
        bar.inc(1);
    }
    bar.finish_and_clear();
    println!(
        "meshed {} frames in {} (last: {triangles} triangles)",
        selected.len(),
        dir.display()
    );
    Ok(())
}
