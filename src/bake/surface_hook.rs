//! The surface mesher as a frame hook: every written frame is meshed on the bake's
//! post-processing thread, so frame N is meshed while the solver computes frame N+1.

use std::sync::Arc;

use super::FrameHook;
use crate::scene::Scene;
use crate::surface::{
    mesh_liquid_counted, write_surface_ply, ObstacleSurface, Pockets, SurfaceSettings,
};

/// A hook writing `surface_{frame:05}.ply` for every frame it gets, the liquid meshed in
/// contact with `scene`'s obstacles as they stand at that frame.
pub fn surface_hook(scene: Arc<Scene>, settings: SurfaceSettings) -> FrameHook {
    surface_hook_reporting(scene, settings, Arc::new(|_, _, _| {}))
}

/// [`surface_hook`] that also tells `meshed(frame, triangles, pockets)` once each surface is
/// written (for the frame's stats line and the manifest's record of its air pockets).
pub(super) fn surface_hook_reporting(
    scene: Arc<Scene>,
    settings: SurfaceSettings,
    meshed: Arc<dyn Fn(i32, usize, Pockets) + Send + Sync>,
) -> FrameHook {
    let particle_radius = scene.settings.particle_radius;
    Arc::new(move |frame, particles, cache| {
        let obstacles = ObstacleSurface::of_scene(&scene, frame);
        let (mesh, pockets) =
            mesh_liquid_counted(particles, particle_radius, &settings, &obstacles);
        write_surface_ply(&cache.surface(frame), &mesh)?;
        meshed(frame, mesh.triangles.len(), pockets);
        Ok(())
    })
}

/// Runs `first`, then `second` (both must succeed).
pub fn chain(first: FrameHook, second: FrameHook) -> FrameHook {
    Arc::new(move |frame, particles, cache| {
        first(frame, particles, cache)?;
        second(frame, particles, cache)
    })
}
