//! Where each file of a cache folder lives.

use std::path::{Path, PathBuf};

/// A cache folder. Only computes paths; creating and cleaning is the bake's job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheDir {
    root: PathBuf,
}

impl CacheDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        CacheDir { root: root.into() }
    }
    pub fn root(&self) -> &Path {
        &self.root
    }
    /// `particles_{frame:05}.ply`: the liquid particles of `frame`.
    pub fn particles(&self, frame: i32) -> PathBuf {
        self.root.join(format!("particles_{frame:05}.ply"))
    }
    /// `surface_{frame:05}.ply`: the surface mesh of `frame`.
    pub fn surface(&self, frame: i32) -> PathBuf {
        self.root.join(format!("surface_{frame:05}.ply"))
    }
    pub fn manifest(&self) -> PathBuf {
        self.root.join("manifest.json")
    }
    pub fn scene(&self) -> PathBuf {
        self.root.join("scene.gloop")
    }
    pub fn status(&self) -> PathBuf {
        self.root.join("status.json")
    }
    /// If this file exists, a running bake stops within a substep.
    pub fn cancel(&self) -> PathBuf {
        self.root.join("cancel")
    }

    /// The frame number of a per-frame file name (`particles_00012.ply` → 12), if `name` is
    /// one with the given prefix (`"particles"` or `"surface"`).
    pub fn frame_of(name: &str, prefix: &str) -> Option<i32> {
        let digits = name
            .strip_prefix(prefix)?
            .strip_prefix('_')?
            .strip_suffix(".ply")?;
        if digits.len() < 5 || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'-') {
            return None;
        }
        digits.parse().ok()
    }

    /// Frames that have a file with `prefix` (`"particles"` or `"surface"`), sorted.
    pub fn frames_present(&self, prefix: &str) -> std::io::Result<Vec<i32>> {
        let mut frames = Vec::new();
        let entries = match std::fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(frames),
            Err(e) => return Err(e),
        };
        for entry in entries {
            let name = entry?.file_name();
            if let Some(frame) = name.to_str().and_then(|n| Self::frame_of(n, prefix)) {
                frames.push(frame);
            }
        }
        frames.sort_unstable();
        Ok(frames)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_file_names_round_trip() {
        let dir = CacheDir::new("/x");
        assert_eq!(dir.particles(7), Path::new("/x/particles_00007.ply"));
        assert_eq!(
            CacheDir::frame_of("particles_00007.ply", "particles"),
            Some(7)
        );
        assert_eq!(
            CacheDir::frame_of("surface_12345.ply", "surface"),
            Some(12345)
        );
        assert_eq!(
            CacheDir::frame_of("particles_00007.ply.tmp", "particles"),
            None
        );
        assert_eq!(CacheDir::frame_of("surface_00007.ply", "particles"), None);
        assert_eq!(CacheDir::frame_of("particles_7.ply", "particles"), None);
    }
}
