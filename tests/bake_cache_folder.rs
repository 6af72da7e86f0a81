//! What a bake does to the folder it writes: replaces an earlier bake without touching other
//! files, and feeds every frame to the frame hook (where the surface mesher plugs in).

use std::sync::{Arc, Mutex};

use gloop::bake::{bake, BakeOptions, FrameHook};
use gloop::cache::{read_particles, write_particles, BakeState, CacheDir, Status};
use gloop::sim::LiquidParticles;
use gloop::GloopError;

mod bake_support;
use bake_support::{particle_files, snapshot, tiny_scene};

#[test]
fn fresh_bake_replaces_an_earlier_bake_but_not_other_files() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CacheDir::new(dir.path());
    let mut stale = LiquidParticles::default();
    stale.push(glam::Vec3::ONE, glam::Vec3::ZERO, 0, [1.0, 0.0, 0.0]);
    for frame in 1..=9 {
        write_particles(&cache.particles(frame), frame, &stale).unwrap();
        std::fs::write(cache.surface(frame), b"old mesh").unwrap();
    }
    std::fs::write(dir.path().join("particles_00003.ply.tmp"), b"half").unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"keep me").unwrap();

    bake(
        &tiny_scene(3),
        dir.path(),
        &BakeOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "manifest.json",
            "notes.txt",
            "particles_00001.ply",
            "particles_00002.ply",
            "particles_00003.ply",
            "scene.gloop",
            "status.json",
            "surface_00001.ply",
            "surface_00002.ply",
            "surface_00003.ply",
        ]
    );
    assert!(read_particles(&cache.particles(1)).unwrap().len() > 100);
}

#[test]
fn frame_hook_gets_every_frame_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let hook: FrameHook = Arc::new(
        move |frame, particles: &LiquidParticles, cache: &CacheDir| {
            // What the mesher will do: read nothing, write the frame's surface file.
            std::fs::write(cache.surface(frame), b"mesh").unwrap();
            log.lock().unwrap().push((frame, particles.clone()));
            Ok(())
        },
    );
    let options = BakeOptions {
        on_frame: Some(hook),
        surface: None,
        ..BakeOptions::default()
    };
    bake(&tiny_scene(4), dir.path(), &options, &mut |_| {}).unwrap();
    let seen = seen.lock().unwrap();
    assert_eq!(seen.iter().map(|s| s.0).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let cache = CacheDir::new(dir.path());
    for (frame, particles) in seen.iter() {
        assert_eq!(
            &read_particles(&cache.particles(*frame)).unwrap(),
            particles
        );
        assert!(cache.surface(*frame).exists());
    }
}

#[test]
fn a_failing_frame_hook_fails_the_bake_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let hook: FrameHook = Arc::new(|frame, _: &LiquidParticles, _: &CacheDir| {
        if frame == 2 {
            Err(GloopError::Other(
                "mesher ran out of patience at frame 2".into(),
            ))
        } else {
            Ok(())
        }
    });
    let options = BakeOptions {
        on_frame: Some(hook),
        ..BakeOptions::default()
    };
    let err = bake(&tiny_scene(6), dir.path(), &options, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("out of patience"), "{err}");
    let status = Status::read(&CacheDir::new(dir.path()).status()).unwrap();
    assert_eq!(status.state, BakeState::Failed);
    assert!(status.error.unwrap().contains("out of patience"));
    // Frames finished before the failure are kept.
    assert!(particle_files(dir.path()).len() >= 2);
}

#[test]
fn bake_meshes_every_frame_and_resume_meshes_what_a_killed_bake_missed() {
    let dir = tempfile::tempdir().unwrap();
    let cache = CacheDir::new(dir.path());
    bake(
        &tiny_scene(4),
        dir.path(),
        &BakeOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    let radius = tiny_scene(4).settings.particle_radius;
    for frame in 1..=4 {
        let mesh = gloop::surface::read_surface_ply(&cache.surface(frame)).unwrap();
        assert!(
            mesh.triangles.len() > 100,
            "frame {frame}: {}",
            mesh.triangles.len()
        );
        // The mesh wraps the particles: every vertex lies within a few radii of one, but for
        // the contact face on the slab (z = 0, or the offset inside it), which particles up to
        // 4 r above reach down to.
        let particles = read_particles(&cache.particles(frame)).unwrap();
        let far = mesh.positions.iter().filter(|v| {
            let on_slab = v.z.abs() < (gloop::surface::CONTACT_OFFSET + 0.05) * radius;
            let reach = if on_slab { 5.0 } else { 3.0 } * radius;
            particles.position.iter().all(|p| p.distance(**v) > reach)
        });
        assert_eq!(far.count(), 0, "frame {frame}");
    }
    let manifest = gloop::cache::Manifest::read(&cache.manifest()).unwrap();
    assert!(manifest.surface.is_some());

    // A killed bake whose mesher lagged: frames 3 and 4 lack surfaces.
    let kept = std::fs::read(cache.surface(2)).unwrap();
    std::fs::remove_file(cache.surface(3)).unwrap();
    std::fs::remove_file(cache.surface(4)).unwrap();
    let resume = BakeOptions {
        resume: true,
        ..BakeOptions::default()
    };
    bake(&tiny_scene(5), dir.path(), &resume, &mut |_| {}).unwrap();
    for frame in 1..=5 {
        assert!(cache.surface(frame).exists(), "frame {frame}");
    }
    assert_eq!(
        std::fs::read(cache.surface(2)).unwrap(),
        kept,
        "existing surfaces are kept"
    );
}

/// A hook failing at `frame`, as a mesher on a full disk would.
fn failing_at(frame: i32) -> FrameHook {
    Arc::new(move |f, _: &LiquidParticles, _: &CacheDir| {
        if f == frame {
            Err(GloopError::Other(format!("no space left at frame {f}")))
        } else {
            Ok(())
        }
    })
}

#[test]
fn a_replacement_failing_mid_bake_puts_the_earlier_bake_back() {
    let dir = tempfile::tempdir().unwrap();
    bake(
        &tiny_scene(3),
        dir.path(),
        &BakeOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    let before = snapshot(dir.path());

    // Without consent, refused before anything is touched.
    let err = bake(
        &tiny_scene(5),
        dir.path(),
        &BakeOptions::default(),
        &mut |_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("--resume") && err.contains("--overwrite"),
        "{err}"
    );
    assert!(snapshot(dir.path()) == before);

    // With consent, failing at frame 2 (after frames 1 and 2 were written).
    let options = BakeOptions {
        overwrite: true,
        on_frame: Some(failing_at(2)),
        ..BakeOptions::default()
    };
    let err = bake(&tiny_scene(5), dir.path(), &options, &mut |_| {})
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no space left at frame 2") && err.contains("back in"),
        "{err}"
    );
    assert!(
        snapshot(dir.path()) == before,
        "the earlier bake was not restored"
    );
}

#[test]
fn a_cancelled_replacement_keeps_the_earlier_bake_aside_until_a_bake_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let replaced = dir.path().join(gloop::bake::REPLACED_FOLDER);
    bake(
        &tiny_scene(3),
        dir.path(),
        &BakeOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    let earlier = particle_files(dir.path());
    let mut other = tiny_scene(6);
    other.settings.substeps = 3;
    let options = BakeOptions {
        overwrite: true,
        surface: None,
        ..BakeOptions::default()
    };
    let cancel = options.cancel.clone();
    let summary = bake(&other, dir.path(), &options, &mut |p| {
        if p.frame == 2 {
            cancel.store(true, std::sync::atomic::Ordering::Release);
        }
    })
    .unwrap();
    assert_eq!(summary.outcome, gloop::bake::BakeOutcome::Cancelled);
    assert!(particle_files(&replaced) == earlier);

    // A second replacement failing at once brings back the finished bake, not the
    // cancelled one.
    let failing = BakeOptions {
        overwrite: true,
        surface: None,
        on_frame: Some(failing_at(1)),
        ..BakeOptions::default()
    };
    bake(&other, dir.path(), &failing, &mut |_| {}).unwrap_err();
    assert!(particle_files(dir.path()) == earlier);
    assert!(!replaced.exists());

    // Cancelled again, then resumed to the end: the set-aside bake goes.
    let options = BakeOptions {
        cancel: Default::default(),
        ..options
    };
    let cancel = options.cancel.clone();
    bake(&other, dir.path(), &options, &mut |p| {
        if p.frame == 2 {
            cancel.store(true, std::sync::atomic::Ordering::Release);
        }
    })
    .unwrap();
    assert!(replaced.exists());
    let resume = BakeOptions {
        resume: true,
        surface: None,
        ..BakeOptions::default()
    };
    bake(&other, dir.path(), &resume, &mut |_| {}).unwrap();
    assert_eq!(particle_files(dir.path()).len(), 6);
    assert!(!replaced.exists());
}
