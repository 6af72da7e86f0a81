//! Scene validation: every check names the object or field that is wrong.

use super::settings::MAX_FRAME;
use super::{Motion, Role, Scene};
use crate::error::{GloopError, Result};
use crate::geometry;

fn finite3(v: glam::Vec3) -> bool {
    v.is_finite()
}

impl Scene {
    /// Checks everything that can be checked without simulating, including an estimate of the
    /// particle count against the cap. Called by `Scene::load` and before every bake.
    pub fn validate(&self) -> Result<()> {
        self.validate_settings()?;
        self.validate_materials()?;
        let mut estimated: u64 = 0;
        for (index, object) in self.objects.iter().enumerate() {
            let label = format!("object '{}' (#{index})", object.name);
            self.validate_object(object, &label)?;
            let count = estimate_particles(object, &self.settings);
            self.validate_liquid_holds_a_particle(object, &label, count)?;
            if count > self.settings.max_particles {
                return Err(GloopError::scene(format!(
                    "{label} would need about {count} particles at particle_radius {} m, more \
                     than the cap max_particles = {}; raise the radius or the cap",
                    self.settings.particle_radius, self.settings.max_particles
                )));
            }
            estimated += count;
        }
        if estimated > self.settings.max_particles {
            return Err(GloopError::scene(format!(
                "the scene would need about {estimated} particles at particle_radius {} m, more \
                 than the cap max_particles = {}; raise the radius or the cap",
                self.settings.particle_radius, self.settings.max_particles
            )));
        }
        Ok(())
    }

    fn validate_settings(&self) -> Result<()> {
        let s = &self.settings;
        let bad =
            |field: &str, why: &str| Err(GloopError::scene(format!("settings.{field} {why}")));
        if !(s.fps.is_finite() && s.fps > 0.0) {
            return bad("fps", "must be a positive number");
        }
        for (field, frame) in [("frame_start", s.frame_start), ("frame_end", s.frame_end)] {
            if !(-MAX_FRAME..=MAX_FRAME).contains(&frame) {
                return Err(GloopError::scene(format!(
                    "settings.{field} ({frame}) must be a frame number from -{MAX_FRAME} to \
                     {MAX_FRAME} (Blender's limit)"
                )));
            }
        }
        if s.frame_end < s.frame_start {
            return bad("frame_end", "must not be before settings.frame_start");
        }
        if !(s.particle_radius.is_finite() && s.particle_radius > 0.0) {
            return bad("particle_radius", "must be a positive number of metres");
        }
        if s.substeps == 0 || s.substeps > 1000 {
            return bad("substeps", "must be between 1 and 1000");
        }
        if s.max_substeps < s.substeps || s.max_substeps > 1000 {
            return Err(GloopError::scene(format!(
                "settings.max_substeps ({}) must be at least settings.substeps ({}), the \
                 fewest substeps a frame takes, and at most 1000",
                s.max_substeps, s.substeps
            )));
        }
        if s.moves == 0 || s.moves > 1000 {
            return bad("moves", "must be between 1 and 1000");
        }
        if !finite3(s.gravity) {
            return bad("gravity", "must be finite");
        }
        if !(s.density_tolerance.is_finite() && s.density_tolerance > 0.0) {
            return bad(
                "density_tolerance",
                "must be a positive fraction (0.01 = 1%)",
            );
        }
        if !(s.elastic_coefficient > 0.0 && s.elastic_coefficient <= 1.0) {
            return bad("elastic_coefficient", "must be in (0, 1]");
        }
        if !(finite3(s.domain.min)
            && finite3(s.domain.max)
            && s.domain.min.cmplt(s.domain.max).all())
        {
            return bad("domain", "must have finite min < max on every axis");
        }
        if s.max_particles == 0 {
            return bad("max_particles", "must be positive");
        }
        Ok(())
    }

    fn validate_materials(&self) -> Result<()> {
        let m = &self.materials;
        for l in &m.liquids {
            let ok = l.density.is_finite()
                && l.density > 0.0
                && l.viscosity.is_finite()
                && l.viscosity >= 0.0
                && l.cohesion.is_finite()
                && l.colour.iter().all(|c| c.is_finite());
            if !ok {
                return Err(GloopError::scene(format!(
                    "liquid material '{}': density must be positive, viscosity non-negative, \
                     cohesion and colour finite",
                    l.name
                )));
            }
        }
        for s in &m.solids {
            if !(s.friction.is_finite()
                && (0.0..=1.0).contains(&s.friction)
                && s.stickiness.is_finite())
            {
                return Err(GloopError::scene(format!(
                    "solid material '{}': friction must be in [0, 1] and stickiness finite",
                    s.name
                )));
            }
        }
        let names: Vec<&str> = m
            .liquids
            .iter()
            .map(|l| l.name.as_str())
            .chain(m.solids.iter().map(|s| s.name.as_str()))
            .collect();
        for (i, n) in names.iter().enumerate() {
            if names[..i].contains(n) {
                return Err(GloopError::scene(format!(
                    "material name '{n}' is used twice"
                )));
            }
        }
        super::AdhesionMatrix::from_materials(m).map_err(GloopError::scene)?;
        Ok(())
    }

    /// A liquid object that the 2r lattice misses entirely would bake nothing: the
    /// simulation refuses it, but only once a bake has started. Only a liquid with few
    /// lattice cells of volume can be missed, and filling one of those is cheap, so the check
    /// is exact (the simulation's own fill) and costs nothing for the others.
    fn validate_liquid_holds_a_particle(
        &self,
        object: &super::SceneObject,
        label: &str,
        estimated: u64,
    ) -> Result<()> {
        const FEW_CELLS: u64 = 1000;
        if !matches!(object.role, Role::Liquid { .. }) || estimated >= FEW_CELLS {
            return Ok(());
        }
        let r = self.settings.particle_radius;
        let first = self.settings.frame_start as f32;
        let world = geometry::world_vertices(&object.mesh, &object.motion, first);
        if geometry::fill_closed_mesh(&world, &object.mesh.triangles, 2.0 * r).is_empty() {
            return Err(GloopError::scene(format!(
                "{label} is too small to hold a liquid particle at particle_radius {r} m; \
                 lower the radius or enlarge the object"
            )));
        }
        Ok(())
    }

    fn validate_object(&self, object: &super::SceneObject, label: &str) -> Result<()> {
        let m = &self.materials;
        let material = object.role.material();
        let known = match &object.role {
            Role::Liquid { .. } | Role::Emitter { .. } => m.liquid_index(material).is_some(),
            Role::Obstacle { .. } => m.solid_index(material).is_some(),
        };
        if !known {
            let kind = match object.role {
                Role::Obstacle { .. } => "solid",
                _ => "liquid",
            };
            return Err(GloopError::scene(format!(
                "{label} uses unknown {kind} material '{material}'"
            )));
        }
        let mesh = &object.mesh;
        if mesh.triangles.is_empty() {
            return Err(GloopError::scene(format!("{label} has no triangles")));
        }
        let nv = mesh.vertices.len() as u32;
        if let Some(t) = mesh.triangles.iter().find(|t| t.iter().any(|&i| i >= nv)) {
            return Err(GloopError::scene(format!(
                "{label}: triangle {t:?} refers to a vertex beyond the {nv} vertices"
            )));
        }
        if let Some(i) = mesh.vertices.iter().position(|v| !v.is_finite()) {
            return Err(GloopError::scene(format!(
                "{label}: vertex {i} is not finite (NaN or inf)"
            )));
        }
        match &object.motion {
            Motion::Static { matrix } => {
                if !matrix.is_finite() {
                    return Err(GloopError::scene(format!(
                        "{label}: motion matrix is not finite (NaN or inf)"
                    )));
                }
            }
            Motion::Rigid {
                first_frame,
                matrices,
            } => {
                if matrices.is_empty() {
                    return Err(GloopError::scene(format!(
                        "{label}: rigid motion has no matrices"
                    )));
                }
                if let Some(k) = matrices.iter().position(|m| !m.is_finite()) {
                    return Err(GloopError::scene(format!(
                        "{label}: motion matrix of frame {} is not finite (NaN or inf)",
                        first_frame + k as i32
                    )));
                }
            }
            Motion::Deforming {
                first_frame,
                positions,
            } => {
                if positions.is_empty() {
                    return Err(GloopError::scene(format!(
                        "{label}: deforming motion has no frames"
                    )));
                }
                for (k, frame) in positions.iter().enumerate() {
                    let f = first_frame + k as i32;
                    if frame.len() != mesh.vertices.len() {
                        return Err(GloopError::scene(format!(
                            "{label}: frame {f} has {} vertex positions, the mesh has {}",
                            frame.len(),
                            mesh.vertices.len()
                        )));
                    }
                    if frame.iter().any(|v| !v.is_finite()) {
                        return Err(GloopError::scene(format!(
                            "{label}: vertex positions of frame {f} are not finite (NaN or inf)"
                        )));
                    }
                }
            }
        }
        match &object.role {
            Role::Liquid {
                initial_velocity, ..
            } => {
                let open = geometry::open_edge_count(mesh);
                if open > 0 {
                    return Err(GloopError::scene(format!(
                        "{label}: a liquid mesh must be closed, but {open} edges belong to only \
                         one triangle (or to more than two)"
                    )));
                }
                if !initial_velocity.is_finite() {
                    return Err(GloopError::scene(format!(
                        "{label}: initial_velocity is not finite"
                    )));
                }
            }
            Role::Emitter { emission, .. } => {
                let area = geometry::nozzle_area(object, self.settings.frame_start);
                emission
                    .resolve(area, self.settings.particle_radius)
                    .map_err(|why| GloopError::scene(format!("{label}: {why}")))?;
                if emission.frame_end < emission.frame_start {
                    return Err(GloopError::scene(format!(
                        "{label}: emission frame_end is before frame_start"
                    )));
                }
            }
            Role::Obstacle { .. } => {}
        }
        Ok(())
    }
}

/// Rough particle count of one object, before any particle is made (for the cap check).
pub fn estimate_particles(object: &super::SceneObject, settings: &super::Settings) -> u64 {
    let radius = settings.particle_radius;
    let world = geometry::world_vertices(&object.mesh, &object.motion, f32::NEG_INFINITY);
    let spacing = 2.0 * radius as f64;
    match &object.role {
        Role::Liquid { .. } => {
            (geometry::enclosed_volume(&world, &object.mesh.triangles).abs() as f64
                / spacing.powi(3)) as u64
        }
        Role::Obstacle { .. } => {
            let s = geometry::obstacle_spacing(radius) as f64;
            (geometry::surface_area(&world, &object.mesh.triangles) as f64 / (s * s)) as u64
        }
        Role::Emitter { emission, .. } => {
            let frames = (emission.frame_end - emission.frame_start).max(0) as f64;
            let area = geometry::nozzle_area(object, settings.frame_start);
            let per_second = emission
                .resolve(area, radius)
                .map_or(0.0, |e| e.particles_per_second);
            (per_second * frames / settings.fps as f64).ceil() as u64
        }
    }
}
