//! Meshing benchmark for `gloop bench`: a liquid-like particle set (a jittered slab with a
//! crown of drops and strands) of a given size, meshed at the given settings, timed per stage.

use std::time::{Duration, Instant};

use glam::Vec3;

use super::{mesh_particles_timed, SurfaceSettings};
use crate::validation::noise::uniform_noise;

/// One benchmark row.
#[derive(Clone, Debug)]
pub struct MeshingTiming {
    pub particles: usize,
    pub vertices: usize,
    pub triangles: usize,
    /// Wall time of the whole `mesh_particles` call (best of the runs).
    pub total: Duration,
    /// Wall time per stage of that run, in pipeline order.
    pub stages: Vec<(&'static str, Duration)>,
}

/// A deterministic liquid-like particle set of about `count` particles of radius `r`: a slab on
/// a jittered lattice of spacing 2r (4:4:1), plus 2% of the particles as drops above it.
pub fn bench_particles(count: usize, r: f32) -> Vec<Vec3> {
    let bulk = count - count / 50;
    let nz = ((bulk as f64 / 16.0).cbrt().round() as usize).max(1);
    let nxy = ((bulk as f64 / nz as f64).sqrt().round() as usize).max(1);
    let mut noise = uniform_noise(0x2545_F491);
    let mut points = Vec::with_capacity(count);
    'fill: for k in 0..nz {
        for j in 0..nxy {
            for i in 0..nxy {
                if points.len() == bulk {
                    break 'fill;
                }
                let jitter = Vec3::new(noise(), noise(), noise()) * 0.3;
                points.push((Vec3::new(i as f32, j as f32, k as f32) + jitter) * 2.0 * r);
            }
        }
    }
    let extent = nxy as f32 * 2.0 * r;
    while points.len() < count {
        let p = Vec3::new(
            (noise() + 0.5) * extent,
            (noise() + 0.5) * extent,
            (nz as f32 + 3.0 + 10.0 * (noise() + 0.5)) * 2.0 * r,
        );
        points.push(p);
    }
    points
}

/// Meshes `bench_particles(n, 0.01)` for each `n` in `counts` (best of `runs`, at least 1).
pub fn bench_meshing(
    counts: &[usize],
    settings: &SurfaceSettings,
    runs: usize,
) -> Vec<MeshingTiming> {
    let r = 0.01;
    counts
        .iter()
        .map(|&n| {
            let particles = bench_particles(n, r);
            let velocities = vec![Vec3::new(0.0, 0.0, -1.0); n];
            let colours = vec![[0.8, 0.5, 0.1]; n];
            let mut best: Option<MeshingTiming> = None;
            for _ in 0..runs.max(1) {
                let start = Instant::now();
                let (mesh, stages) =
                    mesh_particles_timed(&particles, &velocities, &colours, r, settings, &[]);
                let total = start.elapsed();
                if best.as_ref().is_none_or(|b| total < b.total) {
                    best = Some(MeshingTiming {
                        particles: n,
                        vertices: mesh.positions.len(),
                        triangles: mesh.triangles.len(),
                        total,
                        stages,
                    });
                }
            }
            best.expect("at least one run")
        })
        .collect()
}
