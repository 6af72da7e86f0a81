//! `rim_probe OUT FRAMES [RADIUS CELLS FALL]`: a cube of honey falls onto a wooden floor (as
//! Quick Honey makes it); bakes its particles into the cache folder OUT for `gloop mesh`.
use glam::{Mat4, Vec3};
use gloop::bake::{bake, BakeOptions};
use gloop::geometry::box_mesh;
use gloop::scene::{presets, Materials, Motion, Role, Scene, SceneObject};
use gloop::validation::scenes::small_scene_settings;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let out = std::path::PathBuf::from(&args[1]);
    let frames: i32 = args[2].parse().unwrap();
    let radius: f32 = args.get(3).map_or(0.002, |s| s.parse().unwrap());
    let cells: u32 = args.get(4).map_or(12, |s| s.parse().unwrap());
    let fall: f32 = args.get(5).map_or(0.05, |s| s.parse().unwrap());
    let size = cells as f32 * 2.0 * radius;
    let lo = Vec3::new(-size / 2.0, -size / 2.0, fall);
    let objects = vec![
        SceneObject {
            name: "Honey".into(),
            role: Role::Liquid {
                material: "honey".into(),
                initial_velocity: Vec3::ZERO,
            },
            mesh: box_mesh(lo, lo + Vec3::splat(size)),
            motion: Motion::default(),
        },
        SceneObject {
            name: "Floor".into(),
            role: Role::Obstacle {
                material: "wood".into(),
            },
            mesh: box_mesh(Vec3::new(-0.1, -0.1, -0.02), Vec3::new(0.1, 0.1, 0.0)),
            motion: Motion::Static {
                matrix: Mat4::IDENTITY,
            },
        },
    ];
    let settings = small_scene_settings(radius, frames);
    let materials = Materials {
        liquids: vec![presets::honey()],
        solids: vec![presets::wood()],
        adhesion_overrides: vec![],
    };
    let scene = Scene::new(settings, materials, objects);
    let options = BakeOptions {
        overwrite: true,
        ..BakeOptions::default()
    };
    let t = std::time::Instant::now();
    bake(&scene, &out, &options, &mut |_| {}).unwrap();
    println!("baked in {:.1} s", t.elapsed().as_secs_f32());
}
