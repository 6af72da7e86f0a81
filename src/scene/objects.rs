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

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum Role {
    /// The closed mesh is filled with liquid particles on a 2r lattice at the first frame.
    Liquid {
        material: String,
        #[serde(default)]
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
