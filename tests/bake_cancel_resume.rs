//! The bake's frame loop against the real solver: every frame written, cancel keeps finished
//! frames, and a resumed bake ends bit-identical to an uninterrupted one.

use std::path::Path;
use std::sync::atomic::Ordering;

use gloop::bake::{bake, BakeOptions, BakeOutcome, BakeProgress};
use gloop::cache::{read_particles, BakeState, CacheDir, Manifest, Status};
use gloop::Simulation;

mod bake_support;
mod common;
use bake_support::{particle_files, snapshot, tiny_scene};

const LAST: i32 = 6;

fn quiet(_: &BakeProgress) {}

/// An uninterrupted bake of the tiny scene, frames 1..=LAST.
fn reference(dir: &Path) {
    let summary = bake(&tiny_scene(LAST), dir, &BakeOptions::default(), &mut quiet).unwrap();
    assert_eq!(summary.outcome, BakeOutcome::Finished);
}

fn names(frames: std::ops::RangeInclusive<i32>) -> Vec<String> {
    frames.map(|f| format!("particles_{f:05}.ply")).collect()
}

#[test]
fn uninterrupted_bake_writes_every_frame_and_the_bookkeeping() {
    let dir = tempfile::tempdir().unwrap();
    let scene = tiny_scene(LAST);
    let mut seen = Vec::new();
    let summary = bake(&scene, dir.path(), &BakeOptions::default(), &mut |p| {
        seen.push((p.frame, p.frames_done, p.frames_total, p.stats.is_some()))
    })
    .unwrap();
    assert_eq!(summary.outcome, BakeOutcome::Finished);
    assert_eq!((summary.first_frame, summary.last_frame), (1, LAST));
    assert_eq!(summary.stats.len(), (LAST - 1) as usize);
    let expected: Vec<_> = (1..=LAST)
        .map(|f| (f, f as u32, LAST as u32, f > 1))
        .collect();
    assert_eq!(seen, expected);

    let files = particle_files(dir.path());
    assert_eq!(files.keys().cloned().collect::<Vec<_>>(), names(1..=LAST));
    assert!(!snapshot(dir.path()).keys().any(|n| n.ends_with(".tmp")));

    // Frame 1 is the scene's initial state, exactly.
    let cache = CacheDir::new(dir.path());
    let initial = Simulation::new(&scene).unwrap();
    assert_eq!(
        &read_particles(&cache.particles(1)).unwrap(),
        initial.liquid()
    );
    assert!(initial.liquid().len() > 100, "{}", initial.liquid().len());
    // The blob was thrown down: by the last frame it has moved.
    let mean_z = |f| {
        let p = read_particles(&cache.particles(f)).unwrap();
        p.position.iter().map(|v| v.z).sum::<f32>() / p.len() as f32
    };
    assert!(
        mean_z(LAST) < mean_z(1) - 0.01,
        "{} vs {}",
        mean_z(LAST),
        mean_z(1)
    );

    let manifest = Manifest::read(&cache.manifest()).unwrap();
    assert_eq!(manifest.last_complete_frame, Some(LAST));
    assert_eq!(manifest.scene_hash, gloop::cache::scene_hash(&scene));
    let status = Status::read(&cache.status()).unwrap();
    assert_eq!(status.state, BakeState::Finished);
    assert_eq!(
        (status.frame, status.frames_done, status.frames_total),
        (LAST, LAST as u32, LAST as u32)
    );
    assert_eq!(
        status.liquid_particles,
        summary.stats.last().unwrap().liquid_particles
    );
    let saved = gloop::Scene::load(&cache.scene()).unwrap();
    assert_eq!(saved, scene);
}

#[test]
fn cancel_flag_keeps_finished_frames_and_resume_is_bit_identical() {
    let reference_dir = tempfile::tempdir().unwrap();
    reference(reference_dir.path());
    let expected = particle_files(reference_dir.path());

    let dir = tempfile::tempdir().unwrap();
    let options = BakeOptions::default();
    let cancel = options.cancel.clone();
    // Cancel while frame 3 is being reported: the solver sees the flag at frame 4's first
    // substep.
    let summary = bake(&tiny_scene(LAST), dir.path(), &options, &mut |p| {
        if p.frame == 3 {
            cancel.store(true, Ordering::Release);
        }
    })
    .unwrap();
    assert_eq!(summary.outcome, BakeOutcome::Cancelled);
    assert_eq!(summary.last_frame, 3);
    let kept = particle_files(dir.path());
    assert_eq!(kept.keys().cloned().collect::<Vec<_>>(), names(1..=3));
    for (name, bytes) in &kept {
        assert!(
            expected[name] == *bytes,
            "{name} differs from the uninterrupted bake"
        );
    }
    let cache = CacheDir::new(dir.path());
    assert_eq!(
        Status::read(&cache.status()).unwrap().state,
        BakeState::Cancelled
    );
    assert_eq!(
        Manifest::read(&cache.manifest())
            .unwrap()
            .last_complete_frame,
        Some(3)
    );

    let resume = BakeOptions {
        resume: true,
        ..BakeOptions::default()
    };
    let mut first = None;
    let summary = bake(&tiny_scene(LAST), dir.path(), &resume, &mut |p| {
        first.get_or_insert(p.frame);
    })
    .unwrap();
    assert_eq!(summary.outcome, BakeOutcome::Finished);
    assert_eq!(
        first,
        Some(3),
        "resume reports the frame it starts from first"
    );
    assert_eq!((summary.first_frame, summary.last_frame), (3, LAST));
    assert!(
        particle_files(dir.path()) == expected,
        "resumed bake differs from uninterrupted"
    );
}

#[test]
fn cancel_file_stops_the_bake_and_resume_continues() {
    let reference_dir = tempfile::tempdir().unwrap();
    reference(reference_dir.path());

    let dir = tempfile::tempdir().unwrap();
    let cache = CacheDir::new(dir.path());
    let summary = bake(
        &tiny_scene(LAST),
        dir.path(),
        &BakeOptions::default(),
        &mut |p| {
            if p.frame == 2 {
                // As the add-on does from another process; hold the solver long enough for the
                // watcher (which polls every 10 ms) to see it.
                std::fs::write(cache.cancel(), b"").unwrap();
                std::thread::sleep(std::time::Duration::from_millis(200));
            }
        },
    )
    .unwrap();
    assert_eq!(summary.outcome, BakeOutcome::Cancelled);
    assert_eq!(summary.last_frame, 2);
    assert_eq!(particle_files(dir.path()).len(), 2);

    // Whoever starts the next bake removes the stale request (as the add-on and CLI do).
    assert!(cache.cancel().exists());
    gloop::bake::remove_stale_cancel(dir.path()).unwrap();
    let resume = BakeOptions {
        resume: true,
        ..BakeOptions::default()
    };
    let summary = bake(&tiny_scene(LAST), dir.path(), &resume, &mut quiet).unwrap();
    assert_eq!(summary.outcome, BakeOutcome::Finished);
    assert!(particle_files(dir.path()) == particle_files(reference_dir.path()));
}

#[test]
fn resume_extends_a_finished_bake_and_steps_back_over_a_damaged_frame() {
    let reference_dir = tempfile::tempdir().unwrap();
    reference(reference_dir.path());
    let expected = particle_files(reference_dir.path());

    // A bake of frames 1..=4, extended to LAST (only frame_end changed: same scene hash).
    let dir = tempfile::tempdir().unwrap();
    bake(
        &tiny_scene(4),
        dir.path(),
        &BakeOptions::default(),
        &mut quiet,
    )
    .unwrap();
    let resume = BakeOptions {
        resume: true,
        ..BakeOptions::default()
    };
    let summary = bake(&tiny_scene(LAST), dir.path(), &resume, &mut quiet).unwrap();
    assert_eq!(summary.first_frame, 4);
    assert!(particle_files(dir.path()) == expected);

    // Damage frame 5 (say, a disk filled up outside our atomic writes) and drop frame 6:
    // resume continues from 4 and still ends identical.
    let cache = CacheDir::new(dir.path());
    let bytes = std::fs::read(cache.particles(5)).unwrap();
    std::fs::write(cache.particles(5), &bytes[..bytes.len() - 100]).unwrap();
    std::fs::remove_file(cache.particles(6)).unwrap();
    let summary = bake(&tiny_scene(LAST), dir.path(), &resume, &mut quiet).unwrap();
    assert_eq!(summary.first_frame, 4);
    assert!(particle_files(dir.path()) == expected);

    // Nothing left to do: a resume of a complete bake simulates no frame.
    let summary = bake(&tiny_scene(LAST), dir.path(), &resume, &mut quiet).unwrap();
    assert_eq!((summary.first_frame, summary.last_frame), (LAST, LAST));
    assert!(summary.stats.is_empty());
}

#[test]
fn frames_option_overrides_the_scene_range() {
    let dir = tempfile::tempdir().unwrap();
    let options = BakeOptions {
        frames: Some((10, 12)),
        ..BakeOptions::default()
    };
    let summary = bake(&tiny_scene(LAST), dir.path(), &options, &mut quiet).unwrap();
    assert_eq!((summary.first_frame, summary.last_frame), (10, 12));
    assert_eq!(
        particle_files(dir.path())
            .keys()
            .cloned()
            .collect::<Vec<_>>(),
        names(10..=12)
    );
    let manifest = Manifest::read(&CacheDir::new(dir.path()).manifest()).unwrap();
    assert_eq!((manifest.frame_start, manifest.frame_end), (10, 12));
}

/// The tiny scene with its blob thrown down at 3 m/s and a nozzle pouring beside it: frames
/// take different substep counts (adaptive, at least 2) while the emitter pours continuously.
fn fast_pour_scene() -> gloop::Scene {
    let mut scene = tiny_scene(LAST);
    for object in &mut scene.objects {
        if let gloop::scene::Role::Liquid {
            initial_velocity, ..
        } = &mut object.role
        {
            *initial_velocity = glam::Vec3::new(0.0, 0.0, -3.0);
        }
    }
    let emission = gloop::scene::Emission {
        flow: None,
        speed: Some(1.5),
        rate: None,
        frame_start: 1,
        frame_end: 100,
    };
    scene.objects.push(common::disc_nozzle(
        "Nozzle",
        glam::Vec3::new(0.1, 0.0, 0.3),
        0.03,
        emission,
    ));
    scene
}

/// Resume stays bit-identical when the substep count changes from frame to frame and an
/// emitter pours: the count is chosen from the saved state alone.
#[test]
fn resume_is_bit_identical_with_adaptive_substeps_and_an_emitter() {
    let reference_dir = tempfile::tempdir().unwrap();
    let reference = bake(
        &fast_pour_scene(),
        reference_dir.path(),
        &BakeOptions::default(),
        &mut quiet,
    )
    .unwrap();
    let counts: Vec<u32> = reference.stats.iter().map(|s| s.substeps).collect();
    // (3 + 9.81/24) / 24 / (3 moves × 1 cm) = 4.7 at the start; less once the blob has landed.
    assert_eq!(counts[0], 5, "{counts:?}");
    assert!(counts.iter().any(|&n| n != counts[0]), "{counts:?}");
    let emitted = |dir: &Path, frame: i32| {
        read_particles(&CacheDir::new(dir).particles(frame))
            .unwrap()
            .len()
    };
    assert!(emitted(reference_dir.path(), LAST) > emitted(reference_dir.path(), 1));
    let expected = particle_files(reference_dir.path());
    let status = Status::read(&CacheDir::new(reference_dir.path()).status()).unwrap();
    assert_eq!(status.substeps, Some(*counts.last().unwrap()));
    assert_eq!(status.substeps_capped_frames, 0);

    let dir = tempfile::tempdir().unwrap();
    let options = BakeOptions::default();
    let cancel = options.cancel.clone();
    bake(&fast_pour_scene(), dir.path(), &options, &mut |p| {
        if p.frame == 3 {
            cancel.store(true, Ordering::Release);
        }
    })
    .unwrap();
    let resume = BakeOptions {
        resume: true,
        ..BakeOptions::default()
    };
    let resumed = bake(&fast_pour_scene(), dir.path(), &resume, &mut quiet).unwrap();
    assert_eq!(resumed.first_frame, 3);
    let resumed_counts: Vec<u32> = resumed.stats.iter().map(|s| s.substeps).collect();
    assert_eq!(resumed_counts, counts[2..], "substeps of frames 4..={LAST}");
    assert!(
        particle_files(dir.path()) == expected,
        "resumed bake differs from uninterrupted"
    );
}
