//! `translated-blob`: a fixed, irregular particle blob moved by 0.37 marching-cubes cells per
//! frame (never grid-aligned). A surface that aliases against the grid changes area and volume
//! from frame to frame; the issue allows at most 0.2% area change.

use glam::Vec3;

use crate::surface::{mesh_particles, quality, SurfaceSettings};
use crate::validation::noise::uniform_noise;
use crate::validation::Check;

/// An irregular blob (about 1300 particles): lattice points (spacing 2r) inside the union of three overlapping
/// ellipsoids, each jittered by up to 0.2 r (fixed pseudo-random sequence).
pub fn blob(r: f32) -> Vec<Vec3> {
    let lobes = [
        (Vec3::new(0.0, 0.0, 0.0), Vec3::new(16.0, 11.0, 9.0)),
        (Vec3::new(13.0, 7.0, 4.0), Vec3::new(9.0, 9.0, 7.0)),
        (Vec3::new(-9.0, 6.0, -5.0), Vec3::new(7.0, 6.0, 11.0)),
    ];
    let mut noise = uniform_noise(0x9E37_79B9);
    let mut jitter = || noise() * 0.4;
    let mut points = Vec::new();
    for k in -12..=12 {
        for j in -12..=12 {
            for i in -12..=12 {
                let p = Vec3::new(i as f32, j as f32, k as f32) * 2.0;
                if lobes
                    .iter()
                    .any(|(c, axes)| ((p - *c) / *axes).length_squared() <= 1.0)
                {
                    points.push((p + Vec3::new(jitter(), jitter(), jitter())) * r);
                }
            }
        }
    }
    points
}

/// Meshes the blob at `frames` positions 0.37 cells apart; checks frame-to-frame change.
pub fn translated_blob_checks(frames: usize, settings: &SurfaceSettings) -> Vec<Check> {
    let r = 0.01;
    let cell = settings.sanitised().resolution * r;
    let step = Vec3::new(1.0, 0.5, 0.25).normalize() * 0.37 * cell;
    let base = blob(r);
    let mut areas = Vec::new();
    let mut volumes = Vec::new();
    let mut components = Vec::new();
    for f in 0..frames {
        let shift = Vec3::new(0.31, -0.12, 0.07) + step * f as f32;
        let particles: Vec<Vec3> = base.iter().map(|p| *p + shift).collect();
        let mesh = mesh_particles(&particles, &[], &[], r, settings);
        let report = quality::measure(&mesh);
        areas.push(report.area);
        volumes.push(report.volume);
        components.push(report.components);
    }
    let max_change = |v: &[f64]| {
        v.windows(2)
            .map(|w| ((w[1] - w[0]) / w[0]).abs())
            .fold(0.0, f64::max)
    };
    let changes = components.windows(2).filter(|w| w[0] != w[1]).count();
    vec![
        Check::info("particles", base.len() as f64),
        Check::info("frames", frames as f64),
        Check::at_most(
            "largest frame-to-frame area change |dA|/A",
            max_change(&areas),
            0.002,
        ),
        Check::info(
            "largest frame-to-frame volume change |dV|/V",
            max_change(&volumes),
        ),
        Check::at_most("component count changes", changes as f64, 0.0),
        Check::at_most("components", components[0] as f64, 1.0),
    ]
}

pub fn run() -> crate::Result<Vec<Check>> {
    Ok(translated_blob_checks(30, &SurfaceSettings::default()))
}
