//! The interior shells of a cache's frames: what renders as a bubble through a glassy material.
//!
//! `cargo run --release --example interior_shells -- FILE.ply...`
//! - a surface file: how many inward-facing closed pieces it holds and their volumes in mm³
//!   (the cache's units are metres), largest first;
//! - a particle file: meshes it (with the obstacles of `scene.gloop` beside it, if any) and
//!   prints the shells the raw surface had and how many the rule kept, with the time taken.

use std::path::Path;

use gloop::cache::{read_particles, CacheDir, Manifest};
use gloop::scene::Scene;
use gloop::surface::cavities::inward_shell_volumes;
use gloop::surface::{
    mesh_liquid_counted, mesh_particles_timed, read_surface_ply, ObstacleSurface, SurfaceSettings,
};

fn main() {
    for name in std::env::args().skip(1) {
        let path = Path::new(&name);
        let file = path.file_name().unwrap_or_default().to_string_lossy();
        if let Some(frame) = file
            .strip_prefix("particles_")
            .and_then(|f| f.strip_suffix(".ply"))
            .and_then(|f| f.parse::<i32>().ok())
        {
            mesh_frame(path, frame);
            continue;
        }
        match read_surface_ply(path) {
            Ok(mesh) => {
                let mut volumes = inward_shell_volumes(&mesh.positions, &mesh.triangles);
                volumes.sort_by(|a, b| b.total_cmp(a));
                let mm3: Vec<String> = volumes.iter().map(|v| format!("{:.2}", v * 1e9)).collect();
                println!("{name}: {} shells, mm³ [{}]", volumes.len(), mm3.join(", "));
            }
            Err(e) => println!("{name}: {e}"),
        }
    }
}

fn mesh_frame(path: &Path, frame: i32) {
    let dir = path.parent().unwrap_or(Path::new("."));
    let cache = CacheDir::new(dir);
    let (Ok(manifest), Ok(particles)) = (Manifest::read(&cache.manifest()), read_particles(path))
    else {
        println!("{}: unreadable", path.display());
        return;
    };
    let obstacles = Scene::load(&dir.join("scene.gloop"))
        .map(|s| ObstacleSurface::of_scene(&s, frame))
        .unwrap_or_default();
    let clock = std::time::Instant::now();
    let (mesh, pockets) = mesh_liquid_counted(
        &particles,
        manifest.particle_radius,
        &SurfaceSettings::default(),
        &obstacles,
    );
    let seconds = clock.elapsed().as_secs_f64();
    let left = inward_shell_volumes(&mesh.positions, &mesh.triangles).len();
    // The stage's own time, from a second, timed run.
    let (_, stages) = mesh_particles_timed(
        &particles.position,
        &particles.velocity,
        &particles.colour,
        manifest.particle_radius,
        &SurfaceSettings::default(),
        &obstacles,
    );
    let stage = stages
        .iter()
        .find(|(name, _)| *name == "phantom voids")
        .map_or(0.0, |(_, t)| t.as_secs_f64());
    println!(
        "frame {frame}: {} shells found, {} kept, {left} in the surface \
         ({seconds:.2} s, of which finding and filling voids {:.1} ms)",
        pockets.found,
        pockets.kept,
        stage * 1e3
    );
}
