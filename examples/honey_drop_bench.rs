//! Benchmark: a block of honey dropped onto a plane at 24 fps, implicit viscosity.
//! Prints seconds per frame and the implicit viscosity solve's share of the time.
//!
//! `cargo run --release --example honey_drop_bench -- [CELLS_X CELLS_Y CELLS_Z] [FRAMES] [classic] [cap=N]`
//! (default 50 × 50 × 40 = 100 000 particles, r = 2.5 mm, 6 frames).
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use glam::{Mat4, Vec3};
use gloop::geometry::box_mesh;
use gloop::scene::{
    presets, Materials, Motion, Role, Scene, SceneObject, Settings, ViscosityModel,
};
use gloop::sim::phases::PhaseTimes;
use gloop::Simulation;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: f32| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let cells = Vec3::new(num(0, 50.0), num(1, 50.0), num(2, 40.0));
    let frames = num(3, 6.0) as i32;
    let model = if args.iter().any(|a| a == "classic") {
        ViscosityModel::Classic
    } else {
        ViscosityModel::Implicit
    };
    let r = 0.0025f32;
    let size = cells * 2.0 * r;
    let lo = Vec3::new(-size.x / 2.0, -size.y / 2.0, 0.01);
    let objects = vec![
        SceneObject {
            name: "Honey".into(),
            role: Role::Liquid {
                material: "honey".into(),
                initial_velocity: Vec3::ZERO,
            },
            mesh: box_mesh(lo, lo + size),
            motion: Motion::default(),
        },
        SceneObject {
            name: "Plane".into(),
            role: Role::Obstacle {
                material: "steel".into(),
            },
            mesh: box_mesh(Vec3::new(-0.6, -0.6, -0.03), Vec3::new(0.6, 0.6, 0.0)),
            motion: Motion::Static {
                matrix: Mat4::IDENTITY,
            },
        },
    ];
    let defaults = Settings::default();
    // `cap=N` raises the density correction's pass cap, to time the block with its impact
    // corrected all the way to the tolerance.
    let max_density_iterations = args
        .iter()
        .find_map(|a| a.strip_prefix("cap=").and_then(|n| n.parse().ok()))
        .unwrap_or(defaults.max_density_iterations);
    let settings = Settings {
        particle_radius: r,
        viscosity_model: model,
        max_density_iterations,
        ..defaults
    };
    let materials = Materials {
        liquids: vec![presets::honey()],
        solids: vec![presets::steel()],
        adhesion_overrides: vec![],
    };
    let scene = Scene::new(settings, materials, objects);
    let mut sim = Simulation::new(&scene).unwrap();
    println!(
        "{model:?}: {} liquid + {} object particles, {} threads",
        sim.liquid().len(),
        sim.object_positions().len(),
        rayon::current_num_threads()
    );
    let cancel = AtomicBool::new(false);
    let started = Instant::now();
    let mut phases = PhaseTimes::default();
    for _ in 0..frames {
        let t = Instant::now();
        let (viscosity_before, _) = gloop::sim::implicit_viscosity_profile();
        let stats = sim.step_frame(&cancel).unwrap();
        phases += stats.phases;
        let (viscosity_after, _) = gloop::sim::implicit_viscosity_profile();
        // The per-frame viscosity time lets tools/compare_splishsplash.py leave out the first frame.
        println!(
            "frame {:3}: {:.2} s, implicit viscosity {:.3} s, density iterations {}, max density error {:.4}, worst {:.4}, capped {} of {} substeps",
            stats.frame,
            t.elapsed().as_secs_f32(),
            (viscosity_after - viscosity_before).as_secs_f32(),
            stats.density_iterations,
            stats.max_density_error,
            stats.worst_density_error,
            stats.capped_substeps,
            scene.settings.substeps
        );
    }
    let total = started.elapsed().as_secs_f64();
    let shares: Vec<String> = phases
        .named()
        .iter()
        .map(|(name, t)| format!("{} {:.0}%", name.trim(), 100.0 * t.as_secs_f64() / total))
        .collect();
    println!("phases: {}", shares.join(", "));
    let (viscosity, iterations) = gloop::sim::implicit_viscosity_profile();
    println!(
        "{:.2} s per frame; implicit viscosity {:.2} s per frame = {:.0}% of the time, {:.1} CG iterations per substep",
        total / frames as f64,
        viscosity.as_secs_f64() / frames as f64,
        100.0 * viscosity.as_secs_f64() / total,
        iterations as f64 / (frames as f64 * scene.settings.substeps as f64)
    );
}
