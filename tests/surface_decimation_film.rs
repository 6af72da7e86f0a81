//! Decimation of a thin film on an obstacle (issue 41): the honey-drop demo at frame 150, its
//! ball coated with honey about 3 r thick, meshed with and without decimation. No decimated
//! triangle may face against the undecimated surface: two that did (0.26 and 0.6 r², turned
//! over by a series of edge collapses) rendered as dark dots in the film.
//!
//! The fixture is a cache of that one frame as `gloop demo honey-drop --no-surface` wrote it
//! (its scene, the particles, the manifest cut to the frame); the Blender test
//! `test_decimation_render.py` renders it.

use std::path::Path;

use gloop::cache::read_particles;
use gloop::surface::hausdorff::turned_triangles;
use gloop::surface::{mesh_liquid, ObstacleSurface, SurfaceMesh, SurfaceSettings};
use gloop::Scene;

const FIXTURE: &str = "tests/fixtures/honey_drop_frame_150";
const FRAME: i32 = 150;

fn area(mesh: &SurfaceMesh, t: usize) -> f32 {
    let [a, b, c] = mesh.triangles[t].map(|v| mesh.positions[v as usize]);
    0.5 * (b - a).cross(c - a).length()
}

#[test]
fn decimation_turns_no_triangle_of_a_film_on_a_ball_over() {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join(FIXTURE);
    let particles =
        read_particles(&fixture.join(format!("particles_{FRAME:05}.ply"))).expect("particles");
    let scene = Scene::load(&fixture.join("scene.gloop")).expect("the demo's scene");
    let r = scene.settings.particle_radius;
    let obstacles = ObstacleSurface::of_scene(&scene, FRAME);
    let mesh = |max_error| {
        let settings = SurfaceSettings {
            max_error,
            ..Default::default()
        };
        mesh_liquid(&particles, r, &settings, &obstacles)
    };
    let (full, slim) = (mesh(0.0), mesh(SurfaceSettings::default().max_error));
    assert!(
        slim.triangles.len() * 5 < full.triangles.len(),
        "decimation kept {} of {} triangles",
        slim.triangles.len(),
        full.triangles.len()
    );
    // Judged against the undecimated surface within r (decimation keeps within 0.2 r of it);
    // slivers lower than a hundredth of their length have no orientation a render could show.
    let turned = turned_triangles(
        (&slim.positions, &slim.triangles),
        (&full.positions, &full.triangles),
        r,
        0.01,
    );
    let described: Vec<String> = turned
        .iter()
        .map(|&t| {
            let [a, b, c] = slim.triangles[t].map(|v| slim.positions[v as usize]);
            let centre = (a + b + c) / (3.0 * r);
            let longest = (b - a).length().max((c - b).length()).max((a - c).length());
            format!(
                "{:.3} r² at {centre:.1} r, height/longest {:.4}",
                area(&slim, t) / (r * r),
                2.0 * area(&slim, t) / (longest * longest)
            )
        })
        .collect();
    assert!(
        turned.is_empty(),
        "{} decimated triangles face against the surface: {described:?}",
        turned.len()
    );
}
