//! Rigid bodies in the liquid (issue 44): each body's surface is
//! sampled into object particles as an obstacle's is, held in the body's frame and placed
//! with its pose at every move; the liquid feels them as it feels an animated obstacle. Every
//! operation by which an object particle changes a liquid particle's momentum records the
//! equal and opposite change on the particle's body (`reactions.rs`), and at the substep's
//! end the body takes that impulse (weak, explicit coupling), except the viscous exchange,
//! which the implicit viscosity solves with the body's velocity among its unknowns (strong).
//! Measurements and what is left: `rigid_notes.md` beside this file.
//!
//! Per substep of δt, from state (x, q, v, ω) at its start:
//! 1. the implicit viscosity solves the body's (v, ω) with the liquid's (strong coupling of
//!    the viscous exchange, `viscosity_operator::BodyNodes`; weakly coupled, honey's drag on
//!    a steel ball overshot and threw it out of the liquid);
//! 2. during the moves the body moves at (v, ω): pose x + v τ, exp(ω τ) q, particle
//!    velocities v + ω × r;
//! 3. at its end the pose is the one at τ = δt; the angular momentum I_w(q) ω is kept through
//!    the rotation, ω = I_w(q_end)⁻¹ I_w(q_start) ω (a spinning body precesses without
//!    gaining energy); the liquid's other impulses J, L (about the centre of mass), recorded
//!    over the substep, act, v += J / m, ω += I_w⁻¹ L, moving the pose too by what that
//!    change would have moved it over the substep (as the liquid's corrections move it), and
//!    gravity acts, v += g δt.
//!
//! Gravity and the liquid's pushes act together at the substep's end, so the body moves
//! through the next substep with both: a gravity kick at the start instead (0.1 m/s per
//! substep at 96 substeps a second), met by the liquid's pushes only at the end, carried a
//! steel ball sinking at 9 mm/s through honey at 57 mm/s.
//!
//! The liquid's side of every exchange is the same number with the opposite sign, so with
//! gravity off liquid and bodies together keep their momentum (where the liquid's own
//! operations keep it; see `reactions.rs` for what is not exchanged).
//!
//! Rapier (a later step, for body-body and body-obstacle contact) can take over steps 1-3:
//! its `RigidBody` holds the same state (`BodyState`), takes J and L as
//! `apply_impulse`/`apply_torque_impulse` and is stepped once per substep; the liquid keeps
//! reading the pose at each move's instant from the state at the substep's start.

use glam::{DMat3, DQuat, DVec3, Vec3};

use super::state::BodyState;
use crate::geometry::{self, MassProperties, SurfaceSample};
use crate::scene::{Role, Scene};

pub mod reactions;

/// One rigid body: its mass properties, its surface samples in its own frame, and its state.
pub struct RigidBody {
    /// Its index in the scene's objects.
    pub object: usize,
    pub mass: f64,
    /// About the centre of mass, in the body frame.
    inertia: DMat3,
    inverse_inertia: DMat3,
    /// Where its object particles start in the flat arrays, and their positions and normals
    /// relative to the centre of mass, in the body frame.
    pub first: usize,
    pub local: Vec<Vec3>,
    pub local_normal: Vec<Vec3>,
    /// The state at `started_at` (a fractional frame): a substep's start.
    pub state: BodyState,
    started_at: f64,
}

/// Surface samples of a rigid body, as `ObjectParticles::build` makes them from its mesh.
pub struct Sampled<'a> {
    pub object: usize,
    pub vertices: &'a [Vec3],
    pub samples: &'a [SurfaceSample],
    pub first: usize,
}

impl RigidBody {
    /// The body of `sampled`'s object in the pose it starts the bake in, at rest apart from
    /// its initial velocity. `None` for an object that is no valid rigid body (validation
    /// refuses those first).
    pub fn new(scene: &Scene, sampled: Sampled) -> Option<Self> {
        let object = &scene.objects[sampled.object];
        let Role::RigidBody {
            initial_velocity, ..
        } = &object.role
        else {
            return None;
        };
        let triangles = &object.mesh.triangles;
        let unit = MassProperties::of_mesh(sampled.vertices, triangles, 1.0)?;
        let density = crate::scene::rigid_density(&object.role, unit.volume)?;
        let solid = MassProperties::of_mesh(sampled.vertices, triangles, density)?;
        let centre = solid.centre;
        let local = sampled
            .samples
            .iter()
            .map(|s| (s.position(sampled.vertices, triangles).as_dvec3() - centre).as_vec3())
            .collect();
        let local_normal = sampled
            .samples
            .iter()
            .map(|s| geometry::triangle_normal(sampled.vertices, triangles[s.triangle as usize]))
            .collect();
        Some(RigidBody {
            object: sampled.object,
            mass: solid.mass,
            inertia: solid.inertia,
            inverse_inertia: solid.inertia.inverse(),
            first: sampled.first,
            local,
            local_normal,
            state: BodyState {
                position: centre,
                orientation: DQuat::IDENTITY,
                velocity: initial_velocity.as_dvec3(),
                angular_velocity: DVec3::ZERO,
            },
            started_at: scene.settings.frame_start as f64,
        })
    }

    /// Continues from a saved state at `frame`.
    pub fn resume_at(&mut self, state: BodyState, frame: f64) {
        self.state = state;
        self.started_at = frame;
    }

    /// The state at `frame` (fractional, within the current substep): moved at constant
    /// velocity and angular velocity from the substep's start.
    pub fn state_at(&self, frame: f64, fps: f32) -> BodyState {
        let tau = (frame - self.started_at) / fps as f64;
        let s = &self.state;
        if tau == 0.0 {
            return *s;
        }
        BodyState {
            position: s.position + s.velocity * tau,
            orientation: (DQuat::from_scaled_axis(s.angular_velocity * tau) * s.orientation)
                .normalize(),
            ..*s
        }
    }

    /// Gravity's impulse over a substep, taken at its start.
    pub fn fall(&mut self, gravity: Vec3, dt: f32) {
        self.state.velocity += gravity.as_dvec3() * dt as f64;
    }

    /// Moves the body to its pose at `frame`, the substep's end, and starts the next
    /// substep from there.
    pub fn finish_substep(&mut self, frame: f64, fps: f32) {
        self.state = self.state_at(frame, fps);
        self.started_at = frame;
    }

    /// The inertia tensor in the world frame at `orientation`.
    fn world_inertia(&self, orientation: DQuat) -> (DMat3, DMat3) {
        let r = DMat3::from_quat(orientation);
        (
            r * self.inertia * r.transpose(),
            r * self.inverse_inertia * r.transpose(),
        )
    }

    /// The inertia tensor in the world frame now.
    pub fn world_inertia_now(&self) -> DMat3 {
        self.world_inertia(self.state.orientation).0
    }

    /// Takes an impulse `linear` (N·s) and an angular impulse `angular` (N·m·s, about its
    /// centre of mass), at its current pose.
    pub fn take_impulse(&mut self, linear: DVec3, angular: DVec3) {
        let (_, inverse) = self.world_inertia(self.state.orientation);
        self.state.velocity += linear / self.mass;
        self.state.angular_velocity += inverse * angular;
    }

    /// `take_impulse`, and the pose moved as the velocity change would have moved it over
    /// `seconds` (`ObjectParticles::take_reactions` says why).
    pub fn take_impulse_over(&mut self, linear: DVec3, angular: DVec3, seconds: f64) {
        let (v, w) = (self.state.velocity, self.state.angular_velocity);
        self.take_impulse(linear, angular);
        if seconds > 0.0 {
            let s = &mut self.state;
            s.position += (s.velocity - v) * seconds;
            let turn = DQuat::from_scaled_axis((s.angular_velocity - w) * seconds);
            s.orientation = (turn * s.orientation).normalize();
        }
    }

    /// Ends a substep that started with orientation `from`: the angular momentum the body had
    /// then is kept through its rotation to the current orientation.
    pub fn keep_angular_momentum(&mut self, from: DQuat) {
        let (inertia_then, _) = self.world_inertia(from);
        let momentum = inertia_then * self.state.angular_velocity;
        let (_, inverse_now) = self.world_inertia(self.state.orientation);
        self.state.angular_velocity = inverse_now * momentum;
    }

    /// Linear momentum and angular momentum about the world origin (kg·m/s, kg·m²/s).
    pub fn momentum(&self) -> (DVec3, DVec3) {
        let s = &self.state;
        let linear = s.velocity * self.mass;
        let (inertia, _) = self.world_inertia(s.orientation);
        (
            linear,
            inertia * s.angular_velocity + s.position.cross(linear),
        )
    }

    /// The world position, normal and velocity of sample `k` in `state`.
    pub fn particle(&self, state: &BodyState, k: usize) -> (Vec3, Vec3, Vec3) {
        let r = state.orientation * self.local[k].as_dvec3();
        let n = state.orientation * self.local_normal[k].as_dvec3();
        let v = state.velocity + state.angular_velocity.cross(r);
        ((state.position + r).as_vec3(), n.as_vec3(), v.as_vec3())
    }
}
