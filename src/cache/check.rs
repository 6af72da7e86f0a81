//! Checking a cache's frame files against what the manifest recorded of them (size and
//! XXH3 hash, see [`super::FileRecord`]): a resume keeps only frames that check out, and
//! `gloop info` lists those that do not.
//!
//! Files are written atomically, so a damaged file always comes from outside the bake: a
//! copy or sync cut short, a disk error, an edit. A file the manifest has no record of (a
//! cache from before records, or a process killed between writing a file and recording it)
//! gets the check such caches always had: a particle file must be as long as its header
//! says (a surface is parsed by the resume that adopts it, see `bake/resume.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::{check_particles_length, CacheDir, FileRecord, Manifest};
use crate::error::{GloopError, Result};

/// The two kinds of frame file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameFile {
    Particles,
    Surface,
}

impl FrameFile {
    pub fn path(self, cache: &CacheDir, frame: i32) -> PathBuf {
        match self {
            FrameFile::Particles => cache.particles(frame),
            FrameFile::Surface => cache.surface(frame),
        }
    }
}

/// What a check found of one frame file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileState {
    /// No file and no record: not written (yet), like the surfaces of a particles-only bake.
    Absent,
    /// Size and hash match the record.
    Intact,
    /// A file with no record that passes the check for such files.
    Unrecorded,
    /// Recorded, but the file is gone.
    Missing,
    /// Differs from its record, or (with none) fails the check for such files: why.
    Damaged(String),
}

impl FileState {
    /// Can the frame be kept as it is?
    pub fn is_sound(&self) -> bool {
        matches!(self, FileState::Intact | FileState::Unrecorded)
    }

    /// Missing or damaged: what `gloop info` lists and a resume repairs.
    pub fn is_broken(&self) -> bool {
        matches!(self, FileState::Missing | FileState::Damaged(_))
    }

    /// "truncated: 812 of 9 052 bytes" and the like, for messages; empty when sound.
    pub fn describe(&self) -> String {
        match self {
            FileState::Missing => "missing (deleted since it was written)".into(),
            FileState::Damaged(why) => why.clone(),
            _ => String::new(),
        }
    }
}

/// Checks one frame file against its record (`None`: the manifest has none).
pub fn check_file(
    cache: &CacheDir,
    file: FrameFile,
    frame: i32,
    record: Option<&FileRecord>,
) -> FileState {
    let path = file.path(cache, frame);
    let size = match std::fs::metadata(&path) {
        Ok(meta) => meta.len(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return match record {
                Some(_) => FileState::Missing,
                None => FileState::Absent,
            }
        }
        Err(e) => return FileState::Damaged(format!("cannot be read: {e}")),
    };
    let Some(record) = record else {
        return check_unrecorded(&path, file);
    };
    if size != record.size {
        return FileState::Damaged(match size {
            0 => format!("empty ({} bytes when written)", record.size),
            s if s < record.size => format!("truncated: {s} of {} bytes", record.size),
            s => format!(
                "longer than written: {s} bytes, {} when written",
                record.size
            ),
        });
    }
    // Size first: it is free, and the commonest damage (a cut-short copy) changes it.
    match FileRecord::of_file(&path) {
        Ok(now) if now == *record => FileState::Intact,
        Ok(_) => FileState::Damaged("changed since it was written (its hash differs)".into()),
        Err(e) => FileState::Damaged(format!("cannot be read: {}", message_of(&e))),
    }
}

fn check_unrecorded(path: &Path, file: FrameFile) -> FileState {
    match file {
        FrameFile::Particles => match check_particles_length(path) {
            Ok(_) => FileState::Unrecorded,
            Err(e) => FileState::Damaged(message_of(&e)),
        },
        FrameFile::Surface => FileState::Unrecorded,
    }
}

/// An error's message without the path (the caller names the file).
pub(crate) fn message_of(e: &GloopError) -> String {
    match e {
        GloopError::File { message, .. } => message.clone(),
        GloopError::Io { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// The check of one frame's two files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameCheck {
    pub frame: i32,
    pub particles: FileState,
    pub surface: FileState,
}

impl FrameCheck {
    pub fn is_broken(&self) -> bool {
        self.particles.is_broken() || self.surface.is_broken()
    }

    /// "particles truncated: 812 of 9052 bytes; surface missing …", naming only broken files.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        for (name, state) in [("particles", &self.particles), ("surface", &self.surface)] {
            if state.is_broken() {
                parts.push(format!("{name} {}", state.describe()));
            }
        }
        parts.join("; ")
    }
}

/// Checks every frame that has a file or a record, in frame order (reads every recorded
/// file in full, to hash it).
pub fn check_frames(cache: &CacheDir, manifest: &Manifest) -> Result<Vec<FrameCheck>> {
    let io = |e| GloopError::io(cache.root(), e);
    let mut frames: BTreeSet<i32> = manifest.frames.keys().copied().collect();
    frames.extend(cache.frames_present("particles").map_err(io)?);
    frames.extend(cache.frames_present("surface").map_err(io)?);
    Ok(frames
        .into_iter()
        .map(|frame| {
            let record = manifest.frames.get(&frame);
            FrameCheck {
                frame,
                particles: check_file(
                    cache,
                    FrameFile::Particles,
                    frame,
                    record.and_then(|r| r.particles.as_ref()),
                ),
                surface: check_file(
                    cache,
                    FrameFile::Surface,
                    frame,
                    record.and_then(|r| r.surface.as_ref()),
                ),
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn recorded(dir: &Path, bytes: &[u8]) -> (CacheDir, FileRecord) {
        let cache = CacheDir::new(dir);
        std::fs::write(cache.surface(1), bytes).unwrap();
        (cache, FileRecord::of_bytes(bytes))
    }

    #[test]
    fn each_kind_of_damage_is_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = b"0123456789".repeat(100);
        let (cache, record) = recorded(dir.path(), &bytes);
        let check = || check_file(&cache, FrameFile::Surface, 1, Some(&record));
        assert_eq!(check(), FileState::Intact);

        let mut flipped = bytes.clone();
        flipped[500] ^= 0x10;
        std::fs::write(cache.surface(1), &flipped).unwrap();
        assert!(check().describe().contains("hash differs"), "{:?}", check());

        std::fs::write(cache.surface(1), &bytes[..300]).unwrap();
        assert!(check().describe().contains("300 of 1000"), "{:?}", check());

        std::fs::write(cache.surface(1), b"").unwrap();
        assert!(check().describe().starts_with("empty"), "{:?}", check());

        std::fs::remove_file(cache.surface(1)).unwrap();
        assert_eq!(check(), FileState::Missing);
        assert_eq!(
            check_file(&cache, FrameFile::Surface, 1, None),
            FileState::Absent
        );
    }

    #[test]
    fn an_unrecorded_particle_file_must_be_as_long_as_its_header_says() {
        let dir = tempfile::tempdir().unwrap();
        let cache = CacheDir::new(dir.path());
        let mut particles = crate::sim::LiquidParticles::default();
        for i in 0..10 {
            let p = glam::Vec3::splat(i as f32);
            particles.push(p, p, 0, [1.0, 0.5, 0.0]);
        }
        crate::cache::write_particles(&cache.particles(1), 1, &particles).unwrap();
        let state = || check_file(&cache, FrameFile::Particles, 1, None);
        assert_eq!(state(), FileState::Unrecorded);
        let bytes = std::fs::read(cache.particles(1)).unwrap();
        std::fs::write(cache.particles(1), &bytes[..bytes.len() - 1]).unwrap();
        assert!(state().describe().contains("truncated"), "{:?}", state());
        std::fs::write(cache.particles(1), b"").unwrap();
        assert!(state().is_broken(), "{:?}", state());
    }
}
