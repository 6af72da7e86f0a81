//! `rope_sweep SECONDS FPS`: a honey pour like `honey-pour`'s, and for every frame after
//! touchdown its surface's pieces (how many, and how many hold fewer than 8 particles) and,
//! every `EVERY` frames, its upper rope measured as check (e) does. Settings by environment:
//! R (particle radius, m), NOZZLE (radius, m), FLOW (m³/s), HEIGHT (m), SUBSTEPS (the floor),
//! MOVES, DUMP (a folder for the frames' particle files).

use std::sync::atomic::AtomicBool;

use glam::{Mat4, Vec3};
use gloop::demos::{honey_pour as pour, shapes};
use gloop::scene::{Motion, Role};
use gloop::surface::{mesh_particles, SurfaceSettings};
use gloop::validation::pieces::pieces;
use gloop::Simulation;

fn env(name: &str) -> Option<f32> {
    std::env::var(name).ok().map(|v| v.parse().unwrap())
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (seconds, fps): (f32, f32) = (a[0].parse().unwrap(), a[1].parse().unwrap());
    let r = env("R").unwrap_or(pour::DEFAULT_RADIUS);
    let height = env("HEIGHT").unwrap_or(pour::NOZZLE_HEIGHT);
    let every = env("EVERY").unwrap_or(6.0) as usize;
    let mut scene = pour::scene(r, fps, seconds);
    if let Some(s) = env("SUBSTEPS") {
        scene.settings.substeps = s as u32;
    }
    if let Some(m) = env("MOVES") {
        scene.settings.moves = m as u32;
    }
    let nozzle = &mut scene.objects[0];
    if let Some(radius) = env("NOZZLE") {
        nozzle.mesh = shapes::downward_disc(radius, 48);
    }
    nozzle.motion = Motion::Static {
        matrix: Mat4::from_translation(Vec3::new(0.0, 0.0, height)),
    };
    if let Role::Emitter { emission, .. } = &mut nozzle.role {
        if let Some(q) = env("FLOW") {
            emission.flow = Some(q);
        }
    }
    scene.settings.domain.max.z = height + 0.01;
    if let Some(c) = env("COHESION") {
        scene.materials.liquids[0].cohesion = c;
    }
    let dump = std::env::var("DUMP").ok();
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let frames = (seconds * fps).round() as usize;
    let t = std::time::Instant::now();
    let (mut touched, mut worst_specks, mut worst_pieces, mut substeps) = (false, 0, 0, 0);
    let (mut e_sum, mut e_worst, mut e_n) = (0.0, 0.0f64, 0);
    for frame in 1..=frames {
        let stats = sim.step_frame(&cancel).unwrap();
        substeps += stats.substeps;
        let x = &sim.liquid().position;
        if let Some(d) = &dump {
            let path = std::path::Path::new(d).join(format!("particles_{frame:05}.ply"));
            gloop::cache::write_particles(&path, frame as i32, sim.liquid()).unwrap();
        }
        touched |= x.iter().any(|p| p.z < pour::PLATE_TOP + 3.0 * r);
        if !touched {
            continue;
        }
        let mesh = mesh_particles(x, &[], &[], r, &SurfaceSettings::default());
        let p = pieces(&mesh, x);
        let voids = p.iter().filter(|p| p.is_void()).count();
        let big_voids = p
            .iter()
            .filter(|p| {
                p.is_void()
                    && -p.volume > 4.0 / 3.0 * std::f64::consts::PI * 8.0 * (r as f64).powi(3)
            })
            .count();
        let small: Vec<usize> = p
            .iter()
            .skip(1)
            .filter(|p| !p.is_void())
            .map(|p| p.particles)
            .collect();
        let specks = small.iter().filter(|&&n| n < 8).count();
        worst_specks = worst_specks.max(specks);
        worst_pieces = worst_pieces.max(p.len());
        let mut line = format!(
            "frame {frame}: {} particles, {} substeps, {} pieces, {voids} voids ({big_voids} over a 2r ball), {specks} under 8 {:?}",
            x.len(),
            stats.substeps,
            p.len(),
            &small[..small.len().min(8)]
        );
        if frame % every == 0 {
            // Check (e) measures below `pour::NOZZLE_HEIGHT`: shift the pour there.
            let shifted: Vec<Vec3> = x
                .iter()
                .map(|p| *p + Vec3::Z * (pour::NOZZLE_HEIGHT - height))
                .collect();
            if let Some(c) = gloop::validation::honey_pour::rope_cylinder_outer(&shifted, r) {
                line += &format!(" (e outer {:.3})", c.rms_deviation / c.radius);
            }
            if let Some(c) = gloop::validation::honey_pour::rope_cylinder(&shifted, r) {
                let e = c.rms_deviation / c.radius;
                e_sum += e;
                e_worst = e_worst.max(e);
                e_n += 1;
                line += &format!(
                    "; (e) {e:.3} round {:.3} R {:.2}r",
                    c.rms_section_roundness(),
                    c.radius / r as f64
                );
            }
        }
        println!("{line}");
    }
    println!(
        "SUMMARY worst pieces {worst_pieces}, worst specks {worst_specks}, (e) mean {:.3} worst \
         {e_worst:.3} over {e_n}, substeps {:.1}/frame, {:.0}s",
        e_sum / e_n.max(1) as f64,
        substeps as f32 / frames as f32,
        t.elapsed().as_secs_f32()
    );
}
