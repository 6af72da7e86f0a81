//! No phantom bubbles in baked scenes (issue 41, point 2), frame by frame: every inward-facing
//! shell left in a surface is one of the air pockets the mesher kept and recorded (a ball of
//! radius 2 r free of particles fits inside it), and `gloop info` lists them.
//!
//! Short bakes, to stay within CI's budget: a Quick-Honey-like cube dropped onto a floor, the
//! pour demo's first frames (the rope lands and starts its pile), the honey drop's first
//! frames (it lands on the ball and starts to coat it).

use std::path::Path;

use gloop::bake::{bake, BakeOptions};
use gloop::cache::{CacheDir, Manifest};
use gloop::remesh::{remesh, RemeshOptions};
use gloop::scene::Scene;
use gloop::surface::cavities::inward_shells;
use gloop::surface::read_surface_ply;

mod bake_support;
use bake_support::{arg, stdout_of, tiny_scene};

/// Bakes `scene`'s frames up to `meshed.1` (particles only, as the shared caches are), meshes
/// `meshed.0..=meshed.1` with `gloop mesh`'s code, then checks every meshed frame: its
/// surface's inward shells are exactly the air pockets recorded for it, and `gloop info`
/// lists them. Returns the (air pockets kept, voids filled) per frame.
fn bake_mesh_and_check(scene: &Scene, meshed: (i32, i32), dir: &Path) -> Vec<(u32, u32)> {
    let options = BakeOptions {
        frames: Some((scene.settings.frame_start, meshed.1)),
        surface: None,
        ..Default::default()
    };
    bake(scene, dir, &options, &mut |_| {}).unwrap();
    let options = RemeshOptions {
        frames: Some(meshed),
        ..Default::default()
    };
    remesh(dir, &options, &mut |_| {}).unwrap();
    let cache = CacheDir::new(dir);
    let manifest = Manifest::read(&cache.manifest()).unwrap();
    let mut shells = Vec::new();
    for frame in meshed.0..=meshed.1 {
        let mesh = read_surface_ply(&cache.surface(frame)).unwrap();
        let record = &manifest.frames[&frame];
        let left = inward_shells(&mesh.positions, &mesh.triangles) as u32;
        assert_eq!(
            Some(left),
            record.air_pockets,
            "frame {frame}: shells left vs kept"
        );
        shells.push((left, record.voids_filled.unwrap()));
    }
    let info = stdout_of(&["info", arg(dir)]);
    assert!(info.contains("air pockets  voids filled"), "{info}");
    println!("(air pockets, voids filled) per frame: {shells:?}");
    shells
}

/// Voids filled over all frames: the bake did make phantoms for the rule to act on.
fn filled(shells: &[(u32, u32)]) -> u32 {
    shells.iter().map(|s| s.1).sum()
}

#[test]
fn a_cube_of_honey_dropped_on_a_floor_holds_no_bubble() {
    // Quick Honey's set-up at CI size: a cube of honey falls onto a slab and spreads.
    let dir = tempfile::tempdir().unwrap();
    let shells = bake_mesh_and_check(&tiny_scene(16), (1, 16), dir.path());
    // Nothing was poured or folded in: the liquid encloses no air.
    assert!(shells.iter().all(|s| s.0 == 0), "{shells:?}");
}

#[test]
fn the_pour_lands_without_phantom_bubbles() {
    // The rope lands at frame 4; by frame 12 the field dips inside the young pile.
    let scene = gloop::demos::demo_scene("honey-pour").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shells = bake_mesh_and_check(&scene, (12, 20), dir.path());
    assert!(filled(&shells) > 0, "{shells:?}");
}

#[test]
fn the_honey_drop_lands_without_phantom_bubbles() {
    // The drop lands at frame 3; from frame 20 the field dips inside the coat.
    let scene = gloop::demos::demo_scene("honey-drop").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let shells = bake_mesh_and_check(&scene, (20, 24), dir.path());
    assert!(filled(&shells) > 0, "{shells:?}");
}
