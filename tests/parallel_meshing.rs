//! Several `gloop mesh` processes meshing one cache at once, each its own frames (a render
//! farm's chunks, issue 46): the surfaces are the bytes one process meshing them all writes,
//! every frame is recorded in the manifest, and processes killed part-way and started again
//! leave a cache `gloop info` finds complete. A bake waits for the meshers.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::time::Duration;

use gloop::cache::{CacheDir, Manifest};

mod bake_support;
use bake_support::{arg, gloop, stdout_of, tiny_scene};

const FRAMES: i32 = 12;
/// Fine cells, so a frame takes long enough to be killed in the middle of.
const RESOLUTION: &str = "0.25";

/// A bake of frames 1..=FRAMES without surfaces, in `work/name`.
fn particles_only(work: &Path, name: &str) -> PathBuf {
    let scene = work.join("tiny.json");
    if !scene.exists() {
        tiny_scene(FRAMES).save(&scene).unwrap();
    }
    let out = work.join(name);
    stdout_of(&["bake", arg(&scene), "--out", arg(&out), "--no-surface"]);
    out
}

fn surfaces(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().starts_with("surface_"))
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

fn mesher(dir: &Path, chunk: (i32, i32)) -> Child {
    Command::new(env!("CARGO_BIN_EXE_gloop"))
        .args(["mesh", arg(dir), "--resolution", RESOLUTION, "--frames"])
        .arg(format!("{}..{}", chunk.0, chunk.1))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// One process meshing every frame: what the chunks must reproduce.
fn reference(work: &Path) -> BTreeMap<String, Vec<u8>> {
    let dir = particles_only(work, "one_process");
    stdout_of(&["mesh", arg(&dir), "--resolution", RESOLUTION]);
    surfaces(&dir)
}

/// Every frame has its surface recorded and `gloop info` finds the cache complete and free.
fn assert_complete(dir: &Path) {
    let manifest = Manifest::read(&CacheDir::new(dir).manifest()).unwrap();
    for frame in 1..=FRAMES {
        let files = manifest.frames.get(&frame);
        assert!(
            files.is_some_and(|f| f.surface.is_some()),
            "frame {frame} has no surface record"
        );
    }
    assert!(manifest.surface.is_some());
    let info = stdout_of(&["info", arg(dir)]);
    assert!(
        info.contains("every recorded frame file matches its size and hash"),
        "{info}"
    );
    assert!(!info.contains("in use by"), "{info}");
}

#[test]
fn two_meshers_on_interleaved_chunks_write_what_one_would() {
    let work = tempfile::tempdir().unwrap();
    let expected = reference(work.path());
    let dir = particles_only(work.path(), "chunks");
    let chunks = [(1, 3), (4, 6), (7, 9), (10, 12)];
    for pair in chunks.chunks(2) {
        let running: Vec<Child> = pair.iter().map(|&c| mesher(&dir, c)).collect();
        for child in running {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    assert!(surfaces(&dir) == expected, "the chunks' surfaces differ");
    assert_complete(&dir);
}

#[test]
fn overlapping_chunks_and_a_bake_are_refused_while_a_mesher_runs() {
    let work = tempfile::tempdir().unwrap();
    let dir = particles_only(work.path(), "cache");
    let first = mesher(&dir, (1, FRAMES));
    // Until it has registered.
    while !std::fs::read_dir(&dir).unwrap().any(|e| {
        e.unwrap()
            .file_name()
            .to_string_lossy()
            .starts_with("gloop.mesh-")
    }) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let overlapping = gloop(&["mesh", arg(&dir), "--frames", "5..6"]);
    let said = String::from_utf8_lossy(&overlapping.stderr).into_owned();
    assert!(!overlapping.status.success());
    assert!(said.contains("mesh (frames 1–12)"), "{said}");
    let scene = work.path().join("tiny.json");
    let bake = gloop(&["bake", arg(&scene), "--out", arg(&dir), "--resume"]);
    let said = String::from_utf8_lossy(&bake.stderr).into_owned();
    assert!(!bake.status.success());
    assert!(said.contains("in use by gloop mesh"), "{said}");
    let out = first.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_complete(&dir);
}

/// Workers take chunks from a queue two at a time; now and then one is killed outright part
/// way (SIGKILL: no destructor runs) and its chunk goes back in the queue, as a farm retries a
/// failed task.
#[cfg(unix)]
#[test]
fn meshers_killed_at_random_and_restarted_end_with_every_frame_meshed_once() {
    let work = tempfile::tempdir().unwrap();
    let expected = reference(work.path());
    let dir = particles_only(work.path(), "farm");
    let mut queue: Vec<(i32, i32)> = vec![(1, 2), (3, 4), (5, 6), (7, 8), (9, 10), (11, 12)];
    let mut running: Vec<((i32, i32), Child, u32)> = Vec::new();
    // A fixed pseudo-random sequence: the same kills on every run.
    let mut seed = 0x9e37_79b9u32;
    let mut random = move |n: u32| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed % n
    };
    let (mut kills, mut ticks) = (0, 0);
    while !queue.is_empty() || !running.is_empty() {
        while running.len() < 2 {
            let Some(chunk) = queue.pop() else { break };
            running.push((chunk, mesher(&dir, chunk), random(40)));
        }
        std::thread::sleep(Duration::from_millis(5));
        ticks += 1;
        let mut still = Vec::new();
        for (chunk, mut child, kill_at) in running.drain(..) {
            match child.try_wait().unwrap() {
                Some(status) => {
                    let out = child.wait_with_output().unwrap();
                    assert!(status.success(), "{}", String::from_utf8_lossy(&out.stderr));
                }
                None if kills < 6 && ticks % 40 == kill_at => {
                    child.kill().unwrap();
                    child.wait().unwrap();
                    kills += 1;
                    queue.push(chunk);
                }
                None => still.push((chunk, child, kill_at)),
            }
        }
        running = still;
    }
    assert!(kills > 0, "no mesher was killed: the test proves nothing");
    assert!(
        surfaces(&dir) == expected,
        "the surfaces differ from one process's"
    );
    assert_complete(&dir);
    // A bake (here a resume, with nothing left to do) takes the folder again: the killed
    // meshers' locks are gone with them.
    let scene = work.path().join("tiny.json");
    stdout_of(&["bake", arg(&scene), "--out", arg(&dir), "--resume"]);
}
