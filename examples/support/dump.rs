//! Frame dumps shared by the pour examples: each frame's liquid positions as `KKKK.bin`, raw
//! little-endian f32 x y z (what tools/splishsplash_pour.py and the side-view scripts read).

use glam::Vec3;

/// The dump folder named by the argument, created; `None` without one.
pub fn folder(argument: Option<&String>) -> Option<String> {
    let dir = argument?.clone();
    std::fs::create_dir_all(&dir).unwrap();
    Some(dir)
}

/// Writes `positions` as `{dir}/{frame:04}.bin`.
pub fn write(dir: &str, frame: usize, positions: &[Vec3]) {
    let bytes: Vec<u8> = positions
        .iter()
        .flat_map(|p| p.to_array())
        .flat_map(f32::to_le_bytes)
        .collect();
    std::fs::write(format!("{dir}/{frame:04}.bin"), bytes).unwrap();
}
