//! Bounds on what `gloop mesh` (and the add-on's Re-mesh) is given: its surface settings and
//! the manifest's particle radius. Out-of-range values are refused with the field named, and
//! before anything is written, so a re-mesh can never leave a non-finite value in
//! `manifest.json` (JSON has no NaN: serde writes `null`, which no reader accepts) nor
//! overwrite the surfaces with empty meshes or run on with memory rising.

use std::path::Path;

use crate::error::{GloopError, Result};
use crate::scene::Scene;
use crate::surface::SurfaceSettings;

/// The manifest's particle radius must lie in this range of metres: below it a frame's
/// particles (spaced as any real bake spaces them) fall apart into millions of tiny blobs.
pub const MIN_PARTICLE_RADIUS: f32 = 1e-5;
pub const MAX_PARTICLE_RADIUS: f32 = 1.0;

/// `(field, value, lowest, highest, unit)` for every surface setting. Resolution's lower
/// bound is the add-on's: 0.2 r cubes already mesh 6× the triangles of the default 0.5 r, and
/// below that memory grows with the cube of 1/resolution.
fn bounds(s: &SurfaceSettings) -> [(&'static str, f32, f32, f32, &'static str); 7] {
    [
        ("resolution", s.resolution, 0.2, 4.0, "particle radii"),
        (
            "smoothness",
            s.smoothness,
            0.0,
            1.0,
            "0 = raw, 1 = very smooth",
        ),
        (
            "max_error",
            s.max_error,
            0.0,
            0.25,
            "particle radii; 0 = no decimation",
        ),
        ("kernel_radius", s.kernel_radius, 2.5, 8.0, "particle radii"),
        ("iso", s.iso, 0.05, 0.95, "fraction of the resting field"),
        (
            "region_distance",
            s.region_distance,
            2.0,
            8.0,
            "particle radii",
        ),
        (
            "anisotropy",
            s.anisotropy,
            0.0,
            1.0,
            "0 = balls, 1 = shaped blobs",
        ),
    ]
}

/// Refuses any surface setting that is not a finite number within its bounds.
pub fn check_surface_settings(settings: &SurfaceSettings) -> Result<()> {
    for (field, value, lo, hi, unit) in bounds(settings) {
        if !(value.is_finite() && (lo..=hi).contains(&value)) {
            return Err(GloopError::Other(format!(
                "surface setting '{field}' is {value}; it must be a number from {lo} to {hi} \
                 ({unit})"
            )));
        }
    }
    Ok(())
}

/// Refuses a manifest particle radius that is not finite, out of range, or (when the cache
/// holds its scene) different from the radius the scene was baked with.
pub fn check_particle_radius(
    radius: f32,
    manifest_path: &Path,
    scene: Option<(&Scene, &Path)>,
) -> Result<()> {
    if !(radius.is_finite() && (MIN_PARTICLE_RADIUS..=MAX_PARTICLE_RADIUS).contains(&radius)) {
        return Err(GloopError::file(
            manifest_path,
            format!(
                "particle_radius is {radius}; it must be a number of metres from \
                 {MIN_PARTICLE_RADIUS} to {MAX_PARTICLE_RADIUS} (the manifest is damaged or \
                 was edited)"
            ),
        ));
    }
    if let Some((scene, scene_path)) = scene {
        let baked = scene.settings.particle_radius;
        if baked != radius {
            return Err(GloopError::file(
                manifest_path,
                format!(
                    "particle_radius is {radius} m but the scene was baked at {baked} m (in {}); \
                     the manifest is damaged or was edited",
                    scene_path.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Liquid particles sit about 2 r apart (the bake's lattice, kept by the density
/// correction). A manifest radius far below the particles' spacing meshes every particle as
/// its own tiny drop, slowly (1.3 M triangles and 11 s for one honey-drop frame at r = 1e-5 m
/// against 0.001 m): refused when the median nearest-neighbour distance of a sample exceeds
/// this many radii. Splashed drops lie further apart, but a median over the frame stays near
/// 2 r unless most of the liquid is spray.
const MAX_SPACING_IN_RADII: f32 = 20.0;

/// Refuses a radius that does not fit the particles of a frame (see
/// [`MAX_SPACING_IN_RADII`]). Frames of fewer than 32 particles are not judged.
pub fn check_radius_fits_particles(
    radius: f32,
    positions: &[glam::Vec3],
    manifest_path: &Path,
) -> Result<()> {
    let finite: Vec<glam::Vec3> = positions
        .iter()
        .copied()
        .filter(|p| p.is_finite())
        .collect();
    if finite.len() < 32 {
        return Ok(());
    }
    // 64 particles spread through the frame, each against every other: 64 N distances.
    let step = finite.len() / 64 + 1;
    let mut nearest: Vec<f32> = (0..finite.len())
        .step_by(step)
        .map(|i| {
            finite
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .map(|(_, q)| q.distance_squared(finite[i]))
                .fold(f32::INFINITY, f32::min)
                .sqrt()
        })
        .collect();
    nearest.sort_by(f32::total_cmp);
    let median = nearest[nearest.len() / 2];
    if median > MAX_SPACING_IN_RADII * radius {
        return Err(GloopError::file(
            manifest_path,
            format!(
                "particle_radius is {radius} m but the particles lie about {median} m apart                  (a bake spaces them about 2 radii apart); the manifest is damaged or was edited"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_pass_and_each_bad_value_names_its_field() {
        check_surface_settings(&SurfaceSettings::default()).unwrap();
        for bad in [f32::NAN, f32::INFINITY, 0.0, 1e-4, -1.0, 5.0] {
            let s = SurfaceSettings {
                resolution: bad,
                ..SurfaceSettings::default()
            };
            let e = check_surface_settings(&s).unwrap_err().to_string();
            assert!(e.contains("'resolution'"), "{e}");
        }
        let s = SurfaceSettings {
            smoothness: f32::NAN,
            ..SurfaceSettings::default()
        };
        assert!(check_surface_settings(&s)
            .unwrap_err()
            .to_string()
            .contains("'smoothness'"));
    }

    #[test]
    fn a_radius_far_below_the_particle_spacing_is_refused() {
        // A 6×6×6 block on the bake's 2 r lattice at r = 1 mm.
        let lattice: Vec<glam::Vec3> = (0..216)
            .map(|i| glam::Vec3::new((i % 6) as f32, (i / 6 % 6) as f32, (i / 36) as f32) * 0.002)
            .collect();
        let path = Path::new("manifest.json");
        check_radius_fits_particles(0.001, &lattice, path).unwrap();
        check_radius_fits_particles(0.0002, &lattice, path).unwrap();
        let e = check_radius_fits_particles(1e-5, &lattice, path).unwrap_err();
        assert!(
            e.to_string().contains("particle_radius is 0.00001 m"),
            "{e}"
        );
        // Too few particles to judge.
        check_radius_fits_particles(1e-5, &lattice[..10], path).unwrap();
    }
}
