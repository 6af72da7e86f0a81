//! `spinning-blob`: a ball of honey in rigid rotation, without gravity, keeps spinning.
//!
//! Rigid rotation has no shear, so a physical viscosity exerts no force on it: the angular
//! momentum about the centre of mass must stay (pass: loss ≤ 1% per second) and the linear
//! momentum must not change (pass: |ΔP| ≤ 1e-6 Σ m|v|). Steele's exchange acts on the whole
//! velocity difference and brakes the rotation at ≈ 6ν/R² (PHYSICS_NOTES §1.4); its figures
//! are printed for information.

use std::sync::atomic::AtomicBool;

use glam::{DVec3, Vec3};

use super::Check;
use crate::scene::{presets, Materials, Scene, Settings, ViscosityModel};
use crate::sim::{LiquidParticles, Simulation};

/// What one spinning run measured.
#[derive(Clone, Copy, Debug)]
pub struct SpinFigures {
    /// |P_end − P_start| / Σ m|v_start|.
    pub linear_change: f64,
    /// (L_start − L_end)/L_start per second, about the axis of rotation.
    pub angular_loss_per_second: f64,
}

/// The ball: lattice points within `radii`·r of the origin, spinning at `omega` rad/s about z,
/// honey with the given cohesion (m/s²; 0 leaves viscosity as the only force).
pub fn setup(
    model: ViscosityModel,
    radius: f32,
    radii: f32,
    omega: f32,
    cohesion: f32,
) -> (Scene, LiquidParticles) {
    let spacing = 2.0 * radius;
    let reach = (radii / 2.0).ceil() as i32;
    let ball = radii * radius;
    let honey = presets::honey();
    let mut liquid = LiquidParticles::default();
    for z in -reach..=reach {
        for y in -reach..=reach {
            for x in -reach..=reach {
                let p = Vec3::new(x as f32, y as f32, z as f32) * spacing;
                if p.length() <= ball {
                    let v = Vec3::new(-omega * p.y, omega * p.x, 0.0);
                    liquid.push(p, v, 0, honey.colour);
                }
            }
        }
    }
    let settings = Settings {
        particle_radius: radius,
        gravity: Vec3::ZERO,
        frame_start: 0,
        frame_end: 100_000,
        viscosity_model: model,
        ..Settings::default()
    };
    let mut honey = honey;
    honey.cohesion = cohesion;
    let materials = Materials {
        liquids: vec![honey],
        solids: vec![],
        adhesion_overrides: vec![],
    };
    (Scene::new(settings, materials, vec![]), liquid)
}

fn momenta(liquid: &LiquidParticles) -> (DVec3, DVec3, f64) {
    // Equal masses: mass factors out of every ratio reported.
    let n = liquid.len() as f64;
    let centre = liquid.position.iter().map(|x| x.as_dvec3()).sum::<DVec3>() / n;
    let (mut p, mut l, mut speed) = (DVec3::ZERO, DVec3::ZERO, 0.0);
    for (x, v) in liquid.position.iter().zip(&liquid.velocity) {
        let v = v.as_dvec3();
        p += v;
        l += (x.as_dvec3() - centre).cross(v);
        speed += v.length();
    }
    (p, l, speed)
}

/// Spins the ball for `seconds` and measures its momenta.
pub fn measure(
    model: ViscosityModel,
    radius: f32,
    radii: f32,
    omega: f32,
    cohesion: f32,
    seconds: f32,
) -> crate::Result<SpinFigures> {
    let (scene, liquid) = setup(model, radius, radii, omega, cohesion);
    let mut sim = Simulation::resume(&scene, 0, liquid)?;
    let (p0, l0, speed0) = momenta(sim.liquid());
    let cancel = AtomicBool::new(false);
    let frames = (seconds * scene.settings.fps).round() as i32;
    for _ in 0..frames {
        sim.step_frame(&cancel)?;
    }
    let (p1, l1, _) = momenta(sim.liquid());
    let elapsed = frames as f64 / scene.settings.fps as f64;
    Ok(SpinFigures {
        linear_change: (p1 - p0).length() / speed0,
        angular_loss_per_second: (l0.z - l1.z) / l0.z / elapsed,
    })
}

/// A honey ball of radius 12.5 r (r = 2.5 mm) at 1 rad/s for one second. The pass/fail run
/// has viscosity as the only force (cohesion 0, as PHYSICS_NOTES §1.4 measures it); the full
/// honey blob (cohesion on) is reported for information: its density correction and contacts
/// are position-based, and their corrections add angular momentum whatever the viscosity model.
pub fn run() -> crate::Result<Vec<Check>> {
    let (radius, radii, omega, seconds) = (0.0025, 12.5, 1.0, 1.0);
    let implicit = measure(ViscosityModel::Implicit, radius, radii, omega, 0.0, seconds)?;
    let classic = measure(ViscosityModel::Classic, radius, radii, omega, 0.0, seconds)?;
    let cohesion = presets::honey().cohesion;
    let implicit_full = measure(
        ViscosityModel::Implicit,
        radius,
        radii,
        omega,
        cohesion,
        seconds,
    )?;
    let classic_full = measure(
        ViscosityModel::Classic,
        radius,
        radii,
        omega,
        cohesion,
        seconds,
    )?;
    Ok(vec![
        Check::at_most(
            "implicit: relative change of linear momentum",
            implicit.linear_change,
            1e-6,
        ),
        Check::at_most(
            "implicit: angular momentum loss per second",
            implicit.angular_loss_per_second,
            0.01,
        ),
        Check::info(
            "classic: relative change of linear momentum",
            classic.linear_change,
        ),
        Check::info(
            "classic: angular momentum loss per second",
            classic.angular_loss_per_second,
        ),
        Check::info(
            "with cohesion, implicit: linear momentum change",
            implicit_full.linear_change,
        ),
        Check::info(
            "with cohesion, implicit: angular momentum loss /s",
            implicit_full.angular_loss_per_second,
        ),
        Check::info(
            "with cohesion, classic: angular momentum loss /s",
            classic_full.angular_loss_per_second,
        ),
    ])
}
