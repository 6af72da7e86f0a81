//! `gloop bench` plumbing (not speed: that is what the command is for): it runs a scene file
//! in a child process and reports its particle counts, pair rate, memory per particle (resident
//! set and live heap), substeps per frame, density passes per substep, and the substeps stopped
//! at the pass cap.

use std::process::Command;

mod bake_support;

#[test]
fn bench_reports_a_row_per_scene() {
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("tiny.json");
    let scene = bake_support::tiny_scene(3);
    scene.save(&path).unwrap();
    let sim = gloop::Simulation::new(&scene).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gloop"))
        .args(["bench", "--frames", "2", path.to_str().unwrap()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let row = stdout
        .lines()
        .find(|l| l.starts_with(path.to_str().unwrap()))
        .unwrap_or_else(|| panic!("no row in {stdout}"));
    let fields: Vec<&str> = row.split_whitespace().collect();
    let number = |i: usize| fields[i].parse::<f64>().unwrap();
    assert_eq!(number(1) as usize, sim.liquid().len(), "{row}");
    assert_eq!(number(2) as usize, sim.object_positions().len(), "{row}");
    assert!(number(3) > 0.0, "median seconds per frame: {row}");
    assert!(number(4) > 0.0, "mean seconds per frame: {row}");
    // Substeps per frame, the mean and the most: the tiny blob is thrown at 0.5 m/s and
    // needs no more than its minimum of 2.
    let (mean, most) = fields[5].split_once('/').unwrap();
    assert_eq!(
        mean.parse::<f64>().unwrap(),
        2.0,
        "substeps per frame: {row}"
    );
    assert_eq!(most.parse::<u32>().unwrap(), 2, "most substeps: {row}");
    assert!(number(6) > 0.0, "pairs per second: {row}");
    assert!(number(7) > 0.0 && number(8) > 0.0, "memory: {row}");
    // The simulation's live heap holds at least its particles' positions and velocities.
    assert!(number(9) >= 24.0, "heap per particle: {row}");
    let passes = number(10);
    assert!(
        passes >= 0.0 && passes <= scene.settings.max_density_iterations as f64,
        "density passes per substep: {row}"
    );
    let capped: f64 = fields[11].trim_end_matches('%').parse().unwrap();
    assert!(
        (0.0..=100.0).contains(&capped),
        "share of capped substeps: {row}"
    );
    assert!(number(12) >= 0.0, "worst compression: {row}");
}

/// `--substeps`, `--max-substeps`, `--moves` and `--viscosity` change every scene run, name the row after what
/// they changed, and are checked like a scene file's settings before anything runs.
#[test]
fn bench_runs_scenes_with_other_steps_and_refuses_impossible_ones() {
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("tiny.json");
    bake_support::tiny_scene(3).save(&path).unwrap();
    let path = path.to_str().unwrap();
    let bench = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_gloop"))
            .args(["bench", "--frames", "1", path])
            .args(extra)
            .output()
            .unwrap()
    };
    let out = bench(&["--substeps", "1", "--moves", "2", "--viscosity", "classic"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    let label = format!("{path}[substeps=1,moves=2,classic]");
    assert!(
        stdout.lines().any(|l| l.starts_with(&label)),
        "no row {label} in {stdout}"
    );
    // A fixed count: the row says 3 substeps in every frame.
    let out = bench(&["--substeps", "3", "--max-substeps", "3"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let label = format!("{path}[substeps=3,max-substeps=3]");
    let row = stdout
        .lines()
        .find(|l| l.starts_with(&label))
        .unwrap_or_else(|| panic!("no row {label} in {stdout}"));
    assert_eq!(row.split_whitespace().nth(5), Some("3.0/3"), "{row}");
    let out = bench(&["--substeps", "0"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("substeps"), "{stderr}");
    let out = bench(&["--substeps", "3", "--max-substeps", "2"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("max_substeps (2)"), "{stderr}");
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("liquid"),
        "a table was printed: {}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// No frames is refused with a message, by `gloop bench` and by its hidden child alike,
/// rather than a median of nothing (which panicked in the child).
#[test]
fn bench_refuses_zero_frames() {
    for command in ["bench", "bench-one"] {
        let out = Command::new(env!("CARGO_BIN_EXE_gloop"))
            .args([command, "--frames", "0", "honey-drop"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{command}: {stderr}");
        assert!(
            stderr.contains("--frames must be at least 1"),
            "{command}: {stderr}"
        );
    }
}
