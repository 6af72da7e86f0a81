//! Files that are either complete or absent: write to a temporary name beside the target,
//! flush, then rename over it (atomic on the same filesystem).

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{GloopError, Result};

/// The temporary name used while `path` is being written.
pub fn temporary_path(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    path.with_file_name(name)
}

pub fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomically_with(path, |w| w.write_all(bytes))
}

/// Streams into the temporary file through `fill`, then renames it into place.
pub fn write_atomically_with(
    path: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> Result<()> {
    let tmp = temporary_path(path);
    let result = (|| {
        let file = std::fs::File::create(&tmp)?;
        let mut writer = std::io::BufWriter::new(file);
        fill(&mut writer)?;
        writer.flush()?;
        writer.get_ref().sync_data()?;
        drop(writer);
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        GloopError::io(path, e)
    })
}
