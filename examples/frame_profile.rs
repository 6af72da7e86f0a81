//! Where a bake's time goes, frame by frame: seconds, density-correction passes, the
//! compression left, and the implicit viscosity solve's seconds and CG iterations.
//!
//! `cargo run --release --example frame_profile -- SCENE [FRAMES]` (SCENE: a demo name or a
//! scene file; FRAMES defaults to 10).
//!
//! `gloop bench` reports medians; this shows which frames make them. On the fan, for
//! instance, the gel's impact frames hit the pass cap while its free-fall frames spend most
//! of their time in the viscosity solve, two different problems behind one median.
//!
//! Then, over all the frames shown, the time of each phase of a substep
//! (`gloop::sim::phases`), with the neighbour lists' upkeep within the moves and the density
//! correction.
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use gloop::scene::Scene;
use gloop::sim::phases::PhaseTimes;
use gloop::Simulation;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(name) = args.first() else {
        eprintln!("usage: frame_profile SCENE [FRAMES]  (SCENE: a demo name or a scene file)");
        std::process::exit(2);
    };
    let frames: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(10);
    if let Err(e) = profile(name, frames) {
        eprintln!("frame_profile: {e}");
        std::process::exit(1);
    }
}

fn profile(name: &str, frames: u32) -> gloop::Result<()> {
    let scene = match gloop::demos::demo_scene(name) {
        Some(scene) => scene,
        None => Scene::load(Path::new(name))?,
    };
    let mut sim = Simulation::new(&scene)?;
    let never = AtomicBool::new(false);
    println!("frame  seconds  liquid  passes  compression  viscosity_s  cg_iterations");
    let mut phases = PhaseTimes::default();
    let mut seconds_shown = 0.0;
    for _ in 0..frames {
        let (solve_before, iterations_before) = gloop::sim::implicit_viscosity_profile();
        let started = Instant::now();
        let stats = sim.step_frame(&never)?;
        let seconds = started.elapsed().as_secs_f64();
        phases += stats.phases;
        seconds_shown += seconds;
        let (solve_after, iterations_after) = gloop::sim::implicit_viscosity_profile();
        println!(
            "{:5}  {:7.3}  {:6}  {:6}  {:11.4}  {:11.3}  {:13}",
            stats.frame,
            seconds,
            stats.liquid_particles,
            stats.density_iterations,
            stats.max_density_error,
            (solve_after - solve_before).as_secs_f64(),
            iterations_after - iterations_before,
        );
    }
    println!("\nphase                     seconds  share");
    for (name, time) in phases.named() {
        let t = time.as_secs_f64();
        println!("{name:<24}  {t:7.3}  {:4.0}%", 100.0 * t / seconds_shown);
    }
    let rest = seconds_shown - phases.total().as_secs_f64();
    println!(
        "{:<24}  {rest:7.3}  {:4.0}%",
        "rest",
        100.0 * rest / seconds_shown
    );
    Ok(())
}
