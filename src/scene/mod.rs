//! The scene model: everything a bake is made of. Serialized with serde as a versioned binary
//! file (postcard) or as JSON, from the same types.

pub mod adhesion;
mod binary_v2;
pub(crate) mod binary_v3;
pub mod cautions;
pub mod changes;
pub mod io;
pub mod limits;
pub mod materials;
pub mod objects;
mod particle_budget;
pub mod presets;
pub mod settings;
mod validate;
mod validate_numbers;
mod validate_rigid;

use serde::{Deserialize, Serialize};

pub use adhesion::{AdhesionFunction, AdhesionMatrix, AdhesionOverride};
pub use materials::{LiquidMaterial, Look, Materials, SolidMaterial};
pub use objects::{Emission, Motion, ResolvedEmission, RigidRecord, Role, SceneObject, TriMesh};
pub use settings::{Domain, Settings, ViscosityModel};
pub use validate_rigid::{density_of as rigid_density, DENSITY_RANGE as RIGID_DENSITY_RANGE};

/// Version of the scene file format written by this build. Readers accept this and older
/// JSON, and binary files of this version and of version 2 (`binary_v2`).
/// 2: emitters give a volume flow and speed (`Emission`), not a particle rate.
/// 3: liquids carry their `look` (glassy or opaque), solids whether they are `see_through`.
/// 4: the rigid-body role; role records carry `rigid` (`binary_v3` reads version 3).
pub const SCENE_FORMAT_VERSION: u32 = 4;

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Scene {
    pub version: u32,
    pub settings: Settings,
    pub materials: Materials,
    pub objects: Vec<SceneObject>,
}

impl Scene {
    pub fn new(settings: Settings, materials: Materials, objects: Vec<SceneObject>) -> Self {
        Scene {
            version: SCENE_FORMAT_VERSION,
            settings,
            materials,
            objects,
        }
    }
}
