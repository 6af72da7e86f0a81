//! Finding where an interrupted bake can continue.

use crate::cache::{read_particles, scene_hash, CacheDir, Manifest};
use crate::error::{GloopError, Result};
use crate::scene::Scene;
use crate::sim::LiquidParticles;

/// The last frame of an earlier bake that a resume can start from.
pub(super) struct ResumePoint {
    pub frame: i32,
    pub particles: LiquidParticles,
}

/// Checks that the cache was baked from `scene` and finds its last complete frame: the end of
/// the run of particle files from `frame_start` with no gap, whose last file reads cleanly.
/// `Ok(None)` when the folder holds no bake at all (a resume then starts from scratch).
/// Reads only; never modifies the cache.
pub(super) fn find_resume_point(scene: &Scene, cache: &CacheDir) -> Result<Option<ResumePoint>> {
    let manifest_path = cache.manifest();
    if !manifest_path.exists() {
        return Ok(None);
    }
    let manifest = Manifest::read(&manifest_path)?;
    let hash = scene_hash(scene);
    if manifest.scene_hash != hash {
        return Err(GloopError::file(
            &manifest_path,
            format!(
                "cannot resume: the cache was baked from a different scene (scene hash {} in \
                 the cache, {hash} now; only frame_end may change between a bake and its \
                 resume); bake without --resume to replace the cache",
                manifest.scene_hash
            ),
        ));
    }
    let start = scene.settings.frame_start;
    let present = cache
        .frames_present("particles")
        .map_err(|e| GloopError::io(cache.root(), e))?;
    let mut last = None;
    for (expected, &frame) in (start..).zip(present.iter().skip_while(|&&f| f < start)) {
        if frame != expected {
            break;
        }
        last = Some(frame);
    }
    // Files are written atomically, so only outside damage makes one unreadable; step back
    // over such files rather than refusing to resume.
    let mut frame = match last {
        Some(frame) => frame,
        None => return Ok(None),
    };
    loop {
        match read_particles(&cache.particles(frame)) {
            Ok(particles) => return Ok(Some(ResumePoint { frame, particles })),
            Err(e) if frame == start => return Err(e),
            Err(_) => frame -= 1,
        }
    }
}
