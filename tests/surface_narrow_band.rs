//! The polygonizer skips blocks wholly inside the liquid (narrow band). These check that what
//! it skips never costs surface: a pool's inner air bubble, deep inside skipped blocks, is
//! still meshed, and the outer surface stays closed.

use glam::Vec3;
use gloop::surface::{mesh_particles, quality, SurfaceSettings};

const R: f32 = 0.01;

/// A 24^3 lattice cube (spacing 2r) without the particles within `void` of `centre`.
fn cube_with_void(centre: Vec3, void: f32) -> Vec<Vec3> {
    let mut v = Vec::new();
    for k in 0..24 {
        for j in 0..24 {
            for i in 0..24 {
                let p = Vec3::new(i as f32, j as f32, k as f32) * 2.0 * R;
                if p.distance(centre) > void {
                    v.push(p);
                }
            }
        }
    }
    v
}

#[test]
fn a_bubble_deep_inside_a_pool_is_meshed_as_its_own_inner_surface() {
    // The cube is 96 cubes across (6 blocks); the bubble sits inside the third block, far from
    // the outer surface, where the flood from the outside never goes.
    let centre = Vec3::splat(21.0 * R);
    let particles = cube_with_void(centre, 3.5 * R);
    let m = mesh_particles(&particles, &[], &[], R, &SurfaceSettings::default());
    let report = quality::measure(&m);
    assert!(report.is_closed_manifold(), "{report:?}");
    assert_eq!(report.components, 2, "outer surface and bubble: {report:?}");
    // The bubble's surface: vertices within a few radii of its centre, none at the centre.
    let near: Vec<f32> = m
        .positions
        .iter()
        .map(|p| p.distance(centre) / R)
        .filter(|&d| d < 6.0)
        .collect();
    assert!(near.len() > 20, "{} bubble vertices", near.len());
    assert!(near.iter().all(|&d| d > 0.5), "{near:?}");
}

#[test]
fn a_solid_pool_has_one_closed_surface() {
    let particles = cube_with_void(Vec3::splat(-1.0), 0.0);
    let m = mesh_particles(&particles, &[], &[], R, &SurfaceSettings::default());
    let report = quality::measure(&m);
    assert!(report.is_closed_manifold(), "{report:?}");
    assert_eq!(report.components, 1);
    // No vertex deep inside: the cube spans 0..46 r, its surface lies about r outside that.
    let deep = m
        .positions
        .iter()
        .filter(|p| p.min_element() > 6.0 * R && p.max_element() < 40.0 * R)
        .count();
    assert_eq!(deep, 0);
}
