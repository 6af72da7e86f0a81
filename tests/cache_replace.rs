//! Replacing a finished bake, through the `gloop` binary: it takes consent (`--overwrite`, or
//! `--resume` for the same scene), and a replacement that fails leaves the earlier bake
//! byte-identical and readable.

use std::path::Path;
use std::process::Command;

use gloop::cache::{read_particles, scene_hash, CacheDir, Manifest};
use gloop::Scene;

mod bake_support;
use bake_support::{arg, gloop, particle_files, snapshot, tiny_scene};

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn save(scene: &Scene, work: &Path, name: &str) -> std::path::PathBuf {
    let path = work.join(name);
    scene.save(&path).unwrap();
    path
}

/// Another scene: the same blob thrown sideways, over 2 frames.
fn other_scene() -> Scene {
    let mut scene = tiny_scene(2);
    if let gloop::scene::Role::Liquid {
        initial_velocity, ..
    } = &mut scene.objects[1].role
    {
        *initial_velocity = glam::Vec3::new(0.3, 0.0, -0.5);
    }
    scene
}

/// A finished 3-frame bake of the tiny scene in `work/cache`.
fn finished_cache(work: &Path) -> std::path::PathBuf {
    let scene = save(&tiny_scene(3), work, "tiny.json");
    let out = work.join("cache");
    let baked = gloop(&["bake", arg(&scene), "--out", arg(&out)]);
    assert_eq!(baked.status.code(), Some(0), "{}", text(&baked.stderr));
    out
}

#[test]
fn a_finished_bake_is_replaced_only_with_overwrite() {
    let work = tempfile::tempdir().unwrap();
    let out = finished_cache(work.path());
    let before = snapshot(&out);
    let other = save(&other_scene(), work.path(), "other.json");

    let refused = gloop(&["bake", arg(&other), "--out", arg(&out)]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(arg(&out))
            && stderr.contains("finished bake of another scene")
            && stderr.contains("--overwrite"),
        "{stderr}"
    );
    assert!(snapshot(&out) == before, "a refused bake changed the cache");

    // The same scene again: --resume continues it, --overwrite re-bakes it; neither given,
    // nothing happens.
    let same = work.path().join("tiny.json");
    let refused = gloop(&["bake", arg(&same), "--out", arg(&out)]);
    let stderr = text(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("finished bake of this scene")
            && stderr.contains("--resume")
            && stderr.contains("--overwrite"),
        "{stderr}"
    );
    assert!(snapshot(&out) == before);
    // `demo` asks the same.
    let refused = gloop(&["demo", "honey-drop", "--out", arg(&out), "--frames", "1..2"]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(text(&refused.stderr).contains("--overwrite"));
    assert!(snapshot(&out) == before);

    // With consent: the other scene's bake, exactly as in a fresh folder, and nothing of the
    // earlier one (its frame 3 included) or of the set-aside copy left.
    let replaced = gloop(&["bake", arg(&other), "--out", arg(&out), "--overwrite"]);
    assert_eq!(
        replaced.status.code(),
        Some(0),
        "{}",
        text(&replaced.stderr)
    );
    let clean = work.path().join("clean");
    let baked = gloop(&["bake", arg(&other), "--out", arg(&clean)]);
    assert_eq!(baked.status.code(), Some(0));
    assert!(particle_files(&out) == particle_files(&clean));
    let manifest = Manifest::read(&CacheDir::new(&out).manifest()).unwrap();
    assert_eq!(manifest.scene_hash, scene_hash(&other_scene()));
    let mut names: Vec<_> = snapshot(&out).into_keys().collect();
    names.sort();
    assert_eq!(names, {
        let mut clean: Vec<_> = snapshot(&clean).into_keys().collect();
        clean.sort();
        clean
    });
}

/// The case: a new bake into a folder with a finished 3-frame cache fails on a full
/// disk. Here a file-size limit (`ulimit -f`, with SIGXFSZ ignored so writes fail with EFBIG
/// as on a full disk) lets the small files through and stops the first surface mesh.
#[cfg(unix)]
#[test]
fn a_replacement_that_fails_leaves_the_earlier_bake_intact() {
    let work = tempfile::tempdir().unwrap();
    let out = finished_cache(work.path());
    let before = snapshot(&out);
    let other = save(&other_scene(), work.path(), "other.json");
    let biggest_particles = particle_files(&out).values().map(Vec::len).max().unwrap();
    let limit_blocks = (biggest_particles + 2048) / 512; // ulimit -f counts 512-byte blocks
    let script = format!(
        "trap '' XFSZ; ulimit -f {limit_blocks}; exec \"$0\" bake \"$1\" --out \"$2\" --overwrite"
    );
    let failed = Command::new("sh")
        .args([
            "-c",
            &script,
            env!("CARGO_BIN_EXE_gloop"),
            arg(&other),
            arg(&out),
        ])
        .output()
        .unwrap();
    let stderr = text(&failed.stderr);
    assert_eq!(failed.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("surface_00001.ply") && stderr.contains("back in"),
        "{stderr}"
    );
    assert!(
        snapshot(&out) == before,
        "the earlier bake changed: {:?}",
        snapshot(&out).keys().collect::<Vec<_>>()
    );
    let cache = CacheDir::new(&out);
    for frame in 1..=3 {
        assert!(read_particles(&cache.particles(frame)).unwrap().len() > 100);
    }
    let info = gloop(&["info", arg(&out)]);
    assert_eq!(info.status.code(), Some(0));
    assert!(text(&info.stdout).contains("last complete frame 3"));
}
