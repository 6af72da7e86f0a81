//! `spread_probe SECONDS`: a cylinder of honey released on a no-slip plate spreads as a viscous
//! gravity current. Prints its footprint radius each second beside Huppert's (1982) similarity
//! solution for a fixed volume on a plane, R(t) = 0.894 (g V³ t / (3ν))^⅛, which holds once
//! the puddle is much wider than it is deep, and the substeps the frames took: the spreading
//! puddle of issue 42's convergence table, run at each substep floor.
//!
//! Environment: SUBSTEPS (the floor; 1 when unset), R (particle radius, m; 1 mm), VOLUME
//! (m³; 50 mL), FPS (24), VISCOSITY (Pa·s; honey's 19).
//!
//! The footprint radius is the median over 36 sectors about the puddle's axis of the farthest
//! liquid particle in each, plus r (the particle's own extent): a lone particle at the front
//! moves one sector's figure only.

use std::f32::consts::{PI, TAU};
use std::sync::atomic::AtomicBool;

use glam::{Mat4, Vec3};
use gloop::demos::shapes;
use gloop::scene::{
    presets, Domain, Materials, Motion, Role, SceneObject, Settings, SolidMaterial,
};
use gloop::sim::adaptive::set_by_summary;
use gloop::{Scene, Simulation};

fn env(name: &str, default: f32) -> f32 {
    std::env::var(name).map_or(default, |v| v.parse().unwrap())
}

/// Half the plate's side: room for the puddle to spread for ten seconds.
const PLATE_HALF: f32 = 0.09;

fn scene(r: f32, volume: f32, fps: f32, seconds: f32, floor: u32, viscosity: f32) -> Scene {
    // A cylinder as wide as it is tall, standing on the plate.
    let radius = (volume / (2.0 * PI)).cbrt();
    let height = 2.0 * radius;
    let settings = Settings {
        fps,
        frame_start: 1,
        frame_end: (seconds * fps).round() as i32 + 1,
        particle_radius: r,
        substeps: floor,
        moves: 4,
        gravity: Vec3::new(0.0, 0.0, -9.81),
        density_tolerance: 0.01,
        domain: Domain {
            min: Vec3::new(-PLATE_HALF, -PLATE_HALF, -0.01),
            max: Vec3::new(PLATE_HALF, PLATE_HALF, height + 0.01),
            periodic: [false; 3],
        },
        max_particles: 1_000_000,
        ..Settings::default()
    };
    let puddle = SceneObject {
        name: "Honey".into(),
        role: Role::Liquid {
            material: "honey".into(),
            initial_velocity: Vec3::ZERO,
        },
        mesh: shapes::cylinder(radius, height, 64),
        motion: Motion::Static {
            matrix: Mat4::from_translation(Vec3::new(0.0, 0.0, 0.5 * height + 0.25 * r)),
        },
    };
    let plate = SceneObject {
        name: "Plate".into(),
        role: Role::Obstacle {
            material: "board".into(),
        },
        mesh: shapes::box_mesh(Vec3::new(PLATE_HALF, PLATE_HALF, 0.003)),
        motion: Motion::Static {
            matrix: Mat4::from_translation(Vec3::new(0.0, 0.0, -0.003)),
        },
    };
    // No slip, as Huppert's current has at its base.
    let board = SolidMaterial {
        name: "board".into(),
        friction: 1.0,
        ..presets::wood()
    };
    let honey = gloop::scene::LiquidMaterial {
        viscosity,
        ..presets::honey()
    };
    let materials = Materials {
        liquids: vec![honey],
        solids: vec![board],
        adhesion_overrides: vec![],
    };
    Scene::new(settings, materials, vec![puddle, plate])
}

/// The median over 36 sectors of the farthest particle's distance from the axis through the
/// liquid's centroid, plus r.
fn footprint_radius(x: &[Vec3], r: f32) -> f32 {
    let n = x.len().max(1) as f32;
    let centre = x.iter().fold(Vec3::ZERO, |a, p| a + *p) / n;
    let mut farthest = [0.0f32; 36];
    for p in x {
        let d = (*p - centre).truncate();
        let sector = ((d.y.atan2(d.x) + PI) / TAU * 36.0) as usize % 36;
        farthest[sector] = farthest[sector].max(d.length());
    }
    farthest.sort_by(f32::total_cmp);
    0.5 * (farthest[17] + farthest[18]) + r
}

fn main() {
    let seconds: f32 = std::env::args().nth(1).map_or(8.0, |s| s.parse().unwrap());
    let floor = env("SUBSTEPS", 1.0) as u32;
    let (r, volume, fps) = (env("R", 0.001), env("VOLUME", 50e-6), env("FPS", 24.0));
    let viscosity = env("VISCOSITY", presets::honey().viscosity);
    let scene = scene(r, volume, fps, seconds, floor, viscosity);
    let nu = viscosity / presets::honey().density;
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let started = std::time::Instant::now();
    let (mut counts, mut bounds) = (Vec::new(), Vec::new());
    let frames = (seconds * fps).round() as usize;
    println!(
        "floor {floor}, r {:.2} mm, {:.0} mL, {fps} fps, ν {nu:.4} m²/s, {} particles",
        r * 1e3,
        volume * 1e6,
        sim.liquid().position.len()
    );
    for frame in 1..=frames {
        let stats = sim.step_frame(&cancel).unwrap();
        counts.push(stats.substeps);
        bounds.push(stats.substep_bound);
        if frame % fps.round() as usize == 0 {
            let t = frame as f32 / fps;
            let measured = footprint_radius(&sim.liquid().position, r);
            let huppert = 0.894 * (9.81 * volume.powi(3) * t / (3.0 * nu)).powf(0.125);
            let top = sim
                .liquid()
                .position
                .iter()
                .map(|p| p.z)
                .fold(0.0, f32::max);
            println!(
                "t {t:.1} s: radius {:.2} mm (Huppert {:.2} mm, {:+.1}%), top {:.2} mm",
                measured * 1e3,
                huppert * 1e3,
                100.0 * (measured / huppert - 1.0),
                top * 1e3
            );
        }
    }
    let mean = counts.iter().sum::<u32>() as f64 / counts.len() as f64;
    println!(
        "SUMMARY floor {floor}: radius {:.2} mm at {seconds} s, substeps {}-{} mean {mean:.2} \
         (set by {}), {:.0}s",
        footprint_radius(&sim.liquid().position, r) * 1e3,
        counts.iter().min().unwrap(),
        counts.iter().max().unwrap(),
        set_by_summary(bounds),
        started.elapsed().as_secs_f32()
    );
}
