//! No silent empty or runaway bakes (issue 42 point 4). An emitter with zero flow or speed,
//! or a scene whose emitters emit nothing within the bake's frames, is refused, naming the
//! object and the field; a liquid object below the resolution and obstacles of over a million
//! object particles are cautions: a fresh bake refuses them, naming the object and the fix,
//! until it is confirmed (`--confirm`, `BakeOptions::confirmed`).

use std::path::Path;

use glam::Vec3;
use gloop::bake::{bake, BakeOptions};
use gloop::scene::cautions::{FEWEST_LIQUID_PARTICLES, MOST_OBJECT_PARTICLES};
use gloop::scene::{Emission, Motion, Role, SceneObject, TriMesh};
use gloop::Scene;

mod bake_support;
use bake_support::{arg, cuboid, gloop, tiny_scene};

fn nozzle(emission: Emission) -> SceneObject {
    SceneObject {
        name: "Nozzle".into(),
        role: Role::Emitter {
            material: "honey".into(),
            emission,
        },
        // A 2 cm square, 20 cm above the slab.
        mesh: square(0.02, 0.2),
        motion: Motion::default(),
    }
}

/// A square `side` metres across at height `z`, centred on the z axis, facing up.
fn square(side: f32, z: f32) -> TriMesh {
    let h = 0.5 * side;
    TriMesh {
        vertices: vec![
            Vec3::new(-h, -h, z),
            Vec3::new(h, -h, z),
            Vec3::new(h, h, z),
            Vec3::new(-h, h, z),
        ],
        triangles: vec![[0, 1, 2], [0, 2, 3]],
    }
}

fn emission(flow: Option<f32>, speed: Option<f32>, rate: Option<f32>) -> Emission {
    Emission {
        flow,
        speed,
        rate,
        frame_start: 1,
        frame_end: 100,
    }
}

/// `tiny_scene` with its liquid replaced by `objects`.
fn scene_with(objects: Vec<SceneObject>) -> Scene {
    let mut scene = tiny_scene(3);
    scene
        .objects
        .retain(|o| matches!(o.role, Role::Obstacle { .. }));
    scene.objects.extend(objects);
    scene
}

/// Why a bake of `scene` is refused (the checks a bake starts with).
fn refusal(scene: &Scene) -> String {
    match scene
        .validate()
        .and_then(|()| scene.validate_makes_liquid())
    {
        Ok(()) => panic!("accepted: {:?}", scene.objects.last().map(|o| &o.role)),
        Err(e) => e.to_string(),
    }
}

fn assert_names(message: &str, words: &[&str]) {
    for word in words {
        assert!(message.contains(word), "expected '{word}' in: {message}");
    }
}

#[test]
fn an_emitter_without_flow_or_speed_is_refused_naming_it_and_the_field() {
    let square = 0.02 * 0.02;
    for (given, field) in [
        (emission(Some(0.0), None, None), "flow is 0 m³/s"),
        (emission(Some(-0.0), Some(0.1), None), "flow is 0 m³/s"),
        (emission(None, Some(0.0), None), "speed is 0 m/s"),
        (emission(Some(1e-6), Some(0.0), None), "speed is 0 m/s"),
        (emission(None, None, Some(0.0)), "rate is 0 particles/s"),
        (
            emission(Some(-1e-6), None, None),
            "flow must be a number above 0",
        ),
        (
            emission(None, Some(-0.2), None),
            "speed must be a number above 0",
        ),
    ] {
        let message = refusal(&scene_with(vec![nozzle(given.clone())]));
        assert_names(&message, &["object 'Nozzle'", "emission", field]);
        // Beside a liquid that would bake, it is refused all the same.
        let mut scene = tiny_scene(3);
        scene.objects.push(nozzle(given));
        assert_names(&refusal(&scene), &["object 'Nozzle'", field]);
    }
    // Positive flows and speeds emit (at r = 1 cm a particle is 8 mL: these emit one or two
    // within the two frames' twelfth of a second).
    for given in [
        emission(Some(2e-4), None, None),
        emission(None, Some(0.5), None),
        emission(Some(0.5 * 0.5 * square), Some(0.5), None),
    ] {
        scene_with(vec![nozzle(given)]).validate().unwrap();
    }
}

#[test]
fn a_bake_that_would_make_no_liquid_is_refused() {
    // Only the slab: nothing to bake.
    let message = refusal(&scene_with(vec![]));
    assert_names(
        &message,
        &["no liquid object and no emitter", "frames 1..3"],
    );
    // An emitter that starts after the bake's last frame, or stops before its first.
    for (start, end) in [(10, 20), (-5, 1), (2, 2)] {
        let mut late = emission(None, Some(0.1), None);
        (late.frame_start, late.frame_end) = (start, end);
        let message = refusal(&scene_with(vec![nozzle(late)]));
        assert_names(
            &message,
            &[
                "no liquid in frames 1..3",
                &format!("'Nozzle' emits from frame {start} to frame {end}"),
            ],
        );
    }
    // A trickle too thin to emit a whole particle within the bake's two frames' time.
    let trickle = emission(None, None, Some(5.0));
    let message = refusal(&scene_with(vec![nozzle(trickle)]));
    assert_names(&message, &["no liquid in frames 1..3", "'Nozzle'"]);
    // Twelve particles a second do, within two frames at 24 fps.
    scene_with(vec![nozzle(emission(None, None, Some(12.0)))])
        .validate()
        .unwrap();
}

#[test]
fn the_cli_refuses_an_empty_bake_and_leaves_no_frames() {
    let work = tempfile::tempdir().unwrap();
    let scene_file = work.path().join("scene.json");
    scene_with(vec![nozzle(emission(Some(0.0), None, None))])
        .save(&scene_file)
        .unwrap();
    let cache = work.path().join("cache");
    let out = gloop(&["bake", arg(&scene_file), "--out", arg(&cache)]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_names(&stderr, &["'Nozzle'", "flow is 0 m³/s", "emits nothing"]);
    let frames = std::fs::read_dir(&cache)
        .map(|dir| dir.filter(|f| f.is_ok()).count())
        .unwrap_or(0);
    assert_eq!(frames, 0, "the refused bake wrote into {}", cache.display());
}

/// A honey cube of `cells`³ lattice cells at the tiny scene's r = 1 cm: `cells`³ particles.
fn honey_cube(cells: u32) -> SceneObject {
    let side = 0.02 * cells as f32;
    let mut scene = tiny_scene(3);
    let mut blob = scene.objects.remove(1);
    assert_eq!(blob.name, "Blob");
    blob.name = "Drop".into();
    blob.mesh = cuboid(
        Vec3::new(0.0, 0.0, 0.04),
        Vec3::new(side, side, 0.04 + side),
    );
    blob
}

#[test]
fn a_liquid_below_the_resolution_is_a_caution_naming_it_and_the_fix() {
    let scene = scene_with(vec![honey_cube(2)]);
    scene.validate().unwrap(); // legal: 8 particles are a liquid of sorts
    let cautions = scene.cautions();
    assert_eq!(cautions.len(), 1, "{cautions:?}");
    assert_names(
        &cautions[0],
        &[
            "liquid object 'Drop' holds only 8 particles",
            "at particle_radius 0.01 m",
            &format!("({FEWEST_LIQUID_PARTICLES} at least)"),
            // 8 particles at 1 cm are 50 at 1 cm · (8/50)^⅓.
            "enlarge it, or lower particle_radius to 5.43e-3 m or less",
        ],
    );
    // 27 still is one; 64 is not.
    assert_eq!(scene_with(vec![honey_cube(3)]).cautions().len(), 1);
    assert!(scene_with(vec![honey_cube(4)]).cautions().is_empty());
    assert!(tiny_scene(3).cautions().is_empty()); // 216 particles
}

#[test]
fn a_tiny_liquid_bakes_only_once_confirmed() {
    let scene = scene_with(vec![honey_cube(2)]);
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    let asked = BakeOptions {
        surface: None,
        ..BakeOptions::default()
    };
    let refused = bake(&scene, &cache, &asked, &mut |_| {}).unwrap_err();
    assert_names(
        &refused.to_string(),
        &[
            "needs confirming",
            "'Drop' holds only 8 particles",
            "--confirm",
        ],
    );
    assert!(!cache.join("particles_00001.ply").exists());
    let confirmed = BakeOptions {
        confirmed: true,
        ..asked
    };
    let done = bake(&scene, &cache, &confirmed, &mut |_| {}).unwrap();
    assert_eq!(done.last_frame, 3);
    // A resume continues the confirmed bake without asking again.
    let later = BakeOptions {
        resume: true,
        frames: Some((1, 4)),
        surface: None,
        ..BakeOptions::default()
    };
    assert_eq!(
        bake(&scene, &cache, &later, &mut |_| {})
            .unwrap()
            .last_frame,
        4
    );
}

#[test]
fn the_cli_asks_for_confirm_and_bakes_with_it() {
    let work = tempfile::tempdir().unwrap();
    let scene_file = work.path().join("scene.json");
    scene_with(vec![honey_cube(2)]).save(&scene_file).unwrap();
    let cache = work.path().join("cache");
    let base = [
        "bake",
        arg(&scene_file),
        "--out",
        arg(&cache),
        "--no-surface",
    ];
    let out = gloop(&base);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_names(&stderr, &["'Drop' holds only 8 particles", "--confirm"]);
    assert!(!cache.join("particles_00001.ply").exists());
    let out = gloop(&[&base[..], &["--confirm"]].concat());
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(cache.join("particles_00003.ply").exists());
}

/// A square floor `side` metres across at r = 0.5 mm (the finest Automatic Resolution gives,
/// under a pour), with the tiny scene's honey above it.
fn floor_scene(side: f32) -> Scene {
    let mut scene = tiny_scene(3);
    scene.settings.particle_radius = 0.0005;
    scene.settings.max_particles = 20_000_000;
    scene.objects[0].name = "Floor".into();
    scene.objects[0].mesh = square(side, 0.0);
    // A 2 cm honey cube: 8,000 particles at this radius.
    scene.objects[1].mesh = cuboid(Vec3::new(0.0, 0.0, 0.02), Vec3::new(0.02, 0.02, 0.04));
    scene
}

#[test]
fn over_a_million_object_particles_is_a_caution_naming_the_obstacle() {
    // An unscaled 2 m plane is 4.2 million at this radius; 1 m (1.26 million) is enough to
    // ask.
    let big = floor_scene(1.0);
    big.validate().unwrap();
    let cautions = big.cautions();
    assert_eq!(cautions.len(), 1, "{cautions:?}");
    let samples = gloop::geometry::sample_surface(
        &big.objects[0].mesh.vertices,
        &big.objects[0].mesh.triangles,
        gloop::geometry::obstacle_spacing(0.0005),
    )
    .len();
    assert!(samples as u64 > MOST_OBJECT_PARTICLES, "{samples}");
    assert_names(
        &cautions[0],
        &[
            &format!("obstacle 'Floor' makes {samples} object particles"),
            "over 1000000",
            "scale it down to where the liquid reaches, or raise particle_radius",
        ],
    );
    // 0.8 m: its upper bound (1.03 million) is over the limit, its exact count (0.77
    // million) is not.
    assert!(floor_scene(0.8).cautions().is_empty());
    // Refused before any particle is made (quickly: nothing is simulated).
    let work = tempfile::tempdir().unwrap();
    let options = BakeOptions {
        surface: None,
        ..BakeOptions::default()
    };
    let refused = bake(&big, work.path(), &options, &mut |_| {}).unwrap_err();
    assert_names(&refused.to_string(), &["'Floor' makes", "--confirm"]);
    assert!(!Path::new(&work.path().join("particles_00001.ply")).exists());
}

#[test]
fn no_demo_asks_for_confirmation() {
    for &name in gloop::demos::DEMO_NAMES {
        let scene = gloop::demos::demo_scene(name).unwrap();
        assert_eq!(scene.cautions(), Vec::<String>::new(), "demo {name}");
    }
}
