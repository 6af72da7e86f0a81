//! `viscometer`: a decaying shear wave measures the liquid's kinematic viscosity.
//!
//! A fully periodic box of liquid on the 2r lattice starts with u_x = U·sin(2πy/L) and no
//! gravity, adhesion or obstacles (density correction on). The Navier–Stokes solution is
//! u_x = U·e^(−νk²t)·sin(ky), k = 2π/L; the amplitude, projected on sin(ky) every frame, is
//! fitted by least squares in log space, and ν = −slope/k² is compared with the requested ν.
//!
//! The box is centred on the origin: positions are f32 and velocities position-based, so a
//! velocity is resolved to about ulp(x)/δt, and a slow decay far from the origin stalls
//! (at x = 1 m the ν = 1e-4 wave does not decay at all).
//!
//! Scale choices: L is at least 32 lattice layers (the discrete Laplacian's error grows like
//! (k·2r)²), and νk²δt ≲ 0.05 (backward Euler's decay rate is ln(1 + νk²δt)/δt, about
//! νk²(1 − νk²δt/2)). U keeps the total shear displacement within half a lattice spacing.

use std::sync::atomic::AtomicBool;

use glam::Vec3;

use super::Check;
use crate::scene::{
    presets, AdhesionFunction, AdhesionOverride, Domain, Materials, Scene, Settings, ViscosityModel,
};
use crate::sim::{LiquidParticles, Simulation};

/// One viscometer run.
#[derive(Clone, Copy, Debug)]
pub struct Viscometer {
    /// Requested kinematic viscosity, m²/s.
    pub nu: f32,
    pub radius: f32,
    pub substeps: u32,
    /// Wavelength L, m.
    pub wavelength: f32,
    pub model: ViscosityModel,
}

impl Viscometer {
    /// The validation's wavelength for a viscosity: longer for thicker liquids, so that
    /// νk²δt stays small at 4 substeps per frame.
    pub fn standard(nu: f32, radius: f32, substeps: u32) -> Self {
        Viscometer {
            nu,
            radius,
            substeps,
            wavelength: if nu > 3e-3 {
                0.32
            } else if nu > 3e-4 {
                0.16
            } else {
                0.08
            },
            model: ViscosityModel::Implicit,
        }
    }

    /// The periodic scene and its initial particles.
    pub fn setup(&self) -> (Scene, LiquidParticles) {
        let spacing = 2.0 * self.radius;
        let layers = (self.wavelength / spacing).round() as usize;
        // Across the shear the box must exceed twice the neighbour reach (5r): 6 spacings.
        let across = 6usize;
        let size = Vec3::new(
            across as f32 * spacing,
            layers as f32 * spacing,
            across as f32 * spacing,
        );
        let length = size.y;
        let density = 1000.0;
        let mut fluid = presets::liquid("fluid", density, self.nu * density, [0.5, 0.5, 0.5]);
        fluid.cohesion = 0.0;
        let materials = Materials {
            liquids: vec![fluid],
            solids: vec![],
            adhesion_overrides: vec![AdhesionOverride {
                a: "fluid".into(),
                b: "fluid".into(),
                function: AdhesionFunction::zero(),
            }],
        };
        let k = 2.0 * std::f32::consts::PI / length;
        let speed = 0.5 * spacing * self.nu * k * k;
        let settings = Settings {
            particle_radius: self.radius,
            substeps: self.substeps,
            // Measured at the substeps asked for, not more.
            max_substeps: self.substeps,
            gravity: Vec3::ZERO,
            frame_start: 0,
            frame_end: 100_000,
            domain: Domain {
                min: -0.5 * size,
                max: 0.5 * size,
                periodic: [true; 3],
            },
            viscosity_model: self.model,
            ..Settings::default()
        };
        let mut liquid = LiquidParticles::default();
        for z in 0..across {
            for y in 0..layers {
                for x in 0..across {
                    let p = (Vec3::new(x as f32, y as f32, z as f32) + 0.5) * spacing - 0.5 * size;
                    let v = Vec3::new(speed * (k * p.y).sin(), 0.0, 0.0);
                    liquid.push(p, v, 0, [0.5; 3]);
                }
            }
        }
        (Scene::new(settings, materials, vec![]), liquid)
    }

    /// Runs until the wave decayed to 1/e (at most `max_seconds`) and returns the fitted ν.
    pub fn measure(&self, max_seconds: f32) -> crate::Result<f32> {
        let (scene, liquid) = self.setup();
        let length = scene.settings.domain.size().y;
        let k = 2.0 * std::f64::consts::PI / length as f64;
        let mut sim = Simulation::resume(&scene, 0, liquid)?;
        let cancel = AtomicBool::new(false);
        let fps = scene.settings.fps as f64;
        let expected_rate = self.nu as f64 * k * k;
        let frames = ((1.0 / expected_rate).min(max_seconds as f64) * fps).ceil() as i32;
        let mut samples = vec![(0.0, amplitude(sim.liquid(), k).ln())];
        for f in 1..=frames.max(4) {
            sim.step_frame(&cancel)?;
            samples.push((f as f64 / fps, amplitude(sim.liquid(), k).ln()));
        }
        Ok((-slope(&samples) / (k * k)) as f32)
    }
}

/// Projection of u_x on sin(ky): the wave's amplitude.
fn amplitude(liquid: &LiquidParticles, k: f64) -> f64 {
    let n = liquid.len() as f64;
    let s: f64 = liquid
        .position
        .iter()
        .zip(&liquid.velocity)
        .map(|(x, v)| v.x as f64 * (k * x.y as f64).sin())
        .sum();
    2.0 * s / n
}

/// Least-squares slope of y against t.
fn slope(samples: &[(f64, f64)]) -> f64 {
    let n = samples.len() as f64;
    let (mt, my) = samples
        .iter()
        .fold((0.0, 0.0), |(a, b), (t, y)| (a + t / n, b + y / n));
    let (num, den) = samples.iter().fold((0.0, 0.0), |(a, b), (t, y)| {
        (a + (t - mt) * (y - my), b + (t - mt) * (t - mt))
    });
    num / den
}

/// ν = 1e-4, 1e-3, 1e-2 m²/s at r = 2.5 mm and 1.25 mm, 4 and 8 substeps per frame.
pub fn run() -> crate::Result<Vec<Check>> {
    let mut checks = Vec::new();
    for nu in [1e-4f32, 1e-3, 1e-2] {
        for radius in [0.0025f32, 0.00125] {
            for substeps in [4u32, 8] {
                let v = Viscometer::standard(nu, radius, substeps);
                let measured = v.measure(8.0)?;
                checks.push(Check::near(
                    format!(
                        "ν measured/requested, ν = {nu:.0e} m²/s, r = {} mm, {substeps} substeps",
                        radius * 1000.0
                    ),
                    measured as f64 / nu as f64,
                    1.0,
                    0.05,
                ));
            }
        }
    }
    Ok(checks)
}
