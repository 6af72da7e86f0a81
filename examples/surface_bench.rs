//! Times `mesh_particles` on `bench_particles(n)` and writes the same particles as
//! `/tmp/gloop_bench_{n}.ply` (x y z) so other meshers (splashsurf) can be run on them.
//! Usage: cargo run --release --example surface_bench -- 30000 100000 [--smoothness 0.5]

use std::io::Write;

use gloop::surface::bench::{bench_meshing, bench_particles};
use gloop::surface::SurfaceSettings;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut settings = SurfaceSettings::default();
    let mut counts = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--smoothness" => {
                settings.smoothness = it.next().and_then(|v| v.parse().ok()).unwrap_or(0.5)
            }
            "--resolution" => {
                settings.resolution = it.next().and_then(|v| v.parse().ok()).unwrap_or(0.5)
            }
            n => counts.push(n.parse::<usize>().expect("particle count")),
        }
    }
    for &n in &counts {
        let particles = bench_particles(n, 0.01);
        let path = format!("/tmp/gloop_bench_{n}.ply");
        let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
        write!(f, "ply\nformat binary_little_endian 1.0\nelement vertex {n}\nproperty float x\nproperty float y\nproperty float z\nend_header\n").unwrap();
        for p in &particles {
            for v in p.to_array() {
                f.write_all(&v.to_le_bytes()).unwrap();
            }
        }
    }
    // PLY write/read speed on the largest mesh.
    if let Some(&n) = counts.last() {
        let particles = bench_particles(n, 0.01);
        let mesh = gloop::surface::mesh_particles(&particles, &[], &[], 0.01, &settings);
        let path = std::path::Path::new("/tmp/gloop_bench_surface.ply");
        let t = std::time::Instant::now();
        gloop::surface::write_surface_ply(path, &mesh).unwrap();
        let write = t.elapsed();
        let t = std::time::Instant::now();
        let back = gloop::surface::read_surface_ply(path).unwrap();
        println!(
            "PLY of {} vertices: write {:.3} s, read {:.3} s, {} bytes, identical {}",
            mesh.positions.len(),
            write.as_secs_f64(),
            t.elapsed().as_secs_f64(),
            std::fs::metadata(path).unwrap().len(),
            back == mesh
        );
    }
    for row in bench_meshing(&counts, &settings, 3) {
        println!(
            "{:>8} particles: {:>8.3} s  ({} vertices, {} triangles, threads {})",
            row.particles,
            row.total.as_secs_f64(),
            row.vertices,
            row.triangles,
            rayon::current_num_threads()
        );
        for (name, t) in &row.stages {
            println!("           {:<32} {:>8.3} s", name, t.as_secs_f64());
        }
    }
}
