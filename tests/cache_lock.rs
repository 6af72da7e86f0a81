//! The cache lock, through real `gloop` processes: a second bake, resume or mesh into a folder
//! in use is refused naming the holder; a lock left by a bake killed with SIGKILL is taken
//! over; a bake that ends (finished, cancelled, interrupted) leaves no lock behind.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gloop::cache::{lock_holder, BakeState, CacheDir, Manifest, Status};

mod bake_support;
use bake_support::{arg, gloop, particle_files, tiny_scene};

fn spawn_bake(scene: &Path, out: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gloop"))
        .args(["bake", arg(scene), "--out", arg(out)])
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Waits until the bake writing `cache` has reported `frames` frames.
fn wait_for_frames(cache: &CacheDir, frames: u32) {
    let started = Instant::now();
    while !Status::read(&cache.status()).is_ok_and(|s| s.frames_done >= frames) {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the bake never reached frame {frames}"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A tiny scene of `frames` frames (enough to still run while the test looks) and a cache
/// path for it.
fn long_bake_setup(work: &Path, frames: i32) -> (PathBuf, PathBuf) {
    let scene = work.join("long.json");
    tiny_scene(frames).save(&scene).unwrap();
    (scene, work.join("cache"))
}

#[test]
fn a_second_bake_resume_or_mesh_into_a_folder_in_use_is_refused_naming_the_holder() {
    let work = tempfile::tempdir().unwrap();
    // Cancelled long before its end.
    let (scene, out) = long_bake_setup(work.path(), 400);
    let cache = CacheDir::new(&out);
    let mut other = tiny_scene(3);
    other.settings.substeps = 3;
    let other_path = work.path().join("other.json");
    other.save(&other_path).unwrap();

    let first = spawn_bake(&scene, &out, &[]);
    wait_for_frames(&cache, 2);
    let holder = lock_holder(&out)
        .unwrap()
        .expect("a running bake holds the lock");
    assert_eq!(holder.pid, first.id());

    let attempts: [&[&str]; 4] = [
        &["bake", arg(&other_path), "--out", arg(&out)],
        &["bake", arg(&other_path), "--out", arg(&out), "--overwrite"],
        &["bake", arg(&scene), "--out", arg(&out), "--resume"],
        &["mesh", arg(&out)],
    ];
    for args in attempts {
        let refused = gloop(args);
        let stderr = text(&refused.stderr);
        assert_eq!(refused.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!("pid {}", first.id()))
                && stderr.contains(&format!("host {}", holder.host))
                && stderr.contains("in use"),
            "{args:?}: {stderr}"
        );
    }
    // `gloop info` reads without the lock and says who holds it.
    let info = text(&gloop(&["info", arg(&out)]).stdout);
    assert!(
        info.contains(&format!("in use by gloop bake (pid {}", first.id())),
        "{info}"
    );

    std::fs::write(cache.cancel(), b"").unwrap();
    let done = first.wait_with_output().unwrap();
    assert_eq!(done.status.code(), Some(2), "{}", text(&done.stderr));
    // The first bake's cache alone: nothing of the refused ones mixed in.
    let manifest = Manifest::read(&cache.manifest()).unwrap();
    assert_eq!(
        manifest.scene_hash,
        gloop::cache::scene_hash(&tiny_scene(400))
    );
    assert!(
        !out.join("gloop.lock").exists(),
        "a cancelled bake releases the lock"
    );
}

#[cfg(unix)]
#[test]
fn a_lock_left_by_a_killed_bake_is_taken_over() {
    let work = tempfile::tempdir().unwrap();
    let (scene, out) = long_bake_setup(work.path(), 30);
    let cache = CacheDir::new(&out);
    let mut first = spawn_bake(&scene, &out, &[]);
    wait_for_frames(&cache, 2);
    first.kill().unwrap(); // SIGKILL: no handler, no destructor runs
    first.wait().unwrap();
    let left = lock_holder(&out)
        .unwrap()
        .expect("kill -9 leaves the lock file");
    assert_eq!(left.pid, first.id());
    assert!(left.os_lock, "the holder took the OS lock");
    assert!(left.is_stale(&out));

    let resumed = spawn_bake(&scene, &out, &["--resume"])
        .wait_with_output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", text(&resumed.stderr));
    assert_eq!(particle_files(&out).len(), 30);
    assert_eq!(
        Status::read(&cache.status()).unwrap().state,
        BakeState::Finished
    );
    assert!(!out.join("gloop.lock").exists());
}

#[test]
fn bakes_that_end_leave_no_lock() {
    let work = tempfile::tempdir().unwrap();
    let scene = work.path().join("tiny.json");
    tiny_scene(2).save(&scene).unwrap();
    let out = work.path().join("cache");
    let ok = gloop(&["bake", arg(&scene), "--out", arg(&out)]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(!out.join("gloop.lock").exists());
    // A bake refused once it holds the lock (a frame range beyond Blender's) releases it,
    // and leaves no folder it made.
    let absurd = ["--frames", "-2000000..2"];
    let fresh = work.path().join("fresh");
    let failed = gloop(&[&["bake", arg(&scene), "--out", arg(&fresh)][..], &absurd].concat());
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    assert!(!fresh.exists(), "a refused bake leaves no empty folder");
    let failed = gloop(&[&["bake", arg(&scene), "--out", arg(&out)][..], &absurd].concat());
    assert_eq!(failed.status.code(), Some(1), "{}", text(&failed.stderr));
    assert!(!out.join("gloop.lock").exists());
    let meshed = gloop(&["mesh", arg(&out)]);
    assert_eq!(meshed.status.code(), Some(0), "{}", text(&meshed.stderr));
    assert!(!out.join("gloop.lock").exists());
}
