//! `gloop info` checks every frame file against the manifest's records and lists the damaged
//! or missing frames; `gloop mesh` records the surfaces it rewrites, so re-meshed frames
//! still check out; `gloop bake --resume` says what it found damaged.

use std::path::Path;

use gloop::cache::CacheDir;

mod bake_support;
use bake_support::{arg, stdout_of, tiny_scene};

/// A finished bake of frames 1..=5 of the tiny scene in `work/cache`; returns (scene, cache).
fn finished_cache(work: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let scene = work.join("tiny.json");
    tiny_scene(5).save(&scene).unwrap();
    let out = work.join("cache");
    stdout_of(&["bake", arg(&scene), "--out", arg(&out)]);
    (scene, out)
}

/// The line of the frame table for `frame`.
fn frame_line(info: &str, frame: i32) -> String {
    info.lines()
        .find(|l| l.trim_start().starts_with(&format!("{frame}  ")))
        .unwrap_or_else(|| panic!("no line for frame {frame} in\n{info}"))
        .to_string()
}

#[test]
fn info_lists_damaged_and_missing_frames() {
    let work = tempfile::tempdir().unwrap();
    let (_, out) = finished_cache(work.path());
    let clean = stdout_of(&["info", arg(&out)]);
    assert!(
        clean.contains("every recorded frame file matches its size and hash"),
        "{clean}"
    );
    let count = frame_line(&clean, 4);

    let cache = CacheDir::new(&out);
    let bytes = std::fs::read(cache.particles(4)).unwrap();
    std::fs::write(cache.particles(4), &bytes[..bytes.len() / 2]).unwrap();
    std::fs::write(cache.particles(1), b"").unwrap();
    std::fs::remove_file(cache.surface(2)).unwrap();
    let info = stdout_of(&["info", arg(&out)]);
    // A truncated file no longer shows at the count its header announces.
    let line = frame_line(&info, 4);
    assert_ne!(line, count);
    assert!(
        line.contains(&format!(
            "damaged: particles truncated: {} of {} bytes",
            bytes.len() / 2,
            bytes.len()
        )),
        "{info}"
    );
    assert!(frame_line(&info, 1).contains("particles empty"), "{info}");
    assert!(frame_line(&info, 2).contains("surface missing"), "{info}");
    assert!(
        info.contains(
            "damaged or missing frames: 1..2, 4 (3 frames); a resume bakes again from frame 1"
        ),
        "{info}"
    );
}

#[test]
fn re_meshed_surfaces_are_recorded_and_a_resume_reports_what_it_repaired() {
    let work = tempfile::tempdir().unwrap();
    let (scene, out) = finished_cache(work.path());
    let cache = CacheDir::new(&out);
    let before = std::fs::read(cache.surface(3)).unwrap();
    stdout_of(&["mesh", arg(&out), "--resolution", "0.8"]);
    assert_ne!(std::fs::read(cache.surface(3)).unwrap(), before);
    let info = stdout_of(&["info", arg(&out)]);
    assert!(
        info.contains("every recorded frame file matches its size and hash"),
        "{info}"
    );

    let mut bytes = std::fs::read(cache.particles(3)).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 1;
    std::fs::write(cache.particles(3), bytes).unwrap();
    let resumed = stdout_of(&["bake", arg(&scene), "--out", arg(&out), "--resume"]);
    assert!(
        resumed.contains("particles_00003.ply: changed since it was written")
            && resumed.contains("baking it and frames 4..5 again"),
        "{resumed}"
    );
    assert!(resumed.contains("baked frames 2..5"), "{resumed}");
    let info = stdout_of(&["info", arg(&out)]);
    assert!(
        info.contains("every recorded frame file matches its size and hash"),
        "{info}"
    );
}
