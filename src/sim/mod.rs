//! Steele et al. 2004's viscous-liquid solver. `substep.rs` is the paper's Figure 3; the
//! other files are its pieces.

pub mod adaptive;
pub mod avx2;
mod bf16;
mod cg;
mod csr;
mod density;
mod eight_lanes;
mod emitters;
mod forces;
pub mod kernels;
mod momentum;
mod moves;
mod neighbourhoods;
pub mod neighbours;
mod objects;
mod params;
pub mod phases;
mod picking;
mod rigid;
pub mod state;
mod substep;
mod viscosity_classic;
mod viscosity_implicit;
mod viscosity_operator;

use std::sync::atomic::{AtomicBool, Ordering};

use glam::Vec3;

pub use params::{CONTACT_SKIN_RADII, SKIN_RADII};
pub use state::{BodyState, FrameStats, LiquidParticles, PassCapReport};
pub use viscosity_implicit::profile as implicit_viscosity_profile;

use crate::error::{GloopError, Result};
use crate::geometry;
use crate::scene::limits::max_fill_row_tests;
use crate::scene::{Motion, Role, Scene, SceneObject, TriMesh, ViscosityModel};
use emitters::Emitter;
use neighbourhoods::Neighbourhoods;
use objects::ObjectParticles;
use params::Params;

/// Warnings about a scene that bakes, but not as it asks: liquids thinner than asked under
/// the classic viscosity model, emitters pouring faster than asked. Cheap (no particles are
/// made), so callers check before a bake starts.
pub fn scene_warnings(scene: &Scene) -> Result<Vec<String>> {
    let params = Params::new(scene).map_err(GloopError::scene)?;
    let mut warnings = viscosity_classic::shortfall_warnings(scene, &params);
    warnings.extend(emitters::speed_warnings(scene));
    Ok(warnings)
}

/// A rigid body's name, mass (kg), state, and momenta: linear (kg·m/s) and angular about the
/// world origin (kg·m²/s).
#[derive(Clone, Debug, PartialEq)]
pub struct RigidBodyInfo {
    pub name: String,
    pub mass: f64,
    pub state: BodyState,
    pub momentum: (glam::DVec3, glam::DVec3),
}

/// A running simulation of one scene.
pub struct Simulation {
    scene: Scene,
    params: Params,
    frame: i32,
    liquid: LiquidParticles,
    objects: ObjectParticles,
    emitters: Vec<Emitter>,
}

impl Simulation {
    /// The scene's initial state at `settings.frame_start`: liquid objects filled on the 2r
    /// lattice, obstacles sampled into object particles. Fails, naming the object, on invalid
    /// input.
    pub fn new(scene: &Scene) -> Result<Self> {
        let mut liquid = LiquidParticles::default();
        let r = scene.settings.particle_radius;
        let frame = scene.settings.frame_start;
        scene.validate()?;
        for object in &scene.objects {
            let Role::Liquid {
                material,
                initial_velocity,
            } = &object.role
            else {
                continue;
            };
            let m = scene.materials.liquid_index(material).expect("validated");
            let colour = scene.materials.liquids[m].colour;
            let vertices = geometry::world_vertices(&object.mesh, &object.motion, frame as f32);
            let limits = geometry::FillLimits {
                max_points: scene.settings.max_particles,
                max_row_tests: max_fill_row_tests(scene.settings.max_particles),
            };
            let points =
                geometry::fill_closed_mesh(&vertices, &object.mesh.triangles, 2.0 * r, limits)
                    .map_err(|why| GloopError::scene(format!("object '{}': {why}", object.name)))?;
            if points.is_empty() {
                return Err(GloopError::scene(format!(
                    "object '{}' is too small to hold a liquid particle at particle_radius {r} m",
                    object.name
                )));
            }
            for x in points {
                liquid.push(x, *initial_velocity, m as u16, colour);
            }
        }
        Self::with_liquid(scene, frame, liquid)
    }

    /// Continues a bake from the liquid particles saved for `frame`.
    pub fn resume(scene: &Scene, frame: i32, liquid: LiquidParticles) -> Result<Self> {
        scene.validate()?;
        let n = scene.materials.liquids.len();
        if let Some(m) = liquid.material.iter().find(|&&m| m as usize >= n) {
            return Err(GloopError::scene(format!(
                "saved particles of frame {frame} use liquid material #{m}, the scene has {n}"
            )));
        }
        Self::with_liquid(scene, frame, liquid)
    }

    fn with_liquid(scene: &Scene, frame: i32, mut liquid: LiquidParticles) -> Result<Self> {
        let params = Params::new(scene).map_err(GloopError::scene)?;
        let mut objects = ObjectParticles::build(scene);
        // Rigid bodies start as the scene places them, or continue as a frame left them.
        let fresh = frame == scene.settings.frame_start && liquid.bodies.is_empty();
        if !fresh {
            objects.resume_bodies(&liquid.bodies, frame, scene.settings.fps)?;
        }
        liquid.bodies = objects.body_states();
        objects.place_at(scene, frame as f64);
        let total = liquid.len() + objects.len();
        if total as u64 > scene.settings.max_particles {
            return Err(GloopError::scene(format!(
                "the scene needs {total} particles at particle_radius {} m, more than the cap \
                 max_particles = {}",
                scene.settings.particle_radius, scene.settings.max_particles
            )));
        }
        Ok(Simulation {
            scene: working_copy(scene),
            params,
            frame,
            liquid,
            objects,
            emitters: Emitter::all(scene),
        })
    }

    /// The frame whose state the particles hold.
    pub fn frame(&self) -> i32 {
        self.frame
    }

    /// The scene as the simulation keeps it (`working_copy`: without the meshes it no longer
    /// reads).
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    pub fn liquid(&self) -> &LiquidParticles {
        &self.liquid
    }

    /// The rigid bodies as they stand at the current frame, in scene order.
    pub fn rigid_bodies(&self) -> Vec<RigidBodyInfo> {
        self.objects
            .rigid
            .iter()
            .map(|b| RigidBodyInfo {
                name: self.scene.objects[b.object].name.clone(),
                mass: b.mass,
                state: b.state,
                momentum: b.momentum(),
            })
            .collect()
    }

    /// Object particle positions at the current frame.
    pub fn object_positions(&self) -> &[Vec3] {
        &self.objects.position
    }

    /// Advances one frame. Checks `cancel` before every substep and returns
    /// `GloopError::Cancelled` if it is set (the state is then mid-frame and must not be
    /// saved).
    pub fn step_frame(&mut self, cancel: &AtomicBool) -> Result<FrameStats> {
        let mut stats = FrameStats {
            frame: self.frame + 1,
            ..FrameStats::default()
        };
        // The substeps run on one of rayon's workers rather than on the caller's thread. A
        // parallel loop started from outside the pool parks its caller and wakes a worker,
        // two context switches per loop, and a substep runs hundreds of small loops (each
        // density pass and CG iteration several): 26,000 switches in 8 honey-drop frames on
        // one thread, 35 from a worker, and 9-13% less time per frame on the small demos.
        rayon::scope(|_| self.run_substeps(cancel, &mut stats))?;
        self.frame += 1;
        self.liquid.viscous_change = Vec::new();
        // What the frame-end viscosity gave the rigid bodies.
        let fps = self.scene.settings.fps;
        self.objects.take_reactions(self.frame as f64, fps, 0.0);
        self.objects.place_at(&self.scene, self.frame as f64);
        self.liquid.bodies = self.objects.body_states();
        if let Some(k) = self.liquid.bodies.iter().position(|b| !body_is_finite(b)) {
            return Err(GloopError::Other(format!(
                "the solver became unstable at frame {} (rigid body #{k} is not finite); try \
                 more substeps or a larger particle radius",
                self.frame
            )));
        }
        if let Some(i) = (0..self.liquid.len())
            .find(|&i| !self.liquid.position[i].is_finite() || !self.liquid.velocity[i].is_finite())
        {
            return Err(GloopError::Other(format!(
                "the solver became unstable at frame {} (particle {i} is not finite); try more \
                 substeps or a larger particle radius",
                self.frame
            )));
        }
        stats.liquid_particles = self.liquid.len();
        stats.object_particles = self.objects.len();
        Ok(stats)
    }

    /// The frame's substeps, stopping at the first one that finds `cancel` set, then the
    /// implicit viscosity on the velocities the frame ends with.
    fn run_substeps(&mut self, cancel: &AtomicBool, stats: &mut FrameStats) -> Result<()> {
        let choice = adaptive::choose(
            &self.scene,
            &self.params,
            &self.liquid,
            &self.emitters,
            self.frame,
        );
        let substeps = choice.substeps;
        self.params.set_substeps(substeps);
        stats.substeps = substeps;
        stats.substep_speed = choice.speed;
        stats.substeps_capped = choice.capped;
        stats.substep_bound = choice.bound;
        // A frame's start state is the last one's end, viscous already, except at the scene's
        // first frame (the scene's own velocities) — also when a bake resumes there.
        let viscous_at_start = self.frame > self.scene.settings.frame_start;
        let mut lists = None;
        for s in 0..substeps {
            if cancel.load(Ordering::Relaxed) {
                return Err(GloopError::Cancelled);
            }
            let start = self.frame as f64 + s as f64 / substeps as f64;
            let end = self.frame as f64 + (s + 1) as f64 / substeps as f64;
            substep::substep(
                &self.scene,
                &self.params,
                &mut self.liquid,
                &mut self.objects,
                &self.emitters,
                start,
                end,
                s == 0 && viscous_at_start,
                &mut lists,
                stats,
            );
        }
        if self.scene.settings.viscosity_model == ViscosityModel::Implicit {
            phases::timed(&mut stats.phases.frame_end_viscosity, || {
                self.viscous_frame_end(lists)
            });
        }
        Ok(())
    }

    /// Applies the implicit viscosity to the velocities the frame ends with.
    ///
    /// A substep's velocities are what its particles did, and the density correction's
    /// displacements are in them: at rest, 1e-5 m of mostly sideways shuffling per substep,
    /// 1e-3 m/s, which the next substep's viscosity solve would damp before anything moves.
    /// Solving it here instead, and letting the next frame's first substep solve only its own
    /// impulse (the system is linear), leaves the trajectory as it was (to the solver's
    /// tolerance) but saves velocities in the frame files as they act: a resting tank's
    /// median frame 1.0e-3 → 1.5e-4 m/s (density.rs has the whole story). It costs one solve
    /// per frame, and the frame's second substep loses its warm start (an impulse's solve
    /// leaves no change to start from): on 12 honey-drop frames 1,079 → 1,564 CG iterations,
    /// 0.79 → 1.11 s. Warm starts tried for these two solves did not pay: the last substep's
    /// change as the guess here (1,649 iterations), the velocities the last moves used
    /// (1,571), and for the second substep the impulse's change recovered from CG's final
    /// residual (1,508, but the trajectory's small change cost more density passes than that
    /// saved). A looser tolerance for this solve alone, 1e-2, saved 11% of the honey drop's
    /// CG iterations and 5% of its time, but left frames noisier: a small resting tank
    /// (8 × 8 × 6 cells, 1 s watched after 3 s) measured 1.8-8.0e-4 m/s over its window at
    /// seven radii within ±1.8% of 5 mm, two of them over its limit of 7.7e-4 (at 1e-3:
    /// 1.3-4.5e-4; at 3e-3: 2.4e-4-1.05e-3).
    fn viscous_frame_end(&mut self, lists: Option<Neighbourhoods>) {
        let mut lists = lists.unwrap_or_else(|| {
            let grid = self.objects.grid(&self.params);
            Neighbourhoods::sort_and_build(
                &self.params,
                &mut self.liquid,
                &self.objects.position,
                grid,
            )
        });
        // A fresh solve: the change the last substep's solve made is no guess for this one.
        self.liquid.viscous_change = Vec::new();
        viscosity_implicit::apply(
            &self.scene,
            &self.params,
            &mut self.liquid,
            &mut self.objects,
            &mut lists,
            None,
        );
    }
}

fn body_is_finite(b: &BodyState) -> bool {
    b.position.is_finite()
        && b.orientation.is_finite()
        && b.velocity.is_finite()
        && b.angular_velocity.is_finite()
}

/// The scene as a simulation keeps it: every object, but without the meshes and motions it
/// never reads again. Liquid objects are filled once and standing obstacles sampled once;
/// only emitters and moving obstacles are read at every step. On the paint drops the three
/// drops' meshes were a tenth of the bake's heap.
fn working_copy(scene: &Scene) -> Scene {
    let read_again = |object: &SceneObject| match object.role {
        Role::Emitter { .. } => true,
        Role::Obstacle { .. } => !matches!(object.motion, Motion::Static { .. }),
        // A rigid body moves by its own state, from samples taken once.
        Role::Liquid { .. } | Role::RigidBody { .. } => false,
    };
    let objects = scene
        .objects
        .iter()
        .map(|object| {
            if read_again(object) {
                object.clone()
            } else {
                SceneObject {
                    name: object.name.clone(),
                    role: object.role.clone(),
                    mesh: TriMesh::default(),
                    motion: Motion::default(),
                }
            }
        })
        .collect();
    Scene {
        version: scene.version,
        settings: scene.settings.clone(),
        materials: scene.materials.clone(),
        objects,
    }
}

#[cfg(test)]
mod tests;
