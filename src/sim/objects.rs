//! Object particles: obstacle surfaces sampled into particles that follow their object's
//! motion (placed at each move's instant, interpolated between exported frames), and rigid
//! bodies' surfaces sampled alike, which follow the body's own motion (`rigid`).

use std::sync::{Arc, Mutex};

use glam::{DQuat, Vec3};

use super::neighbourhoods;
use super::neighbours::CellGrid;
use super::params::Params;
use super::rigid::reactions::{self, Impulse, Taken, NO_BODY};
use super::rigid::{RigidBody, Sampled};
use super::state::BodyState;
use super::LiquidParticles;
use crate::error::{GloopError, Result};
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
    /// The rigid body each particle belongs to (an index into `rigid`), `NO_BODY` for an
    /// obstacle's.
    pub body: Vec<u32>,
    bodies: Vec<Body>,
    /// The scene's rigid bodies, in scene order.
    pub rigid: Vec<RigidBody>,
    /// The liquid's impulses on each rigid body since the last time they took them.
    ledger: Mutex<Vec<Impulse>>,
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
            let material = match &object.role {
                Role::Obstacle { material } | Role::RigidBody { material, .. } => material,
                _ => continue,
            };
            let rigid = matches!(object.role, Role::RigidBody { .. });
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
                objects.body.push(match rigid {
                    true => objects.rigid.len() as u32,
                    false => NO_BODY,
                });
            }
            if rigid {
                let sampled = Sampled {
                    object: index,
                    vertices: &vertices,
                    samples: &samples,
                    first,
                };
                let body = RigidBody::new(scene, sampled).expect("validated");
                objects.rigid.push(body);
                // A body's particles are placed from its state, not its motion.
                continue;
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
        objects.ledger = Mutex::new(vec![Impulse::default(); objects.rigid.len()]);
        objects.place_bodies(scene.settings.frame_start as f64, scene.settings.fps);
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
        self.place_bodies(frame, scene.settings.fps);
        self.placed_at = frame;
    }

    pub fn any_moving(&self) -> bool {
        self.bodies.iter().any(|b| b.moving) || !self.rigid.is_empty()
    }

    /// Places every rigid body's particles at its pose at `frame`, with the velocities of
    /// its motion there.
    fn place_bodies(&mut self, frame: f64, fps: f32) {
        if self.rigid.is_empty() {
            return;
        }
        self.grid = None;
        for body in &self.rigid {
            let state = body.state_at(frame, fps);
            for k in 0..body.local.len() {
                let i = body.first + k;
                (self.position[i], self.normal[i], self.velocity[i]) = body.particle(&state, k);
            }
        }
    }

    pub fn has_bodies(&self) -> bool {
        !self.rigid.is_empty()
    }

    /// The rigid bodies' states at the current placement.
    pub fn body_states(&self) -> Vec<BodyState> {
        self.rigid.iter().map(|b| b.state).collect()
    }

    /// Continues the rigid bodies from `states` saved at `frame` (none saved: the scene's
    /// starting states, which only a bake's first frame may have).
    pub fn resume_bodies(&mut self, states: &[BodyState], frame: i32, fps: f32) -> Result<()> {
        if states.len() != self.rigid.len() {
            return Err(GloopError::scene(format!(
                "the saved state of frame {frame} has {} rigid bodies, the scene {}; bake \
                 again from the first frame",
                states.len(),
                self.rigid.len()
            )));
        }
        for (body, state) in self.rigid.iter_mut().zip(states) {
            body.resume_at(*state, frame as f64);
        }
        self.place_bodies(frame as f64, fps);
        Ok(())
    }

    /// A substep's end at `frame`: every body moves to its pose there and takes the liquid's
    /// impulses recorded over the substep, and gravity's over it (`rigid` says why then).
    pub fn finish_substep(&mut self, p: &Params, frame: f64) {
        if self.rigid.is_empty() {
            return;
        }
        let from: Vec<DQuat> = self.rigid.iter().map(|b| b.state.orientation).collect();
        for (body, from) in self.rigid.iter_mut().zip(from) {
            body.finish_substep(frame, p.fps);
            body.keep_angular_momentum(from);
            body.fall(p.gravity, p.dt);
        }
        self.take_reactions(frame, p.fps, p.dt);
    }

    /// Every body takes the liquid's impulses recorded since it last did (at its current
    /// pose), and its particles the velocities that gives.
    ///
    /// At a substep's end (`over` its δt) the body is also moved as the impulse would have
    /// moved it over the substep, as the liquid's corrections move the liquid (position-based
    /// dynamics): the liquid's support then lifts a resting body back each substep as it
    /// lifts the liquid, rather than only stopping its fall. Velocity alone let gravity sink
    /// a body of honey's own density through honey by about g δt² a substep (39 mm/s at 4
    /// substeps a frame, 17 mm/s at 16).
    pub fn take_reactions(&mut self, frame: f64, fps: f32, over: f32) {
        if self.rigid.is_empty() {
            return;
        }
        let ledger = std::mem::take(&mut *self.ledger.lock().expect("ledger"));
        for (body, impulse) in self.rigid.iter_mut().zip(&ledger) {
            let about_centre = impulse.angular - body.state.position.cross(impulse.linear);
            body.take_impulse_over(impulse.linear, about_centre, over as f64);
        }
        *self.ledger.lock().expect("ledger") = vec![Impulse::default(); ledger.len()];
        self.place_bodies(frame, fps);
    }

    /// Body `b` takes an impulse `linear` and angular impulse `angular` (about its centre of
    /// mass) now, at the pose its particles stand in, and they take its new velocities.
    pub fn body_takes(&mut self, b: usize, linear: glam::DVec3, angular: glam::DVec3) {
        let body = &mut self.rigid[b];
        body.take_impulse(linear, angular);
        let s = body.state;
        for i in body.first..body.first + body.local.len() {
            let r = self.position[i].as_dvec3() - s.position;
            self.velocity[i] = (s.velocity + s.angular_velocity.cross(r)).as_vec3();
        }
    }

    /// Records what an operation did to the liquid through the bodies' particles: `taken[i]`
    /// is liquid particle i's (body, change of its final velocity) (`rigid::reactions`).
    pub fn record(&self, p: &Params, liquid: &LiquidParticles, taken: &[Taken]) {
        let mut ledger = self.ledger.lock().expect("ledger");
        let mass = |i: usize| p.liquid_mass[liquid.material[i] as usize];
        reactions::add(&mut ledger, &liquid.position, mass, taken);
    }

    /// The impulses recorded so far (to cut a pass's share back later).
    pub fn recorded(&self) -> Vec<Impulse> {
        self.ledger.lock().expect("ledger").clone()
    }

    /// Puts back `impulses` as the impulses recorded so far.
    pub fn set_recorded(&self, impulses: Vec<Impulse>) {
        *self.ledger.lock().expect("ledger") = impulses;
    }

    /// The body that object particle `k` belongs to, `NO_BODY` for an obstacle's.
    pub fn body_of(&self, k: usize) -> u32 {
        self.body[k]
    }

    /// The particles' positions if any obstacle moves, `None` if they all stand where they
    /// were sampled (as the neighbour lists' refreshes take them).
    pub fn moved_positions(&self) -> Option<&[Vec3]> {
        self.any_moving().then_some(self.position.as_slice())
    }
}
