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

/// Emission from an Emitter object's surface.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Emission {
    /// Particles emitted per second.
    pub rate: f32,
    /// Speed in m/s along the surface normal.
    pub speed: f32,
    /// Emission runs over these frames, inclusive.
    pub frame_start: i32,
    pub frame_end: i32,
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
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
#[serde(rename_all = "snake_case")]
enum RoleKind {
    Liquid,
    Emitter,
    Obstacle,
}

#[derive(Serialize, Deserialize, Clone)]
struct RoleRecord {
    #[serde(rename = "type")]
    kind: RoleKind,
    material: String,
    #[serde(default)]
    initial_velocity: Vec3,
    #[serde(default)]
    emission: Option<Emission>,
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
            },
            Role::Emitter { material, emission } => RoleRecord {
                kind: RoleKind::Emitter,
                material,
                initial_velocity: Vec3::ZERO,
                emission: Some(emission),
            },
            Role::Obstacle { material } => RoleRecord {
                kind: RoleKind::Obstacle,
                material,
                initial_velocity: Vec3::ZERO,
                emission: None,
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
        })
    }
}

impl Role {
    pub fn material(&self) -> &str {
        match self {
            Role::Liquid { material, .. }
            | Role::Emitter { material, .. }
            | Role::Obstacle { material } => material,
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
