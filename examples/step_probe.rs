//! `step_probe SECONDS FPS`: a honey pour like `honey-pour`'s, judged as the validation judges
//! it (continuity, coil turns and steadiness, coil radius, frequency), with the widest
//! vertical gap in the stream per frame and the substeps and density passes each frame took:
//! for comparing the same pour at different substep floors. Settings by environment: R
//! (particle radius, m), NOZZLE (radius, m), FLOW (m³/s), HEIGHT (m), SUBSTEPS (the floor),
//! MOVES, QUIET (no per-frame lines), SAVE_SCENE (write the scene file there and stop).

use glam::{Mat4, Vec3};
use gloop::demos::{honey_pour as pour, shapes};
use gloop::scene::{Motion, Role};
use gloop::validation::honey_pour::{checks, measure};

fn env(name: &str) -> Option<f32> {
    std::env::var(name).ok().map(|v| v.parse().unwrap())
}

/// The widest gap between consecutive particle heights above the plate, in radii: where a
/// falling thread has parted, at least this much of it is empty.
/// And the height of its middle (m).
fn widest_gap(x: &[Vec3], r: f32) -> (f32, f32) {
    let mut z: Vec<f32> = x.iter().map(|p| p.z).filter(|z| z.is_finite()).collect();
    z.sort_by(f32::total_cmp);
    z.windows(2)
        .map(|w| ((w[1] - w[0]) / r, 0.5 * (w[0] + w[1])))
        .fold((0.0, 0.0), |a, b| if b.0 > a.0 { b } else { a })
}

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let (seconds, fps): (f32, f32) = (a[0].parse().unwrap(), a[1].parse().unwrap());
    let r = env("R").unwrap_or(pour::DEFAULT_RADIUS);
    let height = env("HEIGHT").unwrap_or(pour::NOZZLE_HEIGHT);
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
    // SAVE_SCENE=path.json writes the scene and stops, for `gloop bench` or `gloop bake`.
    if let Ok(path) = std::env::var("SAVE_SCENE") {
        scene.save(std::path::Path::new(&path)).unwrap();
        return;
    }
    let quiet = std::env::var("QUIET").is_ok();
    let t = std::time::Instant::now();
    let (mut worst_gap, mut passes, mut capped, mut counts) = (0.0f32, 0u64, 0u32, Vec::new());
    let mut touched = false;
    let f = measure(&scene, seconds, |frame, stats, x| {
        passes += stats.density_iterations as u64;
        capped += stats.capped_substeps;
        counts.push(stats.substeps);
        touched |= x.iter().any(|p| p.z < pour::PLATE_TOP + 3.0 * r);
        let (gap, at) = widest_gap(x, r);
        if touched {
            worst_gap = worst_gap.max(gap);
        }
        if !quiet {
            println!(
                "frame {}: {} particles, {} substeps ({}), {} passes, worst error {:.3}, widest gap {gap:.1}r at {:.1} mm",
                frame + 1,
                x.len(),
                stats.substeps,
                stats.substep_bound.name(),
                stats.density_iterations,
                stats.worst_density_error,
                at * 1e3
            );
        }
    })
    .unwrap();
    for c in checks(&f) {
        println!("  {c}");
    }
    let turns = f.net_angle.abs() / std::f64::consts::TAU;
    println!(
        "SUMMARY broken {}/{} frames, widest gap {worst_gap:.1}r, turns {turns:.2}, steadiness \
         {:.2}, coil radius {:.2} mm, {:.2} turns/s, substeps {}-{} mean {:.2}, passes {passes} \
         ({capped} capped), {:.0}s",
        f.broken_frames,
        f.frames_judged_connected,
        f.net_angle.abs() / f.travelled_angle.max(f64::MIN_POSITIVE),
        f.coil_radius * 1e3,
        turns / f.watched_seconds.max(1e-9),
        counts.iter().min().unwrap_or(&0),
        counts.iter().max().unwrap_or(&0),
        f.mean_substeps,
        t.elapsed().as_secs_f32()
    );
}
