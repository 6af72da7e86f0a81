//! The Quick Honey fixture (`tests/fixtures/quick_honey_cube`: the add-on's Quick Honey scene
//! and the particles of frames 6, 12 and 48), meshed with the default surface settings, for
//! the tests of the puddle's rim and top.

use std::path::Path;

use gloop::cache::read_particles;
use gloop::surface::{mesh_liquid, ObstacleSurface, SurfaceMesh, SurfaceSettings};
use gloop::Scene;

/// One frame of the fixture, meshed.
pub struct MeshedFrame {
    pub frame: i32,
    pub mesh: SurfaceMesh,
    /// The height of the add-on's floor (one horizontal plane, the first obstacle).
    pub floor: f32,
    /// The particle radius.
    pub r: f32,
}

/// `frames` of the fixture, each meshed as a bake would.
pub fn meshed(frames: &[i32]) -> Vec<MeshedFrame> {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/quick_honey_cube");
    let scene = Scene::load(&fixture.join("scene.gloop")).expect("the Quick Honey scene");
    let r = scene.settings.particle_radius;
    frames
        .iter()
        .map(|&frame| {
            let particles = read_particles(&fixture.join(format!("particles_{frame:05}.ply")))
                .expect("the frame's particles");
            let obstacles = ObstacleSurface::of_scene(&scene, frame);
            let floor = obstacles[0]
                .vertices
                .iter()
                .map(|v| v.z)
                .fold(f32::MIN, f32::max);
            let mesh = mesh_liquid(&particles, r, &SurfaceSettings::default(), &obstacles);
            MeshedFrame {
                frame,
                mesh,
                floor,
                r,
            }
        })
        .collect()
}
