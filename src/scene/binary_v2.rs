//! Binary scene files of format version 2, from before liquids carried their look and solids
//! whether they are see-through. Postcard stores no field names, so a file can only be read
//! with the types it was written from: these mirror version 2's materials (everything else is
//! unchanged since), and the scene they give has the new fields at their defaults (glassy
//! liquids, opaque solids), as a version-2 JSON file reads. Caches baked before keep their
//! Re-mesh, Open Cache's obstacles and `gloop info`. Objects are read as version 3 stored them
//! (`binary_v3`).

use serde::Deserialize;

use super::adhesion::AdhesionOverride;
use super::binary_v3::{self, ObjectV3};
use super::{LiquidMaterial, Materials, Scene, Settings, SolidMaterial};

#[derive(Deserialize)]
struct LiquidV2 {
    name: String,
    density: f32,
    viscosity: f32,
    colour: [f32; 3],
    cohesion: f32,
    miscible: bool,
}

#[derive(Deserialize)]
struct SolidV2 {
    name: String,
    friction: f32,
    stickiness: f32,
}

#[derive(Deserialize)]
struct MaterialsV2 {
    liquids: Vec<LiquidV2>,
    solids: Vec<SolidV2>,
    adhesion_overrides: Vec<AdhesionOverride>,
}

#[derive(Deserialize)]
struct SceneV2 {
    version: u32,
    settings: Settings,
    materials: MaterialsV2,
    objects: Vec<ObjectV3>,
}

/// A version-2 postcard payload (after the magic and version) as today's scene.
pub fn from_postcard(payload: &[u8]) -> postcard::Result<Scene> {
    let old: SceneV2 = postcard::from_bytes(payload)?;
    let liquids = old.materials.liquids.into_iter().map(|l| LiquidMaterial {
        name: l.name,
        density: l.density,
        viscosity: l.viscosity,
        colour: l.colour,
        cohesion: l.cohesion,
        miscible: l.miscible,
        look: Default::default(),
    });
    let solids = old.materials.solids.into_iter().map(|s| SolidMaterial {
        name: s.name,
        friction: s.friction,
        stickiness: s.stickiness,
        see_through: false,
    });
    Ok(Scene {
        version: old.version,
        settings: old.settings,
        materials: Materials {
            liquids: liquids.collect(),
            solids: solids.collect(),
            adhesion_overrides: old.materials.adhesion_overrides,
        },
        objects: binary_v3::objects(old.objects)?,
    })
}
