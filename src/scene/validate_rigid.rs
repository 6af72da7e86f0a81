//! A rigid body's own checks (issue 44): a closed mesh enclosing a volume, one of density or
//! mass, positive and finite, a finite starting speed, and a pose it starts from.

use super::limits::MAX_SPEED;
use super::{Motion, Role, Scene, SceneObject};
use crate::error::{GloopError, Result};
use crate::geometry::{self, MassProperties};

/// Densities beyond these are no solid an artist means (osmium is 22,590 kg/m³; aerogel
/// 1 kg/m³), and keep the body's mass, inertia and their inverses far inside f32's range.
pub const DENSITY_RANGE: std::ops::RangeInclusive<f32> = 1e-3..=1e6;

pub(super) fn rigid_body(scene: &Scene, object: &SceneObject, label: &str) -> Result<()> {
    let Role::RigidBody {
        density,
        mass,
        initial_velocity,
        ..
    } = &object.role
    else {
        return Ok(());
    };
    let fail = |why: String| Err(GloopError::scene(format!("{label}: {why}")));
    if matches!(object.motion, Motion::Deforming { .. }) {
        return fail(
            "a rigid body cannot deform: give it a static or animated (rigid) pose to start \
             from"
                .into(),
        );
    }
    let open = geometry::open_edge_count(&object.mesh);
    if open > 0 {
        return fail(format!(
            "a rigid body's mesh must be closed, but {open} edges belong to only one triangle \
             (or to more than two)"
        ));
    }
    let vertices = geometry::world_vertices(
        &object.mesh,
        &object.motion,
        scene.settings.frame_start as f32,
    );
    let Some(solid) = MassProperties::of_mesh(&vertices, &object.mesh.triangles, 1.0) else {
        return fail(
            "its mesh encloses no volume (it is flat, or its faces point inwards); a rigid \
             body needs a solid shape"
                .into(),
        );
    };
    let density = match (density, mass) {
        (Some(_), Some(_)) => return fail("give a density or a mass, not both".into()),
        (None, None) => return fail("a rigid body needs a density (kg/m³) or a mass (kg)".into()),
        (Some(d), None) => *d as f64,
        (None, Some(m)) => {
            if !(m.is_finite() && *m > 0.0) {
                return fail(format!("mass must be a number above 0 kg, not {m}"));
            }
            *m as f64 / solid.volume
        }
    };
    let (lo, hi) = (*DENSITY_RANGE.start() as f64, *DENSITY_RANGE.end() as f64);
    if !(density.is_finite() && density > 0.0) {
        return fail(format!(
            "density must be a number above 0 kg/m³, not {density}"
        ));
    }
    if !(lo..=hi).contains(&density) {
        return fail(format!(
            "density {density:.4e} kg/m³ (its mass over its volume of {:.4e} m³) is outside \
             {lo:e}..{hi:e} kg/m³",
            solid.volume
        ));
    }
    let speed = initial_velocity.length();
    if speed.is_nan() || speed > MAX_SPEED {
        return fail(format!(
            "initial_velocity has speed {speed} m/s; it must be finite and at most \
             {MAX_SPEED} m/s"
        ));
    }
    Ok(())
}

/// The density a valid rigid body's role gives it, kg/m³, with its mesh's volume at `vertices`.
pub fn density_of(role: &Role, volume: f64) -> Option<f64> {
    match role {
        Role::RigidBody {
            density: Some(d), ..
        } => Some(*d as f64),
        Role::RigidBody { mass: Some(m), .. } => Some(*m as f64 / volume),
        _ => None,
    }
}
