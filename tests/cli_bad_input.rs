//! Bad input through the `gloop` binary: a clear error naming the object, field or file, a
//! non-zero exit, no panic, and an existing cache folder left exactly as it was.

use std::path::Path;
use std::process::Command;

use glam::{Mat4, Vec3};
use gloop::cache::{write_particles, CacheDir, Manifest};
use gloop::scene::Motion;
use gloop::sim::LiquidParticles;
use gloop::Scene;

mod bake_support;
use bake_support::{snapshot, tiny_scene};

/// A cache folder as an earlier bake would have left it, plus a file of the user's own.
fn existing_cache(dir: &Path) {
    let cache = CacheDir::new(dir);
    let scene = tiny_scene(3);
    let mut particles = LiquidParticles::default();
    for i in 0..20 {
        particles.push(Vec3::splat(i as f32 * 0.01), Vec3::X, 0, [0.8, 0.4, 0.05]);
    }
    for frame in 1..=3 {
        write_particles(&cache.particles(frame), frame, &particles).unwrap();
    }
    let mut manifest = Manifest::for_scene(&scene);
    manifest.last_complete_frame = Some(3);
    manifest.write(&cache.manifest()).unwrap();
    scene.save(&cache.scene()).unwrap();
    std::fs::write(dir.join("notes.txt"), "the artist's notes").unwrap();
}

struct Outcome {
    code: Option<i32>,
    stderr: String,
}

fn gloop(args: &[&str]) -> Outcome {
    let out = Command::new(env!("CARGO_BIN_EXE_gloop"))
        .args(args)
        .output()
        .unwrap();
    Outcome {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Bakes `scene_file` over an existing cache (fresh and `--resume`) and checks the error
/// mentions every one of `expected`, and that the cache is byte-for-byte unchanged.
fn assert_rejected(scene_file: &Path, expected: &[&str]) {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    existing_cache(&cache);
    let before = snapshot(&cache);
    for extra in [None, Some("--resume")] {
        let mut args = vec![
            "bake",
            scene_file.to_str().unwrap(),
            "--out",
            cache.to_str().unwrap(),
        ];
        args.extend(extra);
        let out = gloop(&args);
        assert_eq!(out.code, Some(1), "{args:?}: {}", out.stderr);
        assert!(out.stderr.starts_with("error: "), "{}", out.stderr);
        assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
        for word in expected {
            assert!(
                out.stderr.contains(word),
                "{args:?}: expected '{word}' in: {}",
                out.stderr
            );
        }
        assert_eq!(
            snapshot(&cache),
            before,
            "{args:?} changed the existing cache"
        );
    }
}

fn save(scene: &Scene, dir: &Path, name: &str) -> std::path::PathBuf {
    let path = dir.join(name);
    scene.save(&path).unwrap();
    path
}

#[test]
fn truncated_scene_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.gloop");
    let bytes = tiny_scene(3).to_binary();
    std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert_rejected(&path, &["cut.gloop", "truncated"]);
}

#[test]
fn truncated_json_scene_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cut.json");
    let text = tiny_scene(3).to_json();
    std::fs::write(&path, &text[..text.len() / 2]).unwrap();
    assert_rejected(&path, &["cut.json", "EOF"]);
}

#[test]
fn scene_from_a_future_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("future.json");
    let mut scene = tiny_scene(3);
    scene.version = 99;
    std::fs::write(&path, scene.to_json()).unwrap();
    assert_rejected(&path, &["future.json", "version 99"]);
    // The binary form says the same: a file whose header names version 99 (`to_binary`
    // writes this build's version, so the header is set by hand).
    let path = dir.path().join("future.gloop");
    let mut bytes = scene.to_binary();
    bytes[8..12].copy_from_slice(&99u32.to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    assert_rejected(&path, &["future.gloop", "version 99"]);
}

#[test]
fn unknown_material() {
    let dir = tempfile::tempdir().unwrap();
    let mut scene = tiny_scene(3);
    scene.objects[1].role = gloop::scene::Role::Liquid {
        material: "treacle".into(),
        initial_velocity: Vec3::ZERO,
    };
    let path = save(&scene, dir.path(), "treacle.json");
    assert_rejected(&path, &["'Blob'", "treacle"]);
}

#[test]
fn open_liquid_mesh() {
    let dir = tempfile::tempdir().unwrap();
    let mut scene = tiny_scene(3);
    scene.objects[1].mesh.triangles.pop();
    let path = save(&scene, dir.path(), "open.json");
    assert_rejected(&path, &["'Blob'", "closed"]);
}

#[test]
fn nan_in_a_transform() {
    let dir = tempfile::tempdir().unwrap();
    let mut scene = tiny_scene(3);
    let mut matrix = Mat4::IDENTITY;
    matrix.w_axis.z = f32::NAN;
    scene.objects[0].motion = Motion::Static { matrix };
    // Binary: JSON cannot even carry a NaN.
    let path = save(&scene, dir.path(), "nan.gloop");
    assert_rejected(&path, &["'Slab'", "matrix", "NaN"]);
    // A rigid animation with one bad frame names that frame.
    scene.objects[0].motion = Motion::Rigid {
        first_frame: 1,
        matrices: vec![Mat4::IDENTITY, matrix],
    };
    let path = save(&scene, dir.path(), "nan_rigid.gloop");
    assert_rejected(&path, &["'Slab'", "frame 2"]);
}

#[test]
fn radius_exceeding_the_particle_cap() {
    let dir = tempfile::tempdir().unwrap();
    let mut scene = tiny_scene(3);
    scene.settings.particle_radius = 0.0005; // 8000× the particles of r = 1 cm
    let path = save(&scene, dir.path(), "fine.json");
    assert_rejected(&path, &["max_particles", "particle_radius"]);
}

#[test]
fn missing_scene_file_and_unknown_names() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nowhere.gloop");
    assert_rejected(&missing, &["nowhere.gloop"]);

    let out = gloop(&[
        "demo",
        "treacle-flood",
        "--out",
        dir.path().to_str().unwrap(),
    ]);
    assert_eq!(out.code, Some(1));
    assert!(
        out.stderr.contains("treacle-flood") && out.stderr.contains("honey-drop"),
        "{}",
        out.stderr
    );

    let out = gloop(&["validate", "no-such-check"]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("no-such-check"), "{}", out.stderr);

    let out = gloop(&["info", dir.path().to_str().unwrap()]);
    assert_eq!(out.code, Some(1));
    assert!(out.stderr.contains("manifest.json"), "{}", out.stderr);

    let out = gloop(&[
        "bake",
        missing.to_str().unwrap(),
        "--out",
        "x",
        "--frames",
        "9..2",
    ]);
    assert_ne!(out.code, Some(0));
    assert!(out.stderr.contains("9..2"), "{}", out.stderr);
}

#[test]
fn resume_of_a_different_scene_is_refused() {
    let work = tempfile::tempdir().unwrap();
    let cache = work.path().join("cache");
    std::fs::create_dir(&cache).unwrap();
    existing_cache(&cache);
    let before = snapshot(&cache);
    let mut other = tiny_scene(3);
    other.settings.substeps = 5;
    let path = save(&other, work.path(), "other.json");
    let out = gloop(&[
        "bake",
        path.to_str().unwrap(),
        "--out",
        cache.to_str().unwrap(),
        "--resume",
    ]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("scene changed since this bake (substeps)")
            && out.stderr.contains("manifest.json"),
        "{}",
        out.stderr
    );
    assert_eq!(snapshot(&cache), before);
}

/// Runs `gloop args`, killing it if it is still running after `seconds` (then panicking with
/// what its status.json in `out` says): for inputs that used to start endless bakes.
fn gloop_within(args: &[&str], out: &Path, seconds: u64) -> Outcome {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gloop"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed().as_secs() >= seconds {
            child.kill().unwrap();
            child.wait().unwrap();
            let status = std::fs::read_to_string(out.join("status.json")).unwrap_or_default();
            panic!("{args:?} still ran after {seconds} s; status.json: {status}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    Outcome {
        code: out.status.code(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `--frames -2147483648..2147483647` overflowed the frame count (frames_total 0) and started
/// a bake of four billion frames. Frames beyond Blender's limit are refused, from the command
/// line and from a scene file alike, before any folder is made.
#[test]
fn frame_ranges_beyond_blenders_limit_are_refused() {
    let work = tempfile::tempdir().unwrap();
    let scene = save(&tiny_scene(3), work.path(), "tiny.json");
    let out = work.path().join("cache");
    let range = "-2147483648..2147483647";
    let args = [
        "bake",
        scene.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let refused = gloop_within(&[&args[..], &["--frames", range]].concat(), &out, 20);
    assert_eq!(refused.code, Some(1), "{}", refused.stderr);
    assert!(
        refused.stderr.contains(range) && refused.stderr.contains("1048574"),
        "{}",
        refused.stderr
    );
    assert!(!out.exists());

    for (field, set) in [("frame_start", (i32::MIN, 3)), ("frame_end", (1, i32::MAX))] {
        let mut far = tiny_scene(3);
        (far.settings.frame_start, far.settings.frame_end) = set;
        let path = save(&far, work.path(), &format!("{field}.json"));
        let args = [
            "bake",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        let refused = gloop_within(&args, &out, 20);
        assert_eq!(refused.code, Some(1), "{}", refused.stderr);
        assert!(
            refused.stderr.contains(&format!("settings.{field}"))
                && refused.stderr.contains("1048574"),
            "{}",
            refused.stderr
        );
    }
}

/// A folder that cannot be written is named as such; the error used to name a `cancel` file
/// (the first file the bake tried to remove) that the user never made.
#[test]
fn an_unwritable_output_folder_is_named_not_a_cancel_file() {
    let work = tempfile::tempdir().unwrap();
    let scene = save(&tiny_scene(2), work.path(), "tiny.json");
    let check = |out: &Path| {
        let refused = gloop(&[
            "bake",
            scene.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(refused.code, Some(1), "{}", refused.stderr);
        assert!(
            refused.stderr.contains(out.to_str().unwrap())
                && refused
                    .stderr
                    .contains("cannot write into the cache folder")
                && !refused.stderr.contains("cancel"),
            "{}",
            refused.stderr
        );
    };
    // A plain file where a parent folder should be: unwritable for anyone, root included.
    let file = work.path().join("plain.txt");
    std::fs::write(&file, "not a folder").unwrap();
    check(&file.join("cache"));
    // A read-only folder, where the permission bits stop this user (not root).
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let read_only = work.path().join("read_only");
        std::fs::create_dir(&read_only).unwrap();
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(read_only.join("probe"), b"").is_err() {
            check(&read_only);
        }
        std::fs::set_permissions(&read_only, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}
