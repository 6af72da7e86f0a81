//! `resting-puddle`: a puddle of honey settles in a tank, then 100 frames are simulated with the
//! real solver and meshed. A resting surface must not shimmer: the surface height under a grid
//! of vertical rays over the puddle (away from the walls) moves ≤ 0.02 r per frame on average,
//! and the number of connected components stays constant.

use std::sync::atomic::AtomicBool;

use super::scenes::liquid_in_tank;
use super::Check;
use crate::scene::presets;
use crate::surface::{mesh_liquid, quality, ObstacleSurface, SurfaceMesh, SurfaceSettings};
use crate::Simulation;

/// Measured figures of one run.
pub struct PuddleFigures {
    pub mean_movement_r: f64,
    pub worst_frame_movement_r: f64,
    pub components: Vec<usize>,
}

/// Settles `settle` frames, then meshes `frames` frames.
pub fn measure(
    radius: f32,
    cells: [u32; 3],
    settle: u32,
    frames: u32,
) -> crate::Result<PuddleFigures> {
    let scene = liquid_in_tank(
        radius,
        cells,
        presets::honey(),
        (settle + frames + 2) as i32,
    );
    let mut sim = Simulation::new(&scene)?;
    let cancel = AtomicBool::new(false);
    for _ in 0..settle {
        sim.step_frame(&cancel)?;
    }
    let s = 2.0 * radius;
    let rays: Vec<(f32, f32)> = (0..10)
        .flat_map(|j| (0..10).map(move |i| (i, j)))
        .map(|(i, j)| {
            let f = |n: u32, k: i32| (0.25 + 0.5 * k as f32 / 9.0) * n as f32 * s;
            (f(cells[0], i), f(cells[1], j))
        })
        .collect();
    let settings = SurfaceSettings::default();
    let mut previous: Option<Vec<f32>> = None;
    let mut per_frame = Vec::new();
    let mut components = Vec::new();
    for _ in 0..frames {
        sim.step_frame(&cancel)?;
        let obstacles = ObstacleSurface::of_scene(sim.scene(), sim.frame());
        let mesh = mesh_liquid(sim.liquid(), radius, &settings, &obstacles);
        components.push(quality::measure(&mesh).components);
        let heights: Vec<f32> = rays
            .iter()
            .map(|&(x, y)| top_height(&mesh, x, y).unwrap_or(0.0))
            .collect();
        if let Some(prev) = &previous {
            let mean = heights
                .iter()
                .zip(prev)
                .map(|(h, p)| (h - p).abs() as f64)
                .sum::<f64>()
                / heights.len() as f64;
            per_frame.push(mean / radius as f64);
        }
        previous = Some(heights);
    }
    Ok(PuddleFigures {
        mean_movement_r: per_frame.iter().sum::<f64>() / per_frame.len().max(1) as f64,
        worst_frame_movement_r: per_frame.iter().copied().fold(0.0, f64::max),
        components,
    })
}

pub fn checks(f: &PuddleFigures) -> Vec<Check> {
    let first = f.components.first().copied().unwrap_or(0);
    let changes = f.components.windows(2).filter(|w| w[0] != w[1]).count();
    vec![
        Check::at_most(
            "mean surface movement per frame (r)",
            f.mean_movement_r,
            0.02,
        ),
        Check::info("worst frame's mean movement (r)", f.worst_frame_movement_r),
        Check::info("connected components", first as f64),
        Check::at_most(
            "frames where the component count changed",
            changes as f64,
            0.0,
        ),
    ]
}

pub fn run() -> crate::Result<Vec<Check>> {
    Ok(checks(&measure(0.004, [16, 16, 4], 72, 100)?))
}

/// Highest crossing of the vertical line through (x, y) with the mesh.
pub fn top_height(mesh: &SurfaceMesh, x: f32, y: f32) -> Option<f32> {
    super::layer::vertical_crossings(mesh, x, y)
        .iter()
        .map(|c| c.z)
        .max_by(f32::total_cmp)
}
