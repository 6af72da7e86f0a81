//! Scene validation: every check names the object or field that is wrong.

use super::limits::MAX_SPEED;
use super::settings::MAX_FRAME;
use super::{particle_budget, Motion, Role, Scene};
use crate::error::{GloopError, Result};
use crate::geometry;

impl Scene {
    /// Checks everything that can be checked without simulating, including an estimate of the
    /// particle count against the cap. Called by `Scene::load` and before every bake.
    pub fn validate(&self) -> Result<()> {
        self.validate_settings()?;
        self.validate_materials()?;
        let s = &self.settings;
        let mut counts = Vec::with_capacity(self.objects.len());
        for (index, object) in self.objects.iter().enumerate() {
            // The index only tells apart objects of the same name (a hand-written scene).
            let same_name = self
                .objects
                .iter()
                .filter(|o| o.name == object.name)
                .count();
            let label = match same_name {
                1 => format!("object '{}'", object.name),
                _ => format!("object '{}' (#{index})", object.name),
            };
            self.validate_object(object, &label)?;
            let at = format!("at frame {}, where its particles are made", s.frame_start);
            let count = particle_budget::particles_made(object, s)
                .map_err(|why| GloopError::scene(format!("{label} {at}: {why}")))?;
            if count == 0 && matches!(object.role, Role::Liquid { .. }) {
                return Err(GloopError::scene(format!(
                    "{label} is too small to hold a liquid particle at particle_radius {} m \
                     ({at}); lower the radius or enlarge the object",
                    s.particle_radius
                )));
            }
            counts.push((label, at, count));
        }
        // An obstacle's count is an upper bound; where the bounds would refuse the scene, the
        // obstacles are counted exactly before it is refused.
        let over = |counts: &[(String, String, u64)]| {
            let total = counts.iter().fold(0u64, |t, c| t.saturating_add(c.2));
            total > s.max_particles || counts.iter().any(|c| c.2 > s.max_particles)
        };
        if over(&counts) {
            for (object, count) in self.objects.iter().zip(&mut counts) {
                if object.role.is_solid() {
                    count.2 = particle_budget::obstacle_samples(object, s);
                }
            }
        }
        for (label, at, count) in &counts {
            if *count > s.max_particles {
                return Err(GloopError::scene(format!(
                    "{label} would need up to {count} particles {at}, at particle_radius {} m: \
                     more than the cap max_particles = {}; raise the radius or the cap",
                    s.particle_radius, s.max_particles
                )));
            }
        }
        let total = counts.iter().fold(0u64, |t, c| t.saturating_add(c.2));
        if total > s.max_particles {
            return Err(GloopError::scene(format!(
                "the scene would need up to {total} particles at particle_radius {} m, more \
                 than the cap max_particles = {}; raise the radius or the cap",
                s.particle_radius, s.max_particles
            )));
        }
        Ok(())
    }

    /// A bake that would make no liquid at all is refused: it would finish "baked" with
    /// nothing in it (issue 42). Liquid objects always hold a particle (`validate` checks), so
    /// only a scene without any, whose emitters emit nothing within the bake's frames, is.
    /// Checked where a bake starts, not in `validate`: a scene file is still a scene without
    /// liquid (an old bake's, to open or re-mesh), and the validations place their particles
    /// themselves.
    pub fn validate_makes_liquid(&self) -> Result<()> {
        let s = &self.settings;
        let mut emitters = Vec::new();
        for object in &self.objects {
            match &object.role {
                Role::Liquid { .. } => return Ok(()),
                Role::Emitter { emission, .. } => {
                    let area = geometry::nozzle_area(object, s.frame_start);
                    let resolved = emission
                        .resolve(area, s.particle_radius)
                        .map_err(GloopError::scene)?;
                    if particle_budget::emitted_in_bake(emission, &resolved, s) > 0 {
                        return Ok(());
                    }
                    let end = match emission.frame_end {
                        MAX_FRAME => "the end".to_string(),
                        frame => format!("frame {frame}"),
                    };
                    emitters.push(format!(
                        "'{}' emits from frame {} to {end}",
                        object.name, emission.frame_start
                    ));
                }
                Role::Obstacle { .. } | Role::RigidBody { .. } => {}
            }
        }
        let frames = format!("frames {}..{}", s.frame_start, s.frame_end);
        Err(GloopError::scene(if emitters.is_empty() {
            format!(
                "the scene has no liquid object and no emitter: a bake of {frames} would make \
                 nothing; give an object the liquid or emitter role"
            )
        } else {
            format!(
                "the scene would make no liquid in {frames}: it has no liquid object, and no \
                 emitter emits a particle then ({}); bake frames in which an emitter runs, \
                 change its emission frames, or raise its flow",
                emitters.join(", ")
            )
        }))
    }

    fn validate_object(&self, object: &super::SceneObject, label: &str) -> Result<()> {
        let m = &self.materials;
        let material = object.role.material();
        let known = match &object.role {
            Role::Liquid { .. } | Role::Emitter { .. } => m.liquid_index(material).is_some(),
            Role::Obstacle { .. } | Role::RigidBody { .. } => m.solid_index(material).is_some(),
        };
        if !known {
            let kind = if object.role.is_solid() {
                "solid"
            } else {
                "liquid"
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
        self.validate_motion(object, label)?;
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
                let speed = initial_velocity.length();
                if speed.is_nan() || speed > MAX_SPEED {
                    return Err(GloopError::scene(format!(
                        "{label}: initial_velocity has speed {speed} m/s; it must be finite and \
                         at most {MAX_SPEED} m/s"
                    )));
                }
                self.validate_periodic_extent(object, label)?;
            }
            Role::Emitter { emission, .. } => {
                let area = geometry::nozzle_area(object, self.settings.frame_start);
                emission
                    .resolve(area, self.settings.particle_radius)
                    .map_err(|why| GloopError::scene(format!("{label}: {why}")))?;
                for (field, frame) in [
                    ("frame_start", emission.frame_start),
                    ("frame_end", emission.frame_end),
                ] {
                    if !(-MAX_FRAME..=MAX_FRAME).contains(&frame) {
                        return Err(GloopError::scene(format!(
                            "{label}: emission {field} ({frame}) must be a frame number from \
                             -{MAX_FRAME} to {MAX_FRAME} (Blender's limit)"
                        )));
                    }
                }
                if let Some(speed) = emission.speed.filter(|&v| v.is_nan() || v > MAX_SPEED) {
                    return Err(GloopError::scene(format!(
                        "{label}: emission speed ({speed} m/s) must be at most {MAX_SPEED} m/s"
                    )));
                }
                if emission.frame_end < emission.frame_start {
                    return Err(GloopError::scene(format!(
                        "{label}: emission frame_end is before frame_start"
                    )));
                }
            }
            Role::Obstacle { .. } => {}
            Role::RigidBody { .. } => super::validate_rigid::rigid_body(self, object, label)?,
        }
        Ok(())
    }

    /// Motion records complete and finite, at frames within Blender's range, and every pose
    /// finite in world space (a finite matrix can still carry a vertex past f32's range).
    fn validate_motion(&self, object: &super::SceneObject, label: &str) -> Result<()> {
        let mesh = &object.mesh;
        let (first_frame, poses) = match &object.motion {
            Motion::Static { .. } => (0, 1),
            Motion::Rigid {
                first_frame,
                matrices,
            } => (*first_frame, matrices.len()),
            Motion::Deforming {
                first_frame,
                positions,
            } => (*first_frame, positions.len()),
        };
        if poses == 0 {
            return Err(GloopError::scene(format!(
                "{label}: its motion has no frames"
            )));
        }
        let last = i64::from(first_frame) + poses as i64 - 1;
        if first_frame < -MAX_FRAME || last > i64::from(MAX_FRAME) {
            return Err(GloopError::scene(format!(
                "{label}: its motion's {poses} frames from frame {first_frame} must lie within \
                 -{MAX_FRAME}..{MAX_FRAME} (Blender's limit)"
            )));
        }
        let frame_of = |k: usize| first_frame + k as i32;
        match &object.motion {
            Motion::Static { matrix } => check_matrix(mesh, matrix, label, "its matrix")?,
            Motion::Rigid { matrices, .. } => {
                for (k, m) in matrices.iter().enumerate() {
                    let what = format!("its matrix of frame {}", frame_of(k));
                    check_matrix(mesh, m, label, &what)?;
                }
            }
            Motion::Deforming { positions, .. } => {
                for (k, frame) in positions.iter().enumerate() {
                    let f = frame_of(k);
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
        Ok(())
    }

    /// Along a periodic axis, liquid longer than the period would be wrapped onto itself:
    /// particles stacked on particles, every one a neighbour of thousands (a ±1 mm periodic
    /// domain around the honey drop took over 40 s a frame).
    fn validate_periodic_extent(&self, object: &super::SceneObject, label: &str) -> Result<()> {
        let s = &self.settings;
        if !s.domain.periodic.contains(&true) {
            return Ok(());
        }
        let frame = s.frame_start;
        let world = geometry::world_vertices(&object.mesh, &object.motion, frame as f32);
        let (lo, hi) = geometry::bounds(&world);
        for axis in 0..3 {
            let period = s.domain.max[axis] - s.domain.min[axis];
            let extent = hi[axis] - lo[axis];
            if s.domain.periodic[axis]
                && (extent.is_nan() || extent > period + 2.0 * s.particle_radius)
            {
                return Err(GloopError::scene(format!(
                    "{label} is {extent} m long along axis {axis} at frame {frame}, longer than \
                     the periodic domain's {period} m: its liquid would wrap onto itself; \
                     shrink it or widen settings.domain"
                )));
            }
        }
        Ok(())
    }
}

/// A finite matrix that keeps the mesh finite: the images of its bounding box's corners
/// bound the images of all its vertices, at this pose and at any pose interpolated from it.
fn check_matrix(mesh: &super::TriMesh, m: &glam::Mat4, label: &str, what: &str) -> Result<()> {
    if !m.is_finite() {
        return Err(GloopError::scene(format!(
            "{label}: {what} is not finite (NaN or inf)"
        )));
    }
    let (lo, hi) = geometry::bounds(&mesh.vertices);
    let corners = (0..8).map(|c| {
        glam::Vec3::new(
            if c & 1 == 0 { lo.x } else { hi.x },
            if c & 2 == 0 { lo.y } else { hi.y },
            if c & 4 == 0 { lo.z } else { hi.z },
        )
    });
    for corner in corners {
        if !m.transform_point3(corner).is_finite() {
            return Err(GloopError::scene(format!(
                "{label}: {what} carries the mesh beyond single precision's range"
            )));
        }
    }
    Ok(())
}
