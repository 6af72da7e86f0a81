//! `drop_probe FRAMES`: the `honey-drop` demo for FRAMES frames at the substep floor SUBSTEPS
//! (environment; the demo's own when unset), and every 10 frames the drop's coat on the ball
//! (liquid particles within 4r of its surface) and the lowest liquid particle's height, with
//! the substeps the frames took and the bounds that set them: the drop's figures at each floor.

use std::sync::atomic::AtomicBool;

use gloop::demos::honey_drop as drop;
use gloop::sim::adaptive::set_by_summary;
use gloop::Simulation;

fn main() {
    let frames: usize = std::env::args().nth(1).unwrap().parse().unwrap();
    let mut scene = drop::scene();
    if let Ok(s) = std::env::var("SUBSTEPS") {
        scene.settings.substeps = s.parse().unwrap();
    }
    let r = scene.settings.particle_radius;
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let t = std::time::Instant::now();
    let (mut counts, mut bounds) = (Vec::new(), Vec::new());
    for frame in 1..=frames {
        let stats = sim.step_frame(&cancel).unwrap();
        counts.push(stats.substeps);
        bounds.push(stats.substep_bound);
        if frame % 10 == 0 {
            let x = &sim.liquid().position;
            let coat = x
                .iter()
                .filter(|p| p.distance(drop::BALL_CENTRE) < drop::BALL_RADIUS + 4.0 * r)
                .count();
            let lowest = x.iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
            println!(
                "frame {frame}: {} particles, coat {coat}, lowest {:.2} mm, substeps {}",
                x.len(),
                lowest * 1e3,
                stats.substeps
            );
        }
    }
    let mean = counts.iter().sum::<u32>() as f64 / counts.len() as f64;
    println!(
        "SUMMARY substeps {}-{} mean {mean:.2} (set by {}), {:.0}s",
        counts.iter().min().unwrap(),
        counts.iter().max().unwrap(),
        set_by_summary(bounds),
        t.elapsed().as_secs_f32()
    );
}
