//! Issue 35, defects 3–6: scenes that panicked, aborted on an allocation, hung or ran away in
//! time and memory. Each is baked by the `gloop` binary under a wall-clock limit and an
//! address-space limit, and must end with a clean error naming what is wrong, promptly and
//! within the memory.

use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::AtomicBool;
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use glam::{Mat4, Vec3};
use gloop::bake::{bake, BakeOptions};
use gloop::scene::{Emission, Motion, Role, SceneObject};
use gloop::Scene;

mod bake_support;
use bake_support::{cuboid, tiny_scene};

/// Far more than any of these scenes needs refused or baked (a few MB), far less than their
/// runaways asked for (gigabytes to terabytes).
const ADDRESS_SPACE: u64 = 2 << 30;
const TIME_LIMIT: Duration = Duration::from_secs(20);

/// Bakes `scene` (saved as `name`) with `extra` arguments under the limits and returns stderr,
/// after checking the bake failed cleanly: exit code 1, an `error:` line, no panic, no signal,
/// in time.
fn bake_is_refused(scene: &Scene, name: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    scene.save(&path).unwrap();
    let out = dir.path().join("cache");
    let mut command = Command::new(gloop_binary());
    command
        .args([
            "bake",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe and touches only the child being started.
    unsafe {
        command.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: ADDRESS_SPACE as libc::rlim_t,
                rlim_max: ADDRESS_SPACE as libc::rlim_t,
            };
            libc::setrlimit(libc::RLIMIT_AS, &limit);
            Ok(())
        });
    }
    let started = Instant::now();
    let mut child = command.spawn().unwrap();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIME_LIMIT {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{name}: still running after {TIME_LIMIT:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{name}: {status}: {stderr}");
    assert!(stderr.starts_with("error: "), "{name}: {stderr}");
    assert!(!stderr.contains("panicked"), "{name}: {stderr}");
    stderr
}

/// This build's `gloop`, or the one `GLOOP_UNDER_TEST` names (to show these scenes failing on
/// an earlier build).
fn gloop_binary() -> String {
    std::env::var("GLOOP_UNDER_TEST").unwrap_or_else(|_| env!("CARGO_BIN_EXE_gloop").into())
}

fn assert_mentions(stderr: &str, words: &[&str]) {
    for word in words {
        assert!(stderr.contains(word), "expected '{word}' in: {stderr}");
    }
}

fn with_blob_matrix(matrix: Mat4) -> Scene {
    let mut scene = tiny_scene(3);
    scene.objects[1].motion = Motion::Static { matrix };
    scene
}

/// Defect 3: a liquid scaled by 1e30 panicked with an index out of bounds in the fill.
#[test]
fn liquid_scaled_by_1e30() {
    let scene = with_blob_matrix(Mat4::from_scale(Vec3::splat(1e30)));
    let stderr = bake_is_refused(&scene, "huge.gloop", &[]);
    assert_mentions(&stderr, &["'Blob'"]);
}

/// Defect 3: one vertex far down the z axis, or a 1e-20 m radius, with the cap raised to its
/// type's maximum, made the fill ask for a "capacity overflow".
#[test]
fn far_vertex_and_tiny_radius_with_the_cap_raised() {
    let mut scene = tiny_scene(3);
    scene.settings.max_particles = u64::MAX;
    let far = scene.objects[1].mesh.vertices.len() - 1;
    scene.objects[1].mesh.vertices[far].z = -9.2e18;
    let stderr = bake_is_refused(&scene, "far.gloop", &[]);
    assert_mentions(&stderr, &["max_particles"]);

    let mut scene = tiny_scene(3);
    scene.settings.max_particles = 1_000_000_000;
    scene.objects[1].mesh.vertices[far].z = -9.2e18;
    let stderr = bake_is_refused(&scene, "far_capped.gloop", &[]);
    assert_mentions(&stderr, &["'Blob'"]);

    let mut scene = tiny_scene(3);
    scene.settings.max_particles = u64::MAX;
    scene.settings.particle_radius = 1e-20;
    let stderr = bake_is_refused(&scene, "fine.gloop", &[]);
    assert_mentions(&stderr, &["particle_radius"]);
}

fn emitter(frame_start: i32, frame_end: i32) -> SceneObject {
    SceneObject {
        name: "Tap".into(),
        role: Role::Emitter {
            material: "honey".into(),
            emission: Emission {
                flow: Some(1e-6),
                speed: Some(0.1),
                rate: None,
                frame_start,
                frame_end,
            },
        },
        mesh: cuboid(Vec3::new(-0.02, -0.02, 0.2), Vec3::new(0.02, 0.02, 0.22)),
        motion: Motion::default(),
    }
}

/// Defect 3: an emitter starting at frame -2147483648 overflowed its frame window and
/// panicked on a worker thread, and the process then hung.
#[test]
fn emitter_from_the_first_i32_frame() {
    let mut scene = tiny_scene(3);
    scene.objects.push(emitter(i32::MIN, 3));
    let stderr = bake_is_refused(&scene, "tap.gloop", &[]);
    assert_mentions(&stderr, &["'Tap'", "frame_start"]);
}

/// Defect 3: a panic in a bake's solver thread ends the bake with an error; it used to leave
/// the cancel-file watcher waiting for a "done" that never came, and the process hung.
#[test]
fn a_panic_inside_a_bake_ends_it_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let (sender, receiver) = mpsc::channel();
    std::thread::spawn(move || {
        let options = BakeOptions {
            surface: None,
            cancel: Arc::new(AtomicBool::new(false)),
            ..BakeOptions::default()
        };
        let result = bake(&tiny_scene(3), &cache, &options, &mut |_| {
            panic!("a progress report that panics")
        });
        let _ = sender.send(result.map(|_| ()).map_err(|e| e.to_string()));
    });
    let result = receiver
        .recv_timeout(Duration::from_secs(60))
        .expect("the bake hung after a panic");
    let message = result.expect_err("a bake whose solver thread panicked failed");
    assert!(message.contains("panicked"), "{message}");
}

/// Defect 4: a shear term of 2³¹ in a liquid's matrix asked the fill for 1.5 TB (SIGABRT).
#[test]
fn liquid_sheared_by_2_to_the_31() {
    let mut matrix = Mat4::IDENTITY;
    matrix.y_axis.x = 2_147_483_648.0;
    let stderr = bake_is_refused(&with_blob_matrix(matrix), "shear.gloop", &[]);
    assert_mentions(&stderr, &["'Blob'"]);
}

/// Defect 5: a periodic domain far smaller than the liquid wrapped it onto itself (over 40 s
/// for the honey drop's first frame).
#[test]
fn periodic_domain_smaller_than_the_liquid() {
    let mut scene = gloop::demos::demo_scene("honey-drop").unwrap();
    scene.settings.domain.min = Vec3::splat(-0.001);
    scene.settings.domain.max = Vec3::splat(0.001);
    scene.settings.domain.periodic = [true; 3];
    let stderr = bake_is_refused(&scene, "periodic.gloop", &["--frames", "1..2"]);
    assert_mentions(&stderr, &["settings.domain", "periodic"]);

    // A period long enough for the kernels, but shorter than the liquid.
    let mut scene = tiny_scene(3);
    scene.settings.particle_radius = 0.005;
    scene.settings.domain.min = Vec3::new(-0.04, -1.0, -1.0);
    scene.settings.domain.max = Vec3::new(0.04, 1.0, 1.0);
    scene.settings.domain.periodic = [true, false, false];
    let stderr = bake_is_refused(&scene, "short_period.gloop", &[]);
    assert_mentions(&stderr, &["'Blob'", "axis 0", "wrap"]);
}

/// Defect 5: a radius of 1e-45 m with the cap at its maximum ran over 20 s.
#[test]
fn denormal_radius_with_the_cap_at_its_maximum() {
    let mut scene = tiny_scene(3);
    scene.settings.particle_radius = 1e-45;
    scene.settings.max_particles = u64::MAX;
    let stderr = bake_is_refused(&scene, "denormal.gloop", &[]);
    assert_mentions(&stderr, &["particle_radius"]);
}

/// Defect 5: 6,000 liquid materials in a 600 KB file took 2.5 GB before the scene was
/// refused (the adhesion matrix of every pair was built first).
#[test]
fn six_thousand_liquid_materials() {
    let mut scene = tiny_scene(3);
    let honey = scene.materials.liquids[0].clone();
    for k in 0..6000 {
        let mut liquid = honey.clone();
        liquid.name = format!("honey{k}");
        scene.materials.liquids.push(liquid);
    }
    let stderr = bake_is_refused(&scene, "materials.gloop", &[]);
    assert_mentions(&stderr, &["6002 materials"]);
}

/// A rigid motion that holds `object` as it is at frame 1 and scales it by `factor` about
/// its centre at frame 2.
fn grown_at_frame_2(scene: &mut Scene, object: usize, factor: f32) {
    let centre = {
        let v = &scene.objects[object].mesh.vertices;
        v.iter().copied().sum::<Vec3>() / v.len() as f32
    };
    let grow = Mat4::from_translation(centre)
        * Mat4::from_scale(Vec3::splat(factor))
        * Mat4::from_translation(-centre);
    scene.objects[object].motion = Motion::Rigid {
        first_frame: 1,
        matrices: vec![Mat4::IDENTITY, grow],
    };
}

/// Defect 6: the cap was checked at the motion's first pose, and only after the particles were
/// made: a liquid scaled ×20 at frame 2, baked from frame 2, reached 3.6 GB before it was
/// refused.
#[test]
fn liquid_grown_20_times_at_the_first_baked_frame() {
    let mut scene = tiny_scene(3);
    scene.settings.max_particles = 1_000_000;
    grown_at_frame_2(&mut scene, 1, 20.0);
    let stderr = bake_is_refused(&scene, "grown.gloop", &["--frames", "2..3"]);
    assert_mentions(&stderr, &["'Blob'", "frame 2", "max_particles"]);

    // With the cap at its largest, ×200 asks for 1.7e9 particles: refused before one is made,
    // within the address-space limit.
    let mut scene = tiny_scene(3);
    scene.settings.max_particles = 1_000_000_000;
    grown_at_frame_2(&mut scene, 1, 200.0);
    let stderr = bake_is_refused(&scene, "grown_more.gloop", &["--frames", "2..3"]);
    assert_mentions(&stderr, &["'Blob'", "frame 2", "max_particles"]);
}

/// Defect 6: an obstacle scaled ×60 at the first baked frame was sampled without a refusal,
/// past 2.7 GB.
#[test]
fn obstacle_grown_60_times_at_the_first_baked_frame() {
    let mut scene = tiny_scene(3);
    scene.settings.max_particles = 1_000_000;
    grown_at_frame_2(&mut scene, 0, 60.0);
    let stderr = bake_is_refused(&scene, "slab.gloop", &["--frames", "2..3"]);
    assert_mentions(&stderr, &["'Slab'", "frame 2", "max_particles"]);
}

/// The bounds leave the scenes people make alone: the small scene still bakes.
#[test]
fn an_ordinary_scene_still_bakes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tiny.gloop");
    tiny_scene(2).save(&path).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gloop"))
        .args(["bake", path.to_str().unwrap(), "--out"])
        .arg(Path::new(dir.path()).join("cache"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
