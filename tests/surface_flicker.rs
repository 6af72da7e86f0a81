//! A resting surface must not shimmer. Until the solver lands (the issue's `resting-puddle` scene
//! needs it), a stand-in: a puddle whose particles jitter by 0.02 r per frame around fixed
//! positions, as density correction does at rest. The surface height, sampled by vertical rays
//! over the puddle's top, must move less than 0.02 r per frame on average, and the component
//! count must stay constant.

use glam::Vec3;
use gloop::surface::{mesh_particles, quality, SurfaceSettings};
use gloop::validation::noise::uniform_noise;
use gloop::validation::resting_puddle::top_height;

const R: f32 = 0.01;

#[test]
fn a_jittering_resting_puddle_does_not_shimmer() {
    let mut base = Vec::new();
    for k in 0..4 {
        for j in 0..16 {
            for i in 0..16 {
                base.push(Vec3::new(i as f32, j as f32, k as f32) * 2.0 * R);
            }
        }
    }
    let mut noise = uniform_noise(0x1234_5678);
    // Rays over the middle of the top, away from the rim.
    let rays: Vec<(f32, f32)> = (0..12)
        .flat_map(|j| {
            (0..12).map(move |i| ((8.0 + 1.37 * i as f32) * R, (8.0 + 1.41 * j as f32) * R))
        })
        .collect();
    let mut previous: Option<Vec<f32>> = None;
    let mut components = Vec::new();
    let mut movement = Vec::new();
    for _frame in 0..6 {
        let particles: Vec<Vec3> = base
            .iter()
            .map(|p| *p + Vec3::new(noise(), noise(), noise()) * (2.0 * 0.02 * R / 3f32.sqrt()))
            .collect();
        let mesh = mesh_particles(&particles, &[], &[], R, &SurfaceSettings::default());
        components.push(quality::measure(&mesh).components);
        let heights: Vec<f32> = rays
            .iter()
            .map(|&(x, y)| top_height(&mesh, x, y).unwrap())
            .collect();
        if let Some(prev) = &previous {
            let mean = heights
                .iter()
                .zip(prev)
                .map(|(h, p)| (h - p).abs())
                .sum::<f32>()
                / heights.len() as f32;
            movement.push(mean / R);
        }
        previous = Some(heights);
    }
    println!("mean surface movement per frame (r): {movement:?}");
    assert!(components.iter().all(|&c| c == 1), "{components:?}");
    let mean = movement.iter().sum::<f32>() / movement.len() as f32;
    assert!(mean <= 0.02, "surface moves {mean} r per frame");
}
