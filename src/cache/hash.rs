//! A stable fingerprint of a scene, so a resumed bake can tell whether the cache was made
//! from the same scene.

use crate::scene::Scene;

/// 64-bit FNV-1a of the scene's binary form, as 16 hex digits.
///
/// `settings.frame_end` is left out on purpose: it does not change any frame before it, so a
/// bake of frames 1..50 can be resumed and extended to 1..100. Hand-written rather than a
/// crate because it is eight lines and must never change between versions (std's
/// `DefaultHasher` makes no such promise).
pub fn scene_hash(scene: &Scene) -> String {
    let mut normalised = scene.clone();
    normalised.settings.frame_end = normalised.settings.frame_start;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in &normalised.to_binary() {
        h ^= byte as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}
