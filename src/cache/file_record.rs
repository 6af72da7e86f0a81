//! What the manifest records of each finished frame file: its size and a hash of its bytes,
//! so a resume or `gloop info` can tell a kept frame from one cut short, emptied or changed
//! since it was written (see [`super::check`]).

use std::collections::BTreeMap;
use std::hash::Hasher;
use std::io::Read;
use std::path::Path;

use serde::{Deserialize, Serialize};
use twox_hash::XxHash3_64;

use crate::error::{GloopError, Result};

/// Size and hash of one complete file.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct FileRecord {
    /// Bytes.
    pub size: u64,
    /// XXH3-64 (seed 0) of the whole file, as 16 hex digits: a string, because JSON readers
    /// such as Python's or JavaScript's would round a 64-bit number.
    pub xxh3: String,
}

/// The recorded files of one frame. A file without a record (a cache written before records
/// existed, or a process killed between writing a file and recording it) is checked the way
/// older caches were (see [`super::check`]).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq)]
pub struct FrameFiles {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub particles: Option<FileRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surface: Option<FileRecord>,
    /// Interior shells the surface keeps: air pockets the liquid really encloses (see
    /// `surface::cavities`). Absent where the surface was written before they were counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub air_pockets: Option<u32>,
    /// Interior shells the mesher deleted, filling their voids: too small for a ball of
    /// radius 2 r free of particles (phantoms of the field). Absent as `air_pockets` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub voids_filled: Option<u32>,
}

/// Frame number → its recorded files, as the manifest's `frames` holds them.
pub type FrameRecords = BTreeMap<i32, FrameFiles>;

/// Large enough that a read costs far more than the call; small enough to stay in L2.
const CHUNK: usize = 256 * 1024;

impl FileRecord {
    /// The record of `bytes`.
    pub fn of_bytes(bytes: &[u8]) -> FileRecord {
        FileRecord {
            size: bytes.len() as u64,
            xxh3: hex(XxHash3_64::oneshot(bytes)),
        }
    }

    /// The record of the file at `path`, read in chunks (a frame file can be hundreds of MB).
    pub fn of_file(path: &Path) -> Result<FileRecord> {
        let mut file = std::fs::File::open(path).map_err(|e| GloopError::io(path, e))?;
        let mut hasher = XxHash3_64::with_seed(0);
        let mut buffer = vec![0u8; CHUNK];
        let mut size = 0u64;
        loop {
            let n = match file.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(GloopError::io(path, e)),
            };
            hasher.write(&buffer[..n]);
            size += n as u64;
        }
        Ok(FileRecord {
            size,
            xxh3: hex(hasher.finish()),
        })
    }
}

fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_hashes_as_its_bytes_do_whatever_the_chunking() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // Past one chunk, and not a multiple of it.
        let bytes: Vec<u8> = (0..CHUNK * 2 + 12_345)
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        std::fs::write(&path, &bytes).unwrap();
        let record = FileRecord::of_file(&path).unwrap();
        assert_eq!(record, FileRecord::of_bytes(&bytes));
        assert_eq!(record.size, bytes.len() as u64);
        let mut flipped = bytes.clone();
        flipped[CHUNK + 7] ^= 1;
        assert_ne!(FileRecord::of_bytes(&flipped).xxh3, record.xxh3);
    }

    #[test]
    fn the_hash_is_xxh3_64_and_never_changes() {
        // Published XXH3-64 test vector for the empty input (seed 0): a cache written today
        // must check out with any later build.
        assert_eq!(FileRecord::of_bytes(b"").xxh3, "2d06800538d394c2");
    }

    #[test]
    fn records_without_interior_shell_counts_still_read_and_new_ones_round_trip() {
        // A frame recorded before the counts existed.
        let old = r#"{"particles":{"size":304,"xxh3":"b814392f75570de8"}}"#;
        let files: FrameFiles = serde_json::from_str(old).unwrap();
        assert_eq!((files.air_pockets, files.voids_filled), (None, None));
        // Written again, it stays as it was: no counts appear.
        assert_eq!(serde_json::to_string(&files).unwrap(), old);
        let counted = FrameFiles {
            air_pockets: Some(1),
            voids_filled: Some(4),
            ..files
        };
        let text = serde_json::to_string(&counted).unwrap();
        assert!(
            text.contains(r#""air_pockets":1,"voids_filled":4"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<FrameFiles>(&text).unwrap(), counted);
    }
}
