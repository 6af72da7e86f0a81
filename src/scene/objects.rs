//! Scene objects: a triangle mesh, a motion over the frame range, and a role.

use glam::{Mat4, Vec3};
use serde::{Deserialize, Serialize};

/// A triangle mesh in the object's local space (world space for `Motion::Deforming`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Default)]
pub struct TriMesh {
    pub vertices: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
}

/// How an object moves. Frames are scene frames; between exported frames the pose is
/// interpolated (rigid: translation/scale lerp, rotation slerp; deforming: per-vertex lerp).
/// Before the first and after the last exported frame the pose is held.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
pub enum Motion {
    /// One world matrix for the whole bake.
    Static { matrix: Mat4 },
    /// One world matrix per frame, starting at `first_frame`.
    Rigid {
        first_frame: i32,
        matrices: Vec<Mat4>,
    },
    /// World-space vertex positions per frame, starting at `first_frame`; the mesh's triangles
    /// give the topology (its own vertices are ignored).
    Deforming {
        first_frame: i32,
        positions: Vec<Vec<Vec3>>,
    },
}

impl Default for Motion {
    fn default() -> Self {
        Motion::Static {
            matrix: Mat4::IDENTITY,
        }
    }
}

/// Emission from an Emitter object's surface (its "nozzle"): how much liquid leaves it, how
/// fast, and when. Two of volume flow, speed and the nozzle's area fix the third, so an
/// emitter gives `flow`, `speed`, or both; what is missing comes from the area of its mesh
/// (`Emission::resolve`). Scene format 1 gave a particle `rate` instead of a flow; such files
/// still load, their flow being `rate × (2r)³`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Emission {
    /// Volume flow in m³/s (1 mL/s = 1e-6 m³/s).
    #[serde(default)]
    pub flow: Option<f32>,
    /// Speed in m/s along the surface normal.
    #[serde(default)]
    pub speed: Option<f32>,
    /// Particles per second: scene format 1's way of giving the flow.
    #[serde(default)]
    pub rate: Option<f32>,
    /// Emission runs from the start of `frame_start` to the start of `frame_end`. The
    /// add-on's "Until the End" writes [`MAX_FRAME`](super::settings::MAX_FRAME): the emitter
    /// runs to the bake's end, and the scene (its hash) stays the same when a bake is extended.
    pub frame_start: i32,
    pub frame_end: i32,
}

/// An emission with its flow, speed and particle rate all known.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResolvedEmission {
    /// Volume flow, m³/s.
    pub flow: f64,
    /// Exit speed along the surface normal, m/s.
    pub speed: f32,
    /// Cross-section of the stream, m²: `flow / speed`.
    pub stream_area: f64,
    /// Particles per second: the flow over a particle's volume, (2r)³ (the lattice cell).
    pub particles_per_second: f64,
}

impl Emission {
    /// Flow, speed and particle rate for a nozzle of `nozzle_area` m² at particle radius `r`.
    /// The error says which field is wrong, for the caller to prefix with the object's name.
    ///
    /// Every number given must be above zero: an emitter without flow or speed emits nothing,
    /// and a bake of nothing but it would finish empty, as if it had worked (issue 42).
    pub fn resolve(&self, nozzle_area: f32, r: f32) -> Result<ResolvedEmission, String> {
        let particle_volume = (2.0 * r as f64).powi(3);
        let positive = |name: &str, unit: &str, value: Option<f32>| match value {
            Some(0.0) => Err(format!(
                "emission {name} is 0{unit}: an emitter without {name} emits nothing; set its \
                 {name} above 0"
            )),
            Some(x) if !(x.is_finite() && x > 0.0) => Err(format!(
                "emission {name} must be a number above 0, not {x}{unit}"
            )),
            _ => Ok(value.map(f64::from)),
        };
        let flow = positive("flow", " m³/s", self.flow)?;
        let speed = positive("speed", " m/s", self.speed)?;
        let rate = positive("rate", " particles/s", self.rate)?;
        let flow = match (flow, rate) {
            (Some(_), Some(_)) => {
                return Err("emission gives both a flow and a particle rate; keep one".into())
            }
            (Some(q), None) => Some(q),
            (None, Some(rate)) => Some(rate * particle_volume),
            (None, None) => None,
        };
        let area = nozzle_area as f64;
        let no_area = |derived: &str| {
            format!(
                "emission has no nozzle area to derive its {derived} from (the mesh's area is \
                 {nozzle_area} m²); give both flow and speed"
            )
        };
        let (flow, speed) = match (flow, speed) {
            // A stream wider than its nozzle cannot leave it at this speed: it leaves as
            // fast as the nozzle makes it (`scene_warnings` says so).
            (Some(q), Some(v)) if area > 0.0 && q > v * area => (q, q / area),
            (Some(q), Some(v)) => (q, v),
            (Some(q), None) if area > 0.0 => (q, q / area),
            (Some(_), None) => return Err(no_area("speed")),
            (None, Some(v)) if area > 0.0 => (v * area, v),
            (None, Some(_)) => return Err(no_area("flow")),
            (None, None) => {
                return Err("emission needs a flow, a speed, or both".into());
            }
        };
        // Positive inputs can still multiply or divide to nothing in single precision (a
        // speed of 1e-30 m/s through a square millimetre).
        if !(flow > 0.0 && speed > 0.0 && (speed as f32) > 0.0) {
            return Err(format!(
                "emission of {flow:e} m³/s at {speed:e} m/s emits nothing; raise its flow or \
                 speed"
            ));
        }
        Ok(ResolvedEmission {
            flow,
            speed: speed as f32,
            stream_area: flow / speed,
            particles_per_second: flow / particle_volume,
        })
    }
}

impl Emission {
    /// Particles emitted from the start of emission up to `frame` (fractional), at the
    /// resolved rate: `floor(R · t)` over the time the emission has run by then, so the volume
    /// is the flow's to within one particle and a resumed bake emits exactly what an
    /// uninterrupted one would.
    pub fn emitted_by(&self, resolved: &ResolvedEmission, frame: f64, fps: f32) -> u64 {
        // In f64: the difference of two i32 frames may not fit an i32 (validation bounds
        // them, but a wrapped difference made `clamp` panic on a worker thread once).
        let window = (self.frame_end as f64 - self.frame_start as f64).max(0.0);
        let active = (frame - self.frame_start as f64).clamp(0.0, window);
        (resolved.particles_per_second * active / fps as f64 + 1e-9).floor() as u64
    }
}

/// What an object is to the liquid. In files it is one flat record with a `type` field
/// (`{"type": "liquid", "material": "honey", ...}`), which both JSON readers and postcard (which
/// cannot read internally tagged enums) handle.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(into = "RoleRecord", try_from = "RoleRecord")]
pub enum Role {
    /// The closed mesh is filled with liquid particles on a 2r lattice at the first frame.
    Liquid {
        material: String,
        initial_velocity: Vec3,
    },
    /// Emits liquid particles from its surface.
    Emitter {
        material: String,
        emission: Emission,
    },
    /// Its surface is sampled into object particles that liquid collides with and sticks to.
    Obstacle { material: String },
    /// A free solid the liquid pushes and carries (issue 44): sampled like an obstacle, with
    /// its solid material's friction and stickiness, moved by gravity and the liquid's forces
    /// on its object particles. Its mesh must be closed; its mass comes from `density` or
    /// `mass` (one of the two), its centre of mass and inertia from the mesh.
    RigidBody {
        material: String,
        /// kg/m³.
        density: Option<f32>,
        /// kg; the density is then the mass over the mesh's volume.
        mass: Option<f32>,
        /// m/s at the first frame.
        initial_velocity: Vec3,
    },
}

/// A rigid body's own fields in a role record (scene format 4 on).
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Default)]
pub struct RigidRecord {
    #[serde(default)]
    pub density: Option<f32>,
    #[serde(default)]
    pub mass: Option<f32>,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
pub(super) enum RoleKind {
    Liquid,
    Emitter,
    Obstacle,
    RigidBody,
}

/// The role as files store it. Scene format 3 had no `rigid` (`binary_v3` reads such files).
#[derive(Serialize, Deserialize, Clone)]
pub(super) struct RoleRecord {
    #[serde(rename = "type")]
    pub(super) kind: RoleKind,
    pub(super) material: String,
    #[serde(default)]
    pub(super) initial_velocity: Vec3,
    #[serde(default)]
    pub(super) emission: Option<Emission>,
    #[serde(default)]
    pub(super) rigid: Option<RigidRecord>,
}

impl From<Role> for RoleRecord {
    fn from(role: Role) -> Self {
        match role {
            Role::Liquid {
                material,
                initial_velocity,
            } => RoleRecord {
                kind: RoleKind::Liquid,
                material,
                initial_velocity,
                emission: None,
                rigid: None,
            },
            Role::Emitter { material, emission } => RoleRecord {
                kind: RoleKind::Emitter,
                material,
                initial_velocity: Vec3::ZERO,
                emission: Some(emission),
                rigid: None,
            },
            Role::Obstacle { material } => RoleRecord {
                kind: RoleKind::Obstacle,
                material,
                initial_velocity: Vec3::ZERO,
                emission: None,
                rigid: None,
            },
            Role::RigidBody {
                material,
                density,
                mass,
                initial_velocity,
            } => RoleRecord {
                kind: RoleKind::RigidBody,
                material,
                initial_velocity,
                emission: None,
                rigid: Some(RigidRecord { density, mass }),
            },
        }
    }
}

impl TryFrom<RoleRecord> for Role {
    type Error = String;
    fn try_from(r: RoleRecord) -> Result<Self, String> {
        Ok(match r.kind {
            RoleKind::Liquid => Role::Liquid {
                material: r.material,
                initial_velocity: r.initial_velocity,
            },
            RoleKind::Emitter => Role::Emitter {
                material: r.material,
                emission: r.emission.ok_or("an emitter needs an 'emission' record")?,
            },
            RoleKind::Obstacle => Role::Obstacle {
                material: r.material,
            },
            RoleKind::RigidBody => {
                let rigid = r.rigid.unwrap_or_default();
                Role::RigidBody {
                    material: r.material,
                    density: rigid.density,
                    mass: rigid.mass,
                    initial_velocity: r.initial_velocity,
                }
            }
        })
    }
}

impl Role {
    /// Whether the role is sampled into object particles the liquid collides with (obstacles
    /// and rigid bodies) rather than filled or emitted as liquid.
    pub fn is_solid(&self) -> bool {
        matches!(self, Role::Obstacle { .. } | Role::RigidBody { .. })
    }

    pub fn material(&self) -> &str {
        match self {
            Role::Liquid { material, .. }
            | Role::Emitter { material, .. }
            | Role::Obstacle { material }
            | Role::RigidBody { material, .. } => material,
        }
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct SceneObject {
    pub name: String,
    pub role: Role,
    pub mesh: TriMesh,
    #[serde(default)]
    pub motion: Motion,
}
