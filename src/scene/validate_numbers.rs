//! Bounds on every number of a scene's settings and materials (`limits`), each error naming
//! its field and the range it must lie in.

use super::limits::*;
use super::settings::MAX_FRAME;
use super::Scene;
use crate::error::{GloopError, Result};

/// `Err` naming `field`, its value and the range it must lie in, unless `lo <= value <= hi`
/// (NaN lies in no range).
fn within(field: &str, value: f32, lo: f32, hi: f32, unit: &str) -> Result<()> {
    if value >= lo && value <= hi {
        return Ok(());
    }
    Err(GloopError::scene(format!(
        "{field} ({value}) must be a number from {lo} to {hi}{unit}"
    )))
}

/// As `within`, excluding `lo` itself.
fn above(field: &str, value: f32, lo: f32, hi: f32, unit: &str) -> Result<()> {
    if value > lo && value <= hi {
        return Ok(());
    }
    Err(GloopError::scene(format!(
        "{field} ({value}) must be a number above {lo} and at most {hi}{unit}"
    )))
}

fn count_within(field: &str, value: u64, lo: u64, hi: u64) -> Result<()> {
    if (lo..=hi).contains(&value) {
        return Ok(());
    }
    Err(GloopError::scene(format!(
        "{field} ({value}) must be between {lo} and {hi}"
    )))
}

impl Scene {
    pub(super) fn validate_settings(&self) -> Result<()> {
        let s = &self.settings;
        above("settings.fps", s.fps, 0.0, MAX_FPS, "")?;
        for (field, frame) in [("frame_start", s.frame_start), ("frame_end", s.frame_end)] {
            if !(-MAX_FRAME..=MAX_FRAME).contains(&frame) {
                return Err(GloopError::scene(format!(
                    "settings.{field} ({frame}) must be a frame number from -{MAX_FRAME} to \
                     {MAX_FRAME} (Blender's limit)"
                )));
            }
        }
        if s.frame_end < s.frame_start {
            return Err(GloopError::scene(
                "settings.frame_end must not be before settings.frame_start",
            ));
        }
        let r = s.particle_radius;
        within("settings.particle_radius", r, MIN_RADIUS, MAX_RADIUS, " m")?;
        count_within("settings.substeps", s.substeps.into(), 1, 1000)?;
        if s.max_substeps < s.substeps || s.max_substeps > 1000 {
            return Err(GloopError::scene(format!(
                "settings.max_substeps ({}) must be at least settings.substeps ({}), the \
                 fewest substeps a frame takes, and at most 1000",
                s.max_substeps, s.substeps
            )));
        }
        count_within("settings.moves", s.moves.into(), 1, 1000)?;
        count_within(
            "settings.max_density_iterations",
            s.max_density_iterations.into(),
            1,
            MAX_DENSITY_ITERATIONS.into(),
        )?;
        within(
            "the length of settings.gravity",
            s.gravity.length(),
            0.0,
            MAX_GRAVITY,
            " m/s²",
        )?;
        above(
            "settings.density_tolerance",
            s.density_tolerance,
            0.0,
            1.0,
            " (0.01 = 1%)",
        )?;
        above(
            "settings.elastic_coefficient",
            s.elastic_coefficient,
            0.0,
            1.0,
            "",
        )?;
        self.validate_domain()?;
        count_within(
            "settings.max_particles",
            s.max_particles,
            1,
            MAX_PARTICLES_LIMIT,
        )
    }

    fn validate_domain(&self) -> Result<()> {
        let s = &self.settings;
        let d = &s.domain;
        let reach = MAX_DOMAIN_RADII * s.particle_radius;
        for (name, corner) in [("min", d.min), ("max", d.max)] {
            for (axis, value) in corner.to_array().into_iter().enumerate() {
                within(
                    &format!("settings.domain.{name}[{axis}]"),
                    value,
                    -reach,
                    reach,
                    &format!(
                        " m ({MAX_DOMAIN_RADII} particle radii, beyond which single precision \
                         cannot place particles finely enough)"
                    ),
                )?;
            }
        }
        if !d.min.cmplt(d.max).all() {
            return Err(GloopError::scene(
                "settings.domain must have min < max on every axis",
            ));
        }
        let shortest = MIN_PERIOD_RADII * s.particle_radius;
        for axis in 0..3 {
            let period = d.max[axis] - d.min[axis];
            if d.periodic[axis] && period < shortest {
                return Err(GloopError::scene(format!(
                    "settings.domain is periodic along axis {axis} but only {period} m long \
                     there: a period must be at least {MIN_PERIOD_RADII} particle radii \
                     ({shortest} m)"
                )));
            }
        }
        Ok(())
    }

    pub(super) fn validate_materials(&self) -> Result<()> {
        let m = &self.materials;
        let count = m.liquids.len() + m.solids.len();
        if count > MAX_MATERIALS {
            return Err(GloopError::scene(format!(
                "the scene has {count} materials ({} liquid, {} solid); at most \
                 {MAX_MATERIALS} are allowed",
                m.liquids.len(),
                m.solids.len()
            )));
        }
        if m.adhesion_overrides.len() > count * count {
            return Err(GloopError::scene(format!(
                "the scene has {} adhesion overrides, more than its {count} materials have pairs",
                m.adhesion_overrides.len()
            )));
        }
        for l in &m.liquids {
            let field = |f: &str| format!("liquid material '{}': {f}", l.name);
            within(
                &field("density"),
                l.density,
                MIN_DENSITY,
                MAX_DENSITY,
                " kg/m³",
            )?;
            within(
                &field("viscosity"),
                l.viscosity,
                0.0,
                MAX_VISCOSITY,
                " Pa·s",
            )?;
            within(
                &field("cohesion"),
                l.cohesion,
                -MAX_ADHESION,
                MAX_ADHESION,
                "",
            )?;
            for c in l.colour {
                within(&field("colour"), c, -MAX_COLOUR, MAX_COLOUR, "")?;
            }
        }
        for s in &m.solids {
            let field = |f: &str| format!("solid material '{}': {f}", s.name);
            within(&field("friction"), s.friction, 0.0, 1.0, "")?;
            within(
                &field("stickiness"),
                s.stickiness,
                -MAX_ADHESION,
                MAX_ADHESION,
                "",
            )?;
        }
        for o in &m.adhesion_overrides {
            let points = o.function.points.len();
            if points > MAX_ADHESION_POINTS {
                return Err(GloopError::scene(format!(
                    "adhesion override {}–{}: {points} points, more than the \
                     {MAX_ADHESION_POINTS} allowed",
                    o.a, o.b
                )));
            }
            for [_, value] in &o.function.points {
                within(
                    &format!("adhesion override {}–{}: a value", o.a, o.b),
                    *value,
                    -MAX_ADHESION,
                    MAX_ADHESION,
                    "",
                )?;
            }
        }
        let mut names: Vec<&str> = m
            .liquids
            .iter()
            .map(|l| l.name.as_str())
            .chain(m.solids.iter().map(|s| s.name.as_str()))
            .collect();
        names.sort_unstable();
        if let Some(pair) = names.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(GloopError::scene(format!(
                "material name '{}' is used twice",
                pair[0]
            )));
        }
        super::AdhesionMatrix::from_materials(m).map_err(GloopError::scene)?;
        Ok(())
    }
}
