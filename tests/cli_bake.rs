//! The `gloop` binary end to end: bakes are bit-identical whatever the thread count, `info`
//! describes the cache, `demo` bakes a built-in scene.

use std::path::{Path, PathBuf};
use std::process::Command;

mod bake_support;
use bake_support::{particle_files, snapshot, tiny_scene};
use gloop::scene::{Scene, ViscosityModel};

fn gloop(args: &[&str], threads: Option<&str>) -> (i32, String, String) {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gloop"));
    command.args(args);
    if let Some(n) = threads {
        command.env("RAYON_NUM_THREADS", n);
    }
    let out = command.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn bake_is_bit_identical_with_one_and_two_threads() {
    let work = tempfile::tempdir().unwrap();
    let scene = work.path().join("tiny.json");
    tiny_scene(5).save(&scene).unwrap();
    let (one, two) = (work.path().join("one"), work.path().join("two"));
    for (dir, threads) in [(&one, "1"), (&two, "2")] {
        let (code, stdout, stderr) = gloop(&["bake", s(&scene), "--out", s(dir)], Some(threads));
        assert_eq!(code, 0, "{stdout}{stderr}");
        assert!(stdout.contains("baked frames 1..5"), "{stdout}");
    }
    // Particles and surfaces alike.
    let frame_files = |dir: &Path| {
        let mut files = snapshot(dir);
        files.retain(|name, _| name.ends_with(".ply"));
        files
    };
    let (a, b) = (frame_files(&one), frame_files(&two));
    assert_eq!(a.len(), 10);
    for (name, bytes) in &a {
        assert!(b[name] == *bytes, "{name} differs between 1 and 2 threads");
    }

    let (code, stdout, stderr) = gloop(&["info", s(&one)], None);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("frames 1..5"), "{stdout}");
    assert!(stdout.contains("particle files: 5 (1..5)"), "{stdout}");
    assert!(stdout.contains("liquid 0: honey"), "{stdout}");
    let count = gloop::cache::read_particles(&one.join("particles_00005.ply"))
        .unwrap()
        .len();
    // The frame table's row for frame 5 ends with its liquid particle count.
    let row = stdout
        .lines()
        .find(|l| l.split_whitespace().next() == Some("5"))
        .unwrap_or_else(|| panic!("no row for frame 5: {stdout}"));
    assert_eq!(
        row.split_whitespace().last(),
        Some(count.to_string().as_str()),
        "{row}"
    );
}

#[test]
fn bake_frames_and_resume_flags() {
    let work = tempfile::tempdir().unwrap();
    let scene = work.path().join("tiny.json");
    tiny_scene(5).save(&scene).unwrap();
    let out = work.path().join("cache");
    let (code, _, stderr) = gloop(
        &["bake", s(&scene), "--out", s(&out), "--frames", "1..3"],
        None,
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(particle_files(&out).len(), 3);
    let (code, stdout, stderr) = gloop(&["bake", s(&scene), "--out", s(&out), "--resume"], None);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("baked frames 3..5"), "{stdout}");
    let full = work.path().join("full");
    gloop(&["bake", s(&scene), "--out", s(&full)], None);
    assert!(particle_files(&out) == particle_files(&full));
}

#[test]
fn demo_bakes_a_few_frames() {
    let work = tempfile::tempdir().unwrap();
    let out = work.path().join("honey");
    let (code, stdout, stderr) = gloop(
        &["demo", "honey-drop", "--out", s(&out), "--frames", "1..2"],
        None,
    );
    assert_eq!(code, 0, "{stdout}{stderr}");
    let files = particle_files(&out);
    assert_eq!(files.len(), 2);
    let first = gloop::cache::read_particles(&out.join("particles_00001.ply")).unwrap();
    assert!(first.len() > 100);
}

#[test]
fn no_surface_then_mesh_later() {
    let work = tempfile::tempdir().unwrap();
    let scene = work.path().join("tiny.json");
    tiny_scene(3).save(&scene).unwrap();
    let out = work.path().join("cache");
    let (code, _, stderr) = gloop(&["bake", s(&scene), "--out", s(&out), "--no-surface"], None);
    assert_eq!(code, 0, "{stderr}");
    assert!(!snapshot(&out).keys().any(|n| n.starts_with("surface_")));

    let (code, stdout, stderr) = gloop(&["mesh", s(&out), "--frames", "2..3"], None);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("meshed 2 frames"), "{stdout}");
    let cache = gloop::cache::CacheDir::new(&out);
    assert!(!cache.surface(1).exists());
    for frame in [2, 3] {
        let mesh = gloop::surface::read_surface_ply(&cache.surface(frame)).unwrap();
        assert!(!mesh.triangles.is_empty());
    }
    let (_, stdout, _) = gloop(&["info", s(&out)], None);
    assert!(stdout.contains("surface files: 2 (2..3)"), "{stdout}");
}

/// Bakes `tiny_scene(frames)`, changed by `change`, from `work/{name}.json` into
/// `work/cache_{name}`; the run must succeed. Returns its stdout and the cache folder.
fn bake_tiny(
    work: &Path,
    name: &str,
    frames: i32,
    change: impl FnOnce(&mut Scene),
) -> (String, PathBuf) {
    let mut scene = tiny_scene(frames);
    change(&mut scene);
    let path = work.join(format!("{name}.json"));
    scene.save(&path).unwrap();
    let out = work.join(format!("cache_{name}"));
    let (code, stdout, stderr) = gloop(&["bake", s(&path), "--out", s(&out)], None);
    assert_eq!(code, 0, "{stdout}{stderr}");
    (stdout, out)
}

/// A bake whose density correction keeps stopping at its pass cap says so when it finishes,
/// and one that always reaches the tolerance says nothing.
#[test]
fn bake_reports_substeps_stopped_at_the_pass_cap() {
    let work = tempfile::tempdir().unwrap();
    let tolerance = tiny_scene(8).settings.density_tolerance;
    let bake_with_cap = |cap: u32| {
        let (stdout, out) = bake_tiny(work.path(), &format!("cap{cap}"), 8, |scene| {
            scene.settings.max_density_iterations = cap
        });
        // The add-on reads the same figures from status.json.
        let status = gloop::cache::Status::read(&out.join("status.json")).unwrap();
        (stdout, status)
    };
    let (stdout, status) = bake_with_cap(1);
    assert!(
        stdout.contains("stopped at its pass cap (max_density_iterations = 1)"),
        "{stdout}"
    );
    assert!(status.capped_frames > 0, "{status:?}");
    assert!(status.worst_compression > tolerance, "{status:?}");
    let (stdout, status) = bake_with_cap(500);
    assert!(!stdout.contains("pass cap"), "{stdout}");
    assert_eq!((status.capped_frames, status.worst_compression), (0, 0.0));
}

/// Under the classic viscosity model the honey gets a fraction of its viscosity: the bake
/// says so before anything else (`tests/viscosity_classic_warning.rs` checks the figure).
#[test]
fn bake_warns_first_when_classic_viscosity_falls_short() {
    let work = tempfile::tempdir().unwrap();
    let model = |m| move |scene: &mut Scene| scene.settings.viscosity_model = m;
    let (classic, _) = bake_tiny(work.path(), "classic", 1, model(ViscosityModel::Classic));
    assert!(
        classic.starts_with("warning: the classic viscosity model gives liquid 'honey' only"),
        "{classic}"
    );
    let (implicit, _) = bake_tiny(work.path(), "implicit", 1, model(ViscosityModel::Implicit));
    assert!(!implicit.contains("warning"), "{implicit}");
}

/// `gloop info DIR | head -1`: the reader goes away before `info` is done printing. The
/// process must end without a panic (it used to print "failed printing to stdout" and a
/// backtrace).
#[test]
fn info_into_a_closed_pipe_ends_without_a_panic() {
    let work = tempfile::tempdir().unwrap();
    let (_, cache) = bake_tiny(work.path(), "tiny", 2, |_| {});
    let mut child = Command::new(env!("CARGO_BIN_EXE_gloop"))
        .args(["info", s(&cache)])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Close the pipe's reading end before `info` writes anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}
