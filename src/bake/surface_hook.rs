//! The surface mesher as a frame hook: every written frame is meshed on the bake's
//! post-processing thread, so frame N is meshed while the solver computes frame N+1.

use std::sync::Arc;

use super::FrameHook;
use crate::surface::{mesh_liquid, write_surface_ply, SurfaceSettings};

/// A hook writing `surface_{frame:05}.ply` for every frame it gets.
pub fn surface_hook(particle_radius: f32, settings: SurfaceSettings) -> FrameHook {
    Arc::new(move |frame, particles, cache| {
        let mesh = mesh_liquid(particles, particle_radius, &settings);
        write_surface_ply(&cache.surface(frame), &mesh)
    })
}

/// Runs `first`, then `second` (both must succeed).
pub fn chain(first: FrameHook, second: FrameHook) -> FrameHook {
    Arc::new(move |frame, particles, cache| {
        first(frame, particles, cache)?;
        second(frame, particles, cache)
    })
}
