//! A resume checks every frame it keeps against the manifest's records (size and hash) and
//! bakes again from the first damaged one, ending byte-identical to an uninterrupted bake;
//! a damaged surface alone is meshed again. Caches without records still resume.

use std::collections::BTreeMap;
use std::path::Path;

use gloop::bake::{bake, BakeOptions, BakeProgress, BakeSummary};
use gloop::cache::{CacheDir, FileRecord, Manifest};

mod bake_support;
use bake_support::{snapshot, tiny_scene};

const LAST: i32 = 6;

fn quiet(_: &BakeProgress) {}

/// The particle and surface files of a cache folder.
fn frame_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    snapshot(dir)
        .into_iter()
        .filter(|(name, _)| name.ends_with(".ply"))
        .collect()
}

/// A finished, uninterrupted bake (particles and surfaces) of frames 1..=LAST.
fn finished(dir: &Path) {
    bake(&tiny_scene(LAST), dir, &BakeOptions::default(), &mut quiet).unwrap();
}

fn copy_folder(from: &Path, to: &Path) {
    for (name, bytes) in snapshot(from) {
        std::fs::write(to.join(name), bytes).unwrap();
    }
}

fn resume(dir: &Path) -> BakeSummary {
    let options = BakeOptions {
        resume: true,
        ..BakeOptions::default()
    };
    bake(&tiny_scene(LAST), dir, &options, &mut quiet).unwrap()
}

/// Damages a copy of the reference bake with `damage`, resumes it, and checks that it was
/// baked again from `first` and ends byte-identical to the reference.
fn damage_and_resume(reference: &Path, damage: impl Fn(&CacheDir), first: i32) -> BakeSummary {
    let dir = tempfile::tempdir().unwrap();
    copy_folder(reference, dir.path());
    let cache = CacheDir::new(dir.path());
    damage(&cache);
    let summary = resume(dir.path());
    assert_eq!(
        (summary.first_frame, summary.last_frame),
        (first, LAST),
        "{:?}",
        summary.repairs
    );
    assert_eq!(summary.stats.len(), (LAST - first) as usize);
    let (expected, got) = (frame_files(reference), frame_files(dir.path()));
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &expected {
        assert!(
            got[name] == *bytes,
            "{name} differs from the uninterrupted bake"
        );
    }
    // The repaired cache checks out again, every file recorded.
    let manifest = Manifest::read(&cache.manifest()).unwrap();
    for frame in 1..=LAST {
        let files = &manifest.frames[&frame];
        assert_eq!(
            files.particles,
            Some(FileRecord::of_file(&cache.particles(frame)).unwrap())
        );
        assert_eq!(
            files.surface,
            Some(FileRecord::of_file(&cache.surface(frame)).unwrap())
        );
    }
    summary
}

fn truncate(path: &Path, keep: usize) {
    let bytes = std::fs::read(path).unwrap();
    std::fs::write(path, &bytes[..keep.min(bytes.len())]).unwrap();
}

/// Flips one bit in the middle of the file: its size stays, only the hash can tell.
fn flip_middle_byte(path: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0x04;
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn resume_bakes_again_from_the_first_damaged_frame_and_ends_identical() {
    let reference = tempfile::tempdir().unwrap();
    finished(reference.path());

    // Frame 4 cut short: frames 1..3 are kept, 4..6 baked again from frame 3.
    let summary = damage_and_resume(
        reference.path(),
        |cache| {
            let len = std::fs::metadata(cache.particles(4)).unwrap().len() as usize;
            truncate(&cache.particles(4), len - 100);
        },
        3,
    );
    assert!(
        summary.repairs[0].contains("particles_00004.ply: truncated"),
        "{:?}",
        summary.repairs
    );

    // Frame 1 emptied: nothing is good, the whole bake is done again.
    let summary = damage_and_resume(
        reference.path(),
        |cache| std::fs::write(cache.particles(1), b"").unwrap(),
        1,
    );
    assert!(
        summary.repairs[0].contains("particles_00001.ply: empty"),
        "{:?}",
        summary.repairs
    );

    // One bit of the middle frame flipped, its size unchanged: baked again from frame 2.
    let summary = damage_and_resume(
        reference.path(),
        |cache| flip_middle_byte(&cache.particles(3)),
        2,
    );
    assert!(
        summary.repairs[0].contains("particles_00003.ply: changed"),
        "{:?}",
        summary.repairs
    );
}

#[test]
fn a_damaged_surface_alone_is_meshed_again_without_simulating() {
    let reference = tempfile::tempdir().unwrap();
    finished(reference.path());
    let summary = damage_and_resume(
        reference.path(),
        |cache| {
            flip_middle_byte(&cache.surface(2));
            std::fs::remove_file(cache.surface(5)).unwrap();
        },
        LAST,
    );
    assert_eq!(summary.repairs.len(), 2, "{:?}", summary.repairs);
    assert!(summary.repairs[0].contains("surface_00002.ply: changed"));
    assert!(summary.repairs[1].contains("surface_00005.ply: missing"));
}

/// A cache written before records existed (no `frames` in its manifest) still resumes:
/// particle files are checked against the length their header announces, and the kept
/// frames are recorded as they are.
#[test]
fn a_cache_without_records_resumes_with_length_checks_and_gets_recorded() {
    let reference = tempfile::tempdir().unwrap();
    finished(reference.path());
    let dir = tempfile::tempdir().unwrap();
    copy_folder(reference.path(), dir.path());
    let cache = CacheDir::new(dir.path());
    let text = std::fs::read_to_string(cache.manifest()).unwrap();
    let mut value: serde_json::Value = serde_json::from_str(&text).unwrap();
    value.as_object_mut().unwrap().remove("frames").unwrap();
    std::fs::write(cache.manifest(), value.to_string()).unwrap();
    assert!(Manifest::read(&cache.manifest()).unwrap().frames.is_empty());

    let len = std::fs::metadata(cache.particles(5)).unwrap().len() as usize;
    truncate(&cache.particles(5), len - 1);
    let summary = resume(dir.path());
    assert_eq!(summary.first_frame, 4, "{:?}", summary.repairs);
    assert!(frame_files(dir.path()) == frame_files(reference.path()));
    let manifest = Manifest::read(&cache.manifest()).unwrap();
    assert_eq!(manifest.frames.len(), LAST as usize);
    assert_eq!(
        manifest.frames[&1].particles,
        Some(FileRecord::of_file(&cache.particles(1)).unwrap())
    );
}

/// Records are written as frames finish: a cancelled bake's manifest records exactly the
/// frames on disk, so its resume keeps them all.
#[test]
fn a_cancelled_bake_records_every_frame_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    let options = BakeOptions::default();
    let cancel = options.cancel.clone();
    bake(&tiny_scene(LAST), dir.path(), &options, &mut |p| {
        if p.frame == 3 {
            cancel.store(true, std::sync::atomic::Ordering::Release);
        }
    })
    .unwrap();
    let cache = CacheDir::new(dir.path());
    let manifest = Manifest::read(&cache.manifest()).unwrap();
    assert_eq!(
        manifest.frames.keys().copied().collect::<Vec<_>>(),
        [1, 2, 3]
    );
    for (frame, files) in &manifest.frames {
        let on_disk = FileRecord::of_file(&cache.particles(*frame)).unwrap();
        assert_eq!(files.particles.as_ref(), Some(&on_disk));
        // The mesher finishes the frames already written, even after a cancel.
        let surface = FileRecord::of_file(&cache.surface(*frame)).unwrap();
        assert_eq!(files.surface.as_ref(), Some(&surface));
    }
    let summary = resume(dir.path());
    assert_eq!(summary.first_frame, 3);
    assert!(summary.repairs.is_empty(), "{:?}", summary.repairs);
}
