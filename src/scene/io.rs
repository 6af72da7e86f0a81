//! Scene files: a versioned binary form (magic, format version, postcard payload) and JSON,
//! both from the same serde model. Readers refuse truncated files and newer versions with a
//! message naming the file.

use std::path::Path;

use super::{Scene, SCENE_FORMAT_VERSION};
use crate::error::{GloopError, Result};

/// The oldest binary scene format this build reads. Postcard stores no field names, so a
/// binary file can only be read with the types it was written from; JSON files of every
/// version load, their missing fields taking their defaults.
pub const OLDEST_BINARY_VERSION: u32 = 2;

/// First bytes of a binary scene file.
pub const SCENE_MAGIC: &[u8; 8] = b"GLOOPSCN";

impl Scene {
    /// The binary scene file: magic, then this build's format version, which says how the
    /// bytes after it are laid out, whatever version the scene was read from (a version-3
    /// JSON scene from an older add-on is written in today's layout, and must say so).
    pub fn to_binary(&self) -> Vec<u8> {
        let mut out = SCENE_MAGIC.to_vec();
        out.extend_from_slice(&SCENE_FORMAT_VERSION.to_le_bytes());
        let payload = if self.version == SCENE_FORMAT_VERSION {
            postcard::to_stdvec(self)
        } else {
            postcard::to_stdvec(&Scene {
                version: SCENE_FORMAT_VERSION,
                ..self.clone()
            })
        };
        out.extend(payload.expect("a scene always serializes"));
        out
    }

    /// Parses a binary scene; `origin` names the file in error messages.
    pub fn from_binary(bytes: &[u8], origin: &Path) -> Result<Scene> {
        if bytes.len() < 12 || &bytes[..8] != SCENE_MAGIC {
            return Err(GloopError::file(
                origin,
                "not a Gloop scene file (bad magic bytes)",
            ));
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap());
        check_version(version, origin)?;
        if version < OLDEST_BINARY_VERSION {
            return Err(GloopError::file(
                origin,
                format!(
                    "scene format version {version} is from an older Gloop, whose binary form \
                     this one no longer reads; export the scene again (JSON scene files of \
                     version {version} still load)"
                ),
            ));
        }
        let decoded = if version == 2 {
            super::binary_v2::from_postcard(&bytes[12..])
        } else if version == 3 {
            super::binary_v3::from_postcard(&bytes[12..])
        } else {
            postcard::from_bytes(&bytes[12..])
        };
        let scene: Scene = decoded.map_err(|e| {
            let what = match e {
                postcard::Error::DeserializeUnexpectedEnd => "the file is truncated".to_string(),
                other => format!("the file is corrupt ({other})"),
            };
            GloopError::file(origin, format!("cannot read scene: {what}"))
        })?;
        Ok(scene)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a scene always serializes")
    }

    pub fn from_json(text: &str, origin: &Path) -> Result<Scene> {
        // Read the version first, so a newer file gets a version error and not a schema error.
        let value: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| GloopError::file(origin, format!("cannot read scene JSON: {e}")))?;
        let version = value
            .get("version")
            .and_then(|v| v.as_u64())
            .ok_or_else(|| GloopError::file(origin, "scene JSON has no numeric 'version' field"))?;
        check_version(version as u32, origin)?;
        serde_json::from_value(value)
            .map_err(|e| GloopError::file(origin, format!("cannot read scene JSON: {e}")))
    }

    /// Loads a scene file, binary or JSON (told apart by content, not by extension), and
    /// validates it.
    pub fn load(path: &Path) -> Result<Scene> {
        let bytes = std::fs::read(path).map_err(|e| GloopError::io(path, e))?;
        let scene = if bytes.starts_with(SCENE_MAGIC) {
            Scene::from_binary(&bytes, path)?
        } else {
            let text = std::str::from_utf8(&bytes).map_err(|_| {
                GloopError::file(path, "neither a binary Gloop scene nor UTF-8 JSON")
            })?;
            Scene::from_json(text, path)?
        };
        scene.validate()?;
        Ok(scene)
    }

    /// Saves as JSON if the path ends in `.json`, otherwise binary. Written to a temporary
    /// name and renamed, so a crash never leaves half a scene.
    pub fn save(&self, path: &Path) -> Result<()> {
        let bytes = if path.extension().is_some_and(|e| e == "json") {
            self.to_json().into_bytes()
        } else {
            self.to_binary()
        };
        crate::atomic_file::write_atomically(path, &bytes)
    }
}

fn check_version(version: u32, origin: &Path) -> Result<()> {
    if version > SCENE_FORMAT_VERSION {
        return Err(GloopError::file(
            origin,
            format!(
                "scene format version {version} is newer than this Gloop reads \
                 (up to {SCENE_FORMAT_VERSION}); update Gloop"
            ),
        ));
    }
    if version == 0 {
        return Err(GloopError::file(
            origin,
            "scene format version 0 is not valid",
        ));
    }
    Ok(())
}
