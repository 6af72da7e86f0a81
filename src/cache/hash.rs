//! A stable fingerprint of a scene, so a resumed bake can tell whether the cache was made
//! from the same scene.

use crate::scene::Scene;

/// 64-bit FNV-1a of the scene's binary form, as 16 hex digits.
///
/// Of [`what_a_resume_keeps`]: the end frame and the liquids' looks are left out on purpose.
/// Hand-written rather than a
/// crate because it is eight lines and must never change between versions (std's
/// `DefaultHasher` makes no such promise).
pub fn scene_hash(scene: &Scene) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let kept = what_a_resume_keeps(scene);
    // A scene without rigid bodies hashes as scene format 3 wrote it, so caches baked before
    // format 4 resume (`scene::binary_v3`).
    let bytes = match crate::scene::binary_v3::to_postcard(&kept) {
        Some(payload) => [&kept.to_binary()[..8], &3u32.to_le_bytes()[..], &payload].concat(),
        None => kept.to_binary(),
    };
    for &byte in &bytes {
        h ^= byte as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// `scene` with what changes no baked frame set as a fresh scene has it: the end frame (a bake
/// of frames 1..50 can be resumed and extended to 1..100), how a liquid renders, and the
/// format version. Two scenes
/// a resume may pass between are equal here; `scene::changes` names what else differs.
pub fn what_a_resume_keeps(scene: &Scene) -> Scene {
    let mut normalised = scene.clone();
    // The format version a scene was read from says how its file was laid out, nothing of
    // what it bakes (a version-3 JSON scene and its version-4 scene.gloop are one scene).
    normalised.version = crate::scene::SCENE_FORMAT_VERSION;
    normalised.settings.frame_end = normalised.settings.frame_start;
    for liquid in &mut normalised.materials.liquids {
        liquid.look = Default::default();
    }
    normalised
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Look;

    #[test]
    fn the_look_changes_no_frame_so_not_the_hash_but_the_viscosity_does() {
        let scene = crate::demos::honey_drop::scene();
        let mut opaque = scene.clone();
        opaque.materials.liquids[0].look = Look::Opaque;
        assert_eq!(scene_hash(&scene), scene_hash(&opaque));
        let mut thicker = scene.clone();
        thicker.materials.liquids[0].viscosity *= 2.0;
        assert_ne!(scene_hash(&scene), scene_hash(&thicker));
    }

    /// Scene format 4 (rigid bodies) changed the binary form of every role; a scene without
    /// rigid bodies still hashes as before, so its caches resume. The value is the honey drop
    /// demo's hash by the build before format 4 (`gloop demo honey-drop --frames 1..1` at
    /// 35dd637, its manifest).
    #[test]
    fn a_scene_without_rigid_bodies_hashes_as_before_format_4() {
        let mut scene = crate::demos::honey_drop::scene();
        scene.settings.frame_end = 1;
        assert_eq!(scene_hash(&scene), "03572346a57eba92");
        scene.version = crate::scene::SCENE_FORMAT_VERSION;
        assert_eq!(scene_hash(&scene), "03572346a57eba92");
    }

    #[test]
    fn paints_are_opaque_and_honey_glassy_in_the_demos_scene_files() {
        let paint = crate::demos::paint_drops::scene();
        assert!(paint
            .materials
            .liquids
            .iter()
            .all(|l| l.look == Look::Opaque));
        let honey = crate::demos::honey_drop::scene();
        assert_eq!(honey.materials.liquids[0].look, Look::Glassy);
        // A scene file from before looks were recorded reads as glassy.
        let mut json: serde_json::Value = serde_json::from_str(&paint.to_json()).unwrap();
        json["version"] = 2.into();
        json["materials"]["liquids"][0]
            .as_object_mut()
            .unwrap()
            .remove("look");
        let old = Scene::from_json(&json.to_string(), std::path::Path::new("old.json")).unwrap();
        assert_eq!(old.materials.liquids[0].look, Look::Glassy);
    }
}
