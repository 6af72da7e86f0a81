//! A re-mesh records every surface it rewrites (size and hash in the manifest, written after
//! each frame), whichever way it runs: `gloop mesh`, or the library's `remesh` as
//! `gloop_core.mesh` runs it for the add-on (status.json, the cancel file, `started_at`).
//! Afterwards `gloop info` finds no damaged frame, and a `gloop bake --resume` finds every
//! record matching: it neither meshes nor bakes anything again.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, SystemTime};

use gloop::cache::{CacheDir, Manifest};
use gloop::remesh::{remesh, RemeshOptions};
use gloop::surface::SurfaceSettings;

mod bake_support;
use bake_support::{arg, stdout_of, tiny_scene};

const FRAMES: i32 = 5;
const CLEAN: &str = "every recorded frame file matches its size and hash";

/// A finished bake of frames 1..=FRAMES of the tiny scene in `work/cache`: (scene, cache).
fn finished_cache(work: &Path) -> (PathBuf, PathBuf) {
    let scene = work.join("tiny.json");
    tiny_scene(FRAMES).save(&scene).unwrap();
    let out = work.join("cache");
    stdout_of(&["bake", arg(&scene), "--out", arg(&out)]);
    (scene, out)
}

/// Every frame file with its bytes and modification time (a rewrite, even of the same bytes,
/// shows in the time: files are replaced by rename).
fn frame_files(dir: &Path) -> BTreeMap<String, (Vec<u8>, SystemTime)> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".ply"))
        .map(|e| {
            let modified = e.metadata().unwrap().modified().unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, (std::fs::read(e.path()).unwrap(), modified))
        })
        .collect()
}

fn records(dir: &Path) -> String {
    let manifest = Manifest::read(&CacheDir::new(dir).manifest()).unwrap();
    serde_json::to_string(&manifest.frames).unwrap()
}

/// `gloop info` says every file checks out, and a resume leaves every frame file and record
/// as it was.
fn assert_clean_and_resume_is_a_no_op(scene: &Path, out: &Path) {
    let info = stdout_of(&["info", arg(out)]);
    assert!(info.contains(CLEAN), "{info}");
    assert!(!info.contains("damaged"), "{info}");

    let (files, recorded) = (frame_files(out), records(out));
    assert_eq!(files.len(), 2 * FRAMES as usize, "{:?}", files.keys());
    // Past the file times' granularity, so a rewrite could not keep its time.
    std::thread::sleep(Duration::from_millis(20));
    let resumed = stdout_of(&["bake", arg(scene), "--out", arg(out), "--resume"]);
    assert!(!resumed.contains("damaged"), "{resumed}");
    assert!(
        resumed.contains(&format!("baked frames {FRAMES}..{FRAMES}"))
            && resumed.contains("(0 simulated"),
        "{resumed}"
    );
    assert!(frame_files(out) == files, "a resume rewrote a frame file");
    assert_eq!(records(out), recorded);
    let info = stdout_of(&["info", arg(out)]);
    assert!(info.contains(CLEAN), "{info}");
}

#[test]
fn gloop_mesh_leaves_every_frame_recorded_and_a_resume_with_nothing_to_do() {
    let work = tempfile::tempdir().unwrap();
    let (scene, out) = finished_cache(work.path());
    let cache = CacheDir::new(&out);
    let before = std::fs::read(cache.surface(3)).unwrap();

    stdout_of(&["mesh", arg(&out), "--resolution", "0.8"]);
    assert_ne!(std::fs::read(cache.surface(3)).unwrap(), before);
    assert_clean_and_resume_is_a_no_op(&scene, &out);

    // Part of the range again, with other settings: the others keep their records.
    let two = std::fs::read(cache.surface(2)).unwrap();
    stdout_of(&["mesh", arg(&out), "--frames", "2..3", "--resolution", "1.0"]);
    assert_ne!(std::fs::read(cache.surface(2)).unwrap(), two);
    assert_clean_and_resume_is_a_no_op(&scene, &out);
}

/// `gloop_core.mesh`'s options (`src/python/mesh_binding.rs`): status.json, the cancel file,
/// and `started_at`.
fn binding_options(resolution: f32) -> RemeshOptions {
    RemeshOptions {
        settings: SurfaceSettings {
            resolution,
            smoothness: 0.0,
            ..SurfaceSettings::default()
        },
        watch_cancel_file: true,
        write_status: true,
        started_at: Some(SystemTime::now()),
        ..RemeshOptions::default()
    }
}

#[test]
fn the_add_ons_remesh_records_every_surface_even_when_cancelled_part_way() {
    let work = tempfile::tempdir().unwrap();
    let (scene, out) = finished_cache(work.path());
    let cache = CacheDir::new(&out);

    // A cancel file left by an earlier run, older than `started_at`: cleared, not obeyed.
    std::fs::write(cache.cancel(), b"").unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let summary = remesh(&out, &binding_options(0.8), &mut |_| {}).unwrap();
    assert_eq!(summary.frames_meshed, FRAMES as u32);
    assert!(!cache.cancel().exists());
    assert_clean_and_resume_is_a_no_op(&scene, &out);

    // Stopped after two frames: those have the new surface, the rest the old one, and every
    // one matches its record.
    let old = std::fs::read(cache.surface(4)).unwrap();
    let options = binding_options(1.2);
    let cancel = options.cancel.clone();
    let summary = remesh(&out, &options, &mut |p| {
        if p.frames_done == 2 {
            cancel.store(true, Ordering::Release);
        }
    })
    .unwrap();
    assert_eq!(summary.frames_meshed, 2);
    assert_eq!(std::fs::read(cache.surface(4)).unwrap(), old);
    assert_clean_and_resume_is_a_no_op(&scene, &out);
}
