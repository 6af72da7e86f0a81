//! The add-on's way of running a bake: a child process watched through `status.json` and
//! stopped by creating the `cancel` file; and a terminal user's: Ctrl-C.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gloop::cache::{BakeState, CacheDir, Manifest, Status};

mod bake_support;
use bake_support::{particle_files, tiny_scene};

const FRAMES: i32 = 60;

#[test]
fn cancel_file_stops_a_running_cli_bake_which_then_resumes() {
    stop_then_resume(|cache, _| std::fs::write(cache.cancel(), b"").unwrap());
}

#[cfg(unix)]
#[test]
fn ctrl_c_stops_a_running_cli_bake_which_then_resumes() {
    stop_then_resume(|_, child| {
        let sent = Command::new("kill")
            .args(["-INT", &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
    });
}

/// Starts a bake, lets it finish a few frames, stops it with `stop`, checks that it stopped
/// cleanly keeping its frames, then resumes it to the end.
fn stop_then_resume(stop: impl FnOnce(&CacheDir, &Child)) {
    let work = tempfile::tempdir().unwrap();
    let scene = work.path().join("tiny.json");
    tiny_scene(FRAMES).save(&scene).unwrap();
    let out = work.path().join("cache");
    let cache = CacheDir::new(&out);
    let bake = |resume: bool| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_gloop"));
        command.args([
            "bake",
            scene.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        if resume {
            command.arg("--resume");
        }
        command
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };

    let child = bake(false);
    // Wait until the bake reports a couple of frames, then ask it to stop.
    let started = Instant::now();
    loop {
        if let Ok(status) = Status::read(&cache.status()) {
            assert_eq!(status.state, BakeState::Running);
            assert_eq!(status.frames_total, FRAMES as u32);
            if status.frames_done >= 3 {
                break;
            }
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "bake never reported progress"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    stop(&cache, &child);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        output.status.code(),
        Some(2),
        "{stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains("cancelled"), "{stdout}");
    assert!(
        !out.join("gloop.lock").exists(),
        "a stopped bake keeps no lock"
    );

    let status = Status::read(&cache.status()).unwrap();
    assert_eq!(status.state, BakeState::Cancelled);
    let kept = Manifest::read(&cache.manifest())
        .unwrap()
        .last_complete_frame
        .unwrap();
    assert!((3..FRAMES).contains(&kept), "kept {kept}");
    assert_eq!(status.frame, kept);
    let expected: Vec<String> = (1..=kept)
        .map(|f| format!("particles_{f:05}.ply"))
        .collect();
    assert_eq!(
        particle_files(&out).into_keys().collect::<Vec<_>>(),
        expected
    );

    // The CLI clears a stale cancel request and finishes the bake.
    let output = bake(true).wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(particle_files(&out).len(), FRAMES as usize);
    assert_eq!(
        Status::read(&cache.status()).unwrap().state,
        BakeState::Finished
    );
}
