//! Object particles: obstacle surfaces sampled into particles that follow their object's
//! motion (placed at each move's instant, interpolated between exported frames).

use std::sync::Arc;

use glam::Vec3;

use super::neighbourhoods;
use super::neighbours::CellGrid;
use super::params::Params;
use crate::geometry::{self, SurfaceSample};
use crate::scene::{Motion, Role, Scene};

/// One obstacle's samples and where they live in the flat arrays.
struct Body {
    object: usize,
    samples: Vec<SurfaceSample>,
    first: usize,
    moving: bool,
}

/// All object particles of the scene, as flat arrays.
#[derive(Default)]
pub struct ObjectParticles {
    pub position: Vec<Vec3>,
    /// Outward surface normal at each particle.
    pub normal: Vec<Vec3>,
    /// Velocity over the last placement (moving obstacles push and drag liquid).
    pub velocity: Vec<Vec3>,
    /// Adhesion-matrix index of the particle's solid material.
    pub material: Vec<u16>,
    /// True for particles of closed meshes: a liquid particle behind all the particles it
    /// touches has tunnelled inside and is pushed back out along the normal.
    pub one_sided: Vec<bool>,
    bodies: Vec<Body>,
    /// Frame (fractional) of the current placement.
    placed_at: f64,
    /// The particles' search grid at the current placement: standing obstacles keep theirs
    /// from substep to substep (re-bucketing the floor under the 100k honey block every
    /// substep cost 3% of its bake).
    grid: Option<Arc<CellGrid>>,
}

impl ObjectParticles {
    /// Samples every obstacle at the scene's first frame.
    pub fn build(scene: &Scene) -> Self {
        let r = scene.settings.particle_radius;
        let spacing = geometry::obstacle_spacing(r);
        let mut objects = ObjectParticles::default();
        for (index, object) in scene.objects.iter().enumerate() {
            let Role::Obstacle { material } = &object.role else {
                continue;
            };
            let solid = scene.materials.matrix_index(material).expect("validated") as u16;
            let start_frame = scene.settings.frame_start as f32;
            let vertices = geometry::world_vertices(&object.mesh, &object.motion, start_frame);
            let samples = geometry::sample_surface(&vertices, &object.mesh.triangles, spacing);
            let closed = geometry::open_edge_count(&object.mesh) == 0;
            let first = objects.position.len();
            for s in &samples {
                objects
                    .position
                    .push(s.position(&vertices, &object.mesh.triangles));
                objects.normal.push(geometry::triangle_normal(
                    &vertices,
                    object.mesh.triangles[s.triangle as usize],
                ));
                objects.velocity.push(Vec3::ZERO);
                objects.material.push(solid);
                objects.one_sided.push(closed);
            }
            let moving = !matches!(object.motion, Motion::Static { .. });
            objects.bodies.push(Body {
                object: index,
                samples,
                first,
                moving,
            });
        }
        objects.placed_at = scene.settings.frame_start as f64;
        objects
    }

    pub fn len(&self) -> usize {
        self.position.len()
    }

    /// The search grid of the particles where they are now (None without obstacles).
    pub fn grid(&mut self, p: &Params) -> Option<Arc<CellGrid>> {
        if self.position.is_empty() {
            return None;
        }
        let position = &self.position;
        let grid = self
            .grid
            .get_or_insert_with(|| Arc::new(neighbourhoods::object_grid(p, position)));
        Some(Arc::clone(grid))
    }

    /// Moves every moving obstacle's particles to their pose at `frame` (fractional).
    pub fn place_at(&mut self, scene: &Scene, frame: f64) {
        if self.any_moving() {
            self.grid = None;
        }
        let elapsed_seconds = ((frame - self.placed_at) / scene.settings.fps as f64) as f32;
        for body in &self.bodies {
            if !body.moving {
                continue;
            }
            let object = &scene.objects[body.object];
            let vertices = geometry::world_vertices(&object.mesh, &object.motion, frame as f32);
            for (k, s) in body.samples.iter().enumerate() {
                let i = body.first + k;
                let p = s.position(&vertices, &object.mesh.triangles);
                self.velocity[i] = if elapsed_seconds > 0.0 {
                    (p - self.position[i]) / elapsed_seconds
                } else {
                    Vec3::ZERO
                };
                self.position[i] = p;
                self.normal[i] = geometry::triangle_normal(
                    &vertices,
                    object.mesh.triangles[s.triangle as usize],
                );
            }
        }
        self.placed_at = frame;
    }

    pub fn any_moving(&self) -> bool {
        self.bodies.iter().any(|b| b.moving)
    }

    /// The particles' positions if any obstacle moves, `None` if they all stand where they
    /// were sampled (as the neighbour lists' refreshes take them).
    pub fn moved_positions(&self) -> Option<&[Vec3]> {
        self.any_moving().then_some(self.position.as_slice())
    }
}
