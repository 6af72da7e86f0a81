//! Liquids of one, two or three particles stay finite in both viscosity models, falling or
//! resting on a plate, and a lone falling particle falls freely (issue 32 item 7: one particle
//! turned NaN at frame 2 under the implicit viscosity, and so did a low-rate emitter's first
//! particle).
mod common;

use std::sync::atomic::AtomicBool;

use glam::Vec3;
use gloop::scene::{Emission, Scene, ViscosityModel};
use gloop::Simulation;

const R: f32 = 0.002;
const FRAMES: usize = 50;
const MODELS: [ViscosityModel; 2] = [ViscosityModel::Implicit, ViscosityModel::Classic];

fn settings(model: ViscosityModel) -> gloop::scene::Settings {
    let mut settings = common::settings(R, FRAMES as i32);
    settings.viscosity_model = model;
    // Deep enough for 50 frames (about 2 s) of free fall.
    settings.domain.min = Vec3::new(-1.0, -1.0, -30.0);
    settings
}

/// A liquid of `n` particles in a row along x, the lowest lattice layer above z = 0 (the
/// lattice's points sit at odd multiples of r, so the box [0, 2nr]×[0, 2r]×[0, 2r] holds
/// exactly `n`), and, with `plate`, a steel plate just beneath it.
fn tiny_scene(n: usize, model: ViscosityModel, plate: bool) -> Scene {
    let mut objects = vec![common::liquid_box(
        "Liquid",
        Vec3::ZERO,
        Vec3::new(2.0 * R * n as f32, 2.0 * R, 2.0 * R),
    )];
    if plate {
        objects.push(common::obstacle_box(
            "Plate",
            Vec3::new(-0.05, -0.05, -0.01),
            Vec3::new(0.05, 0.05, 0.0),
        ));
    }
    Scene::new(settings(model), common::materials(), objects)
}

fn assert_finite(sim: &Simulation, what: &str) {
    let liquid = sim.liquid();
    for (i, (x, v)) in liquid.position.iter().zip(&liquid.velocity).enumerate() {
        assert!(
            x.is_finite() && v.is_finite(),
            "{what}, frame {}: particle {i} at {x} moving {v}",
            sim.frame()
        );
    }
}

/// Runs `FRAMES` frames, checking after each that every particle is finite; `each` sees the
/// simulation after every frame.
fn run(scene: &Scene, what: &str, mut each: impl FnMut(&Simulation)) -> Simulation {
    let mut sim = Simulation::new(scene).unwrap();
    let cancel = AtomicBool::new(false);
    for _ in 0..FRAMES {
        if let Err(e) = sim.step_frame(&cancel) {
            panic!("{what}: {e}");
        }
        assert_finite(&sim, what);
        each(&sim);
    }
    sim
}

#[test]
fn tiny_liquids_fall_and_rest_finite_in_both_viscosity_models() {
    for model in MODELS {
        for n in 1..=3 {
            for plate in [false, true] {
                let what = format!(
                    "{n} particle(s), {model:?}, {}",
                    if plate { "on a plate" } else { "falling" }
                );
                let scene = tiny_scene(n, model, plate);
                let sim = run(&scene, &what, |_| {});
                let liquid = sim.liquid();
                assert_eq!(liquid.len(), n, "{what}: particles lost");
                if plate {
                    // Resting: still on the plate, not through it, and at rest. (Under the
                    // classic model a pair of honey particles on the plate keeps scissoring
                    // sideways at about 0.1 m/s, a period-two limit cycle of the exchange at
                    // its ceiling, whose pair coupling then flips their relative velocity
                    // every substep: bounded and finite, but not rest. Only bounded is
                    // asked of it here.)
                    let rest = match model {
                        ViscosityModel::Implicit => 0.01,
                        ViscosityModel::Classic => 0.5,
                    };
                    for (x, v) in liquid.position.iter().zip(&liquid.velocity) {
                        assert!(x.z > 0.0 && x.z < 3.0 * R, "{what}: at {x}");
                        assert!(v.length() < rest, "{what}: moving {v}");
                    }
                } else {
                    // Falling: about 21 m in 50 frames.
                    for x in &liquid.position {
                        assert!(x.z < -15.0, "{what}: only fell to {x}");
                    }
                }
            }
        }
    }
}

/// A lone particle has no neighbours, so nothing but gravity acts on it: it must fall as a
/// free body, z = z0 − g t²/2, up to the integrator's own error. The substep accelerates and
/// then translates (semi-implicit Euler), so after n substeps of δt it has fallen
/// g δt² n(n+1)/2 = g t²/2 + g t δt/2; the test allows that term and a millimetre more, so a
/// fix that merely clamped the NaN to zero (or a particle stalled by a spurious drag) fails.
#[test]
fn a_lone_particle_falls_freely_in_both_viscosity_models() {
    for model in MODELS {
        let scene = tiny_scene(1, model, false);
        let z0 = R; // the lattice point of the box [0, 2r]³
        let fps = scene.settings.fps;
        let g = -scene.settings.gravity.z;
        let dt = 1.0 / (fps * scene.settings.substeps as f32);
        let first = Simulation::new(&scene).unwrap();
        assert_eq!(first.liquid().position, vec![Vec3::new(R, R, z0)]);
        run(&scene, &format!("{model:?}"), |sim| {
            let t = (sim.frame() - scene.settings.frame_start) as f32 / fps;
            let x = sim.liquid().position[0];
            let v = sim.liquid().velocity[0];
            let free_fall = z0 - 0.5 * g * t * t;
            let allowed = 0.5 * g * t * dt + 1e-3;
            assert!(
                (x.z - free_fall).abs() <= allowed,
                "{model:?} at t = {t} s: z = {} m, free fall {free_fall} m (±{allowed})",
                x.z
            );
            assert!(
                (x.truncate() - Vec3::new(R, R, 0.0).truncate()).length() < 1e-6,
                "{model:?}: drifted sideways to {x}"
            );
            assert!(
                (v.z + g * t).abs() <= g * dt + 1e-3 && v.truncate().length() < 1e-6,
                "{model:?} at t = {t} s: velocity {v}, free fall {}",
                -g * t
            );
        });
    }
}

/// A nozzle narrower than a particle at a low flow, one particle per layer and 24 a second:
/// its first particle leaves at the end of the first frame, so the second frame is a liquid of
/// one particle, and each of the next few particles falls alone before it lands.
#[test]
fn a_one_particle_emitter_runs_clean_in_both_viscosity_models() {
    for model in MODELS {
        let mut settings = settings(model);
        settings.domain.min = Vec3::new(-1.0, -1.0, -1.0);
        let emission = Emission {
            flow: Some(24.0 * (2.0 * R).powi(3)),
            speed: None,
            rate: None,
            frame_start: 1,
            frame_end: 1000,
        };
        let nozzle = common::disc_nozzle("Nozzle", Vec3::new(0.0, 0.0, 0.05), 0.5 * R, emission);
        let plate = common::obstacle_box(
            "Plate",
            Vec3::new(-0.05, -0.05, -0.01),
            Vec3::new(0.05, 0.05, 0.0),
        );
        let scene = Scene::new(settings, common::materials(), vec![nozzle, plate]);
        let what = format!("emitter, {model:?}");
        run(&scene, &what, |sim| {
            // One particle per frame, none lost.
            let expected = (sim.frame() - 1) as usize;
            assert_eq!(
                sim.liquid().len(),
                expected,
                "{what}, frame {}",
                sim.frame()
            );
        });
    }
}
