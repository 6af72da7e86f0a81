//! `pour_probe RADIUS FPS SECONDS SUBSTEPS MOVES [DUMP_DIR]`: the honey-pour validation's
//! figures for one resolution and time stepping, printing each frame's shape as it goes and,
//! with DUMP_DIR, writing every frame's liquid positions there (raw little-endian f32 xyz).

#[path = "support/dump.rs"]
mod dump;
use gloop::demos::honey_pour;
use gloop::validation::honey_pour::{checks, measure};

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| a[i].parse::<f32>().unwrap();
    let (radius, fps, seconds) = (num(0), num(1), num(2));
    let mut scene = honey_pour::scene(radius, fps, seconds);
    scene.settings.substeps = num(3) as u32;
    scene.settings.moves = num(4) as u32;
    // Probe switches: NOPLATE=1 pours into free fall (no plate, domain 30 cm deep);
    // COHESION=x sets the honey's cohesion (m/s²).
    if std::env::var("NOPLATE").is_ok() {
        scene.objects.retain(|o| o.name != "Plate");
        scene.settings.domain.min.z = -0.3;
    }
    if let Ok(c) = std::env::var("COHESION") {
        scene.materials.liquids[0].cohesion = c.parse().unwrap();
    }
    let dump_dir = dump::folder(a.get(5));
    let t = std::time::Instant::now();
    let mut passes = 0u64;
    let f = measure(&scene, seconds, |frame, stats, positions| {
        passes += stats.density_iterations as u64;
        if let Some(d) = &dump_dir {
            dump::write(d, frame, positions);
        }
        if frame % 12 == 0 {
            eprintln!(
                "frame {frame}: {} particles, {:.2}s elapsed, density err {:.3}, {passes} passes",
                stats.liquid_particles,
                t.elapsed().as_secs_f32(),
                stats.max_density_error
            );
        }
    })
    .unwrap();
    println!("{f:#?}");
    for c in checks(&f) {
        println!("{c}");
    }
    println!("({:.1}s)", t.elapsed().as_secs_f32());
}
