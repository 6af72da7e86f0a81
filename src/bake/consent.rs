//! Replacing a bake takes consent: a fresh bake into a folder that holds an earlier bake's
//! frames needs `overwrite` (`--overwrite`), or `resume` to continue that bake instead.
//!
//! That holds for the same scene too: its frames may have taken hours, and re-baking them
//! from scratch is rarely what a repeated command means (`--resume` continues a finished bake
//! to a later `frame_end`, or does nothing). A folder whose bake wrote no frame yet has
//! nothing to lose and needs no consent.
//!
//! A fresh bake of a scene with cautions (`Scene::cautions`: a liquid below the resolution,
//! over a million object particles) takes consent too (`confirmed`, `--confirm`): such a
//! scene is valid, but rarely what was meant, and a bake of it is wasted or slow.

use crate::cache::{scene_hash, CacheDir, Manifest};
use crate::error::{GloopError, Result};
use crate::scene::Scene;

/// Refuses a fresh bake of `scene` into a folder holding an earlier bake's frames, saying what
/// is there and how to go on. Reads only.
pub(super) fn check(cache: &CacheDir, scene: &Scene) -> Result<()> {
    let path = cache.manifest();
    if !path.exists() {
        return Ok(());
    }
    let manifest = match Manifest::read(&path) {
        Ok(manifest) => manifest,
        Err(e) => {
            return Err(GloopError::file(
                cache.root(),
                format!(
                    "holds a bake whose manifest cannot be read ({e}); bake with --overwrite \
                     to replace it"
                ),
            ))
        }
    };
    let Some(last) = manifest.last_complete_frame else {
        return Ok(());
    };
    let same_scene = manifest.scene_hash == scene_hash(scene);
    let finished = last >= manifest.frame_end;
    let (first, end) = (manifest.frame_start, manifest.frame_end);
    let what = match (finished, same_scene) {
        (true, false) => format!("a finished bake of another scene (frames {first}..{end})"),
        (false, false) => format!(
            "an unfinished bake of another scene (frames {first}..{last} of {first}..{end})"
        ),
        (true, true) => format!("a finished bake of this scene (frames {first}..{end})"),
        (false, true) => {
            format!("an unfinished bake of this scene (frames {first}..{last} of {first}..{end})")
        }
    };
    let how = match same_scene {
        false => "bake with --overwrite to replace it, or into another folder",
        true if finished => {
            "--resume continues it (to a later frame_end), --overwrite bakes it again from \
             scratch"
        }
        true => "--resume continues it, --overwrite bakes it again from scratch",
    };
    Err(GloopError::file(
        cache.root(),
        format!("already holds {what}; {how}"),
    ))
}

/// Refuses a fresh bake of `scene` that has cautions, naming each and how to go on.
pub(super) fn check_cautions(scene: &Scene) -> Result<()> {
    let cautions = scene.cautions();
    if cautions.is_empty() {
        return Ok(());
    }
    Err(GloopError::Other(format!(
        "the scene needs confirming: {}; bake with --confirm (gloop_core.bake: \
         confirmed=True) if that is what you mean",
        cautions.join("; ")
    )))
}
