//! Finding where an interrupted bake can continue: after the last of the frames, from
//! `frame_start` on, whose particle files all check out against the manifest (see
//! [`crate::cache::check`]). A damaged frame and every frame after it are baked again:
//! each frame's state flows from the one before, so a frame after a damaged one cannot be
//! trusted to follow from the frame that will replace it.

use crate::cache::check::{check_file, FileState, FrameFile};
use crate::cache::{read_particles, scene_hash, CacheDir, FileRecord, FrameRecords, Manifest};
use crate::error::{GloopError, Result};
use crate::scene::Scene;
use crate::sim::LiquidParticles;
use crate::surface::read_surface_ply;

/// The last good frame of an earlier bake, which a resume starts from.
pub(super) struct ResumePoint {
    pub frame: i32,
    pub particles: LiquidParticles,
    /// The checked records of the frames kept (`frame_start..=frame`), for the new manifest;
    /// files that had none (an older cache, or a process killed before recording them) are
    /// recorded as they are now, having passed the check for such files.
    pub records: FrameRecords,
    /// Kept frames whose surface file is damaged or missing: deleted and meshed again.
    pub broken_surfaces: Vec<i32>,
}

/// Checks that the cache was baked from `scene` and every frame it would keep, and finds
/// where to continue: `None` when the folder holds no bake, or none of its frames is good (a
/// resume then bakes from the start). Also returns what it found broken, one line per file
/// naming it and what the resume does about it. Reads only; never modifies the cache.
pub(super) fn find_resume_point(
    scene: &Scene,
    cache: &CacheDir,
) -> Result<(Option<ResumePoint>, Vec<String>)> {
    let manifest_path = cache.manifest();
    if !manifest_path.exists() {
        return Ok((None, Vec::new()));
    }
    let manifest = Manifest::read(&manifest_path)?;
    let hash = scene_hash(scene);
    if manifest.scene_hash != hash {
        return Err(GloopError::file(
            &manifest_path,
            format!(
                "cannot resume: the scene changed since this bake ({}); a resume needs the \
                 same scene, only its end frame may change. Bake without --resume to replace \
                 the cache",
                what_changed(scene, cache, &manifest.scene_hash, &hash)
            ),
        ));
    }
    let mut repairs = Vec::new();
    let mut records = kept_particles(cache, &manifest, scene.settings.frame_start, &mut repairs)?;
    // The state to continue from: the last kept frame. Only a file without a record can
    // pass its check and still not parse; step back over such files.
    let (frame, particles) = loop {
        let Some((&frame, _)) = records.last_key_value() else {
            return Ok((None, repairs));
        };
        match read_particles(&cache.particles(frame)) {
            Ok(particles) => break (frame, particles),
            Err(e) => {
                repairs.push(format!("{e}; baking it again"));
                records.remove(&frame);
            }
        }
    };
    let broken_surfaces = check_surfaces(cache, &manifest, &mut records, &mut repairs)?;
    let point = ResumePoint {
        frame,
        particles,
        records,
        broken_surfaces,
    };
    Ok((Some(point), repairs))
}

/// The changes from the cache's own scene file to `scene`, in words; the two hashes when the
/// cache has no readable scene file (one from before scene files were kept, or damaged).
fn what_changed(scene: &Scene, cache: &CacheDir, cached_hash: &str, hash: &str) -> String {
    match Scene::load(&cache.scene()) {
        Ok(baked) => {
            let changes = crate::scene::changes::changes(&baked, scene);
            if changes.is_empty() {
                // Same scene, but hashed by another Gloop version.
                format!("scene hash {cached_hash} in the cache, {hash} now")
            } else {
                crate::scene::changes::summary(&changes)
            }
        }
        Err(_) => format!("scene hash {cached_hash} in the cache, {hash} now"),
    }
}

/// The run of frames from `start` whose particle files check out, with their records; stops
/// at the first frame without a file or with a broken one (noted in `repairs`).
fn kept_particles(
    cache: &CacheDir,
    manifest: &Manifest,
    start: i32,
    repairs: &mut Vec<String>,
) -> Result<FrameRecords> {
    let mut kept = FrameRecords::new();
    for frame in start..=i32::MAX {
        let path = cache.particles(frame);
        let recorded = manifest
            .frames
            .get(&frame)
            .and_then(|f| f.particles.clone());
        let record = match check_file(cache, FrameFile::Particles, frame, recorded.as_ref()) {
            FileState::Intact => recorded.expect("an intact file has a record"),
            FileState::Unrecorded => FileRecord::of_file(&path)?,
            FileState::Absent => break,
            broken => {
                let later = match manifest.last_complete_frame {
                    Some(last) if last > frame => format!(" and frames {}..{last}", frame + 1),
                    _ => String::new(),
                };
                repairs.push(format!(
                    "{}: {}; baking it{later} again",
                    path.display(),
                    broken.describe()
                ));
                break;
            }
        };
        kept.entry(frame).or_default().particles = Some(record);
    }
    Ok(kept)
}

/// Checks the surface files of the kept frames: sound ones are recorded in `records`, an
/// unrecorded one only if it parses; returns the frames whose surface is broken.
fn check_surfaces(
    cache: &CacheDir,
    manifest: &Manifest,
    records: &mut FrameRecords,
    repairs: &mut Vec<String>,
) -> Result<Vec<i32>> {
    let mut broken = Vec::new();
    for (&frame, files) in records.iter_mut() {
        let path = cache.surface(frame);
        let recorded = manifest.frames.get(&frame).and_then(|f| f.surface.clone());
        let state = match check_file(cache, FrameFile::Surface, frame, recorded.as_ref()) {
            FileState::Unrecorded => match read_surface_ply(&path) {
                Ok(_) => FileState::Unrecorded,
                Err(e) => FileState::Damaged(crate::cache::check::message_of(&e)),
            },
            state => state,
        };
        match state {
            FileState::Intact => {
                files.surface = recorded;
                // The kept surface's interior shells, as counted when it was meshed.
                if let Some(old) = manifest.frames.get(&frame) {
                    files.air_pockets = old.air_pockets;
                    files.voids_filled = old.voids_filled;
                }
            }
            FileState::Unrecorded => files.surface = Some(FileRecord::of_file(&path)?),
            FileState::Absent => {}
            state => {
                repairs.push(format!(
                    "{}: {}; meshing it again",
                    path.display(),
                    state.describe()
                ));
                broken.push(frame);
            }
        }
    }
    Ok(broken)
}
