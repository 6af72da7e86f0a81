//! Binary scene files of format version 3, from before rigid bodies (issue 44) gave a role
//! record its `rigid` field. Postcard stores no field names, so such a file is read with these
//! mirrors of version 3's objects; everything else is unchanged since.
//!
//! The scene hash of a scene without rigid bodies is taken over this form too
//! ([`to_postcard`]), so a cache baked before rigid bodies existed still resumes: the same
//! scene hashes to the same fingerprint as it did then.

use serde::{Deserialize, Serialize};

use super::objects::{Emission, Motion, Role, RoleKind, RoleRecord, TriMesh};
use super::{Materials, Scene, SceneObject, Settings};

/// The scene format version whose binary form this is.
const VERSION: u32 = 3;

#[derive(Serialize, Deserialize)]
struct RoleRecordV3 {
    kind: RoleKind,
    material: String,
    initial_velocity: glam::Vec3,
    emission: Option<Emission>,
}

/// An object as scene format 3 (and 2) stored it.
#[derive(Serialize, Deserialize)]
pub(super) struct ObjectV3 {
    name: String,
    role: RoleRecordV3,
    mesh: TriMesh,
    motion: Motion,
}

impl ObjectV3 {
    pub(super) fn into_object(self) -> Result<SceneObject, String> {
        let r = self.role;
        let record = RoleRecord {
            kind: r.kind,
            material: r.material,
            initial_velocity: r.initial_velocity,
            emission: r.emission,
            rigid: None,
        };
        Ok(SceneObject {
            name: self.name,
            role: Role::try_from(record)?,
            mesh: self.mesh,
            motion: self.motion,
        })
    }
}

#[derive(Serialize, Deserialize)]
struct SceneV3 {
    version: u32,
    settings: Settings,
    materials: Materials,
    objects: Vec<ObjectV3>,
}

/// Objects as today's scene has them; a role record that does not make a role is corrupt.
pub(super) fn objects(old: Vec<ObjectV3>) -> postcard::Result<Vec<SceneObject>> {
    old.into_iter()
        .map(|o| o.into_object().map_err(|_| postcard::Error::SerdeDeCustom))
        .collect()
}

/// A version-3 postcard payload (after the magic and version) as today's scene.
pub fn from_postcard(payload: &[u8]) -> postcard::Result<Scene> {
    let old: SceneV3 = postcard::from_bytes(payload)?;
    Ok(Scene {
        version: old.version,
        settings: old.settings,
        materials: old.materials,
        objects: objects(old.objects)?,
    })
}

/// The scene's postcard payload as scene format 3 wrote it (with version 3), or `None` if it
/// has a rigid body, which format 3 cannot hold.
pub fn to_postcard(scene: &Scene) -> Option<Vec<u8>> {
    let objects = scene
        .objects
        .iter()
        .map(|o| {
            let record = RoleRecord::from(o.role.clone());
            (record.kind != RoleKind::RigidBody).then(|| ObjectV3 {
                name: o.name.clone(),
                role: RoleRecordV3 {
                    kind: record.kind,
                    material: record.material,
                    initial_velocity: record.initial_velocity,
                    emission: record.emission,
                },
                mesh: o.mesh.clone(),
                motion: o.motion.clone(),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let old = SceneV3 {
        version: VERSION,
        settings: scene.settings.clone(),
        materials: scene.materials.clone(),
        objects,
    };
    Some(postcard::to_stdvec(&old).expect("a scene always serializes"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A scene without rigid bodies written as format 3 reads back as itself, and a scene
    /// with one has no format-3 form.
    #[test]
    fn format_3_files_read_and_bodies_have_no_format_3_form() {
        let mut scene = crate::demos::honey_drop::scene();
        scene.version = VERSION;
        let payload = to_postcard(&scene).expect("no rigid body");
        let mut bytes = super::super::io::SCENE_MAGIC.to_vec();
        bytes.extend_from_slice(&VERSION.to_le_bytes());
        bytes.extend(payload);
        let read = Scene::from_binary(&bytes, std::path::Path::new("v3.gloop")).unwrap();
        assert_eq!(read, scene);
        let mut with_body = scene.clone();
        with_body.objects[0].role = Role::RigidBody {
            material: "steel".into(),
            density: Some(7800.0),
            mass: None,
            initial_velocity: glam::Vec3::ZERO,
        };
        assert!(to_postcard(&with_body).is_none());
        // Today's form differs from format 3's (the role records' `rigid`), so the hash of a
        // scene without bodies is taken over format 3's form: the same as before format 4.
        assert_ne!(scene.to_binary()[12..], to_postcard(&scene).unwrap()[..]);
    }
}
