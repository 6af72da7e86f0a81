//! Meshing time per frame, ours against splashsurf, on the same particle files in one run.
//!
//! For each particle count: `bench_particles(n)` is written to `/tmp/gloop_bench_{n}.ply`
//! (x y z); then, alternating, `mesh_particles` (with normals, colours and velocities) and
//! `splashsurf reconstruct` on that file are timed; the table shows medians. Alternating runs
//! keep a machine that others load from favouring one side.
//!
//! splashsurf runs "plain": particle radius r, smoothing length 2r (`-l 2`, compact support 4r,
//! our `kernel_radius`), cube size 0.5r (`-c 0.5`), the same thread count (`-n`), and its
//! defaults otherwise: iso 0.6 (`-t`), f32, SIMD on, the 64-cell subdomain grid on, and none
//! of its post-processing, each switched off explicitly (`--normals=off --mesh-cleanup=off
//! --decimate-barnacles=off --mesh-smoothing-weights=off`, no `--mesh-smoothing-iters`, no
//! `--generate-quads`, no `--check-mesh`). Its time is the reconstruction without reading the
//! particles and writing the mesh (its own profile); the process's wall time is shown too.
//!
//! Anisotropy (issue 33 asks for the time "against splashsurf 0.14 (plain) ... with anisotropy
//! on"): splashsurf 0.14 has no anisotropic kernels (no such flag, nothing in splashsurf_lib
//! 0.14.1), so its side is always plain and "anisotropy on" is ours: our default
//! (`--anisotropy 1`); `--anisotropy 0` times our isotropic field.
//!
//! Usage: cargo run --release --example surface_bench -- [COUNTS..] [--runs 5] [--threads 2]
//!        [--splashsurf PATH] [--smoothness 0.5] [--resolution 0.5] [--anisotropy 1]
//!        [--max-error 0.02] (decimation, on by default; 0 for splashsurf's like)
//! Defaults: 30000 100000 1000000; splashsurf from $SPLASHSURF or /tmp/splashsurf/bin/splashsurf.

use std::io::Write;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use glam::Vec3;
use gloop::surface::bench::bench_particles;
use gloop::surface::{mesh_particles_timed, SurfaceSettings};

const R: f32 = 0.01;

struct Options {
    counts: Vec<usize>,
    runs: usize,
    threads: usize,
    splashsurf: String,
    settings: SurfaceSettings,
}

/// splashsurf's post-processing, all off: "plain" stays plain if its defaults change.
const SPLASHSURF_PLAIN: [&str; 4] = [
    "--normals=off",
    "--mesh-cleanup=off",
    "--decimate-barnacles=off",
    "--mesh-smoothing-weights=off",
];

fn options() -> Options {
    let mut o = Options {
        counts: vec![],
        runs: 5,
        threads: 2,
        splashsurf: std::env::var("SPLASHSURF")
            .unwrap_or_else(|_| "/tmp/splashsurf/bin/splashsurf".into()),
        settings: SurfaceSettings::default(),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().expect("a value after the option").clone();
        match a.as_str() {
            "--runs" => o.runs = value().parse().expect("--runs N"),
            "--threads" => o.threads = value().parse().expect("--threads N"),
            "--splashsurf" => o.splashsurf = value(),
            "--smoothness" => o.settings.smoothness = value().parse().expect("--smoothness X"),
            "--resolution" => o.settings.resolution = value().parse().expect("--resolution X"),
            "--anisotropy" => o.settings.anisotropy = value().parse().expect("--anisotropy X"),
            "--max-error" => o.settings.max_error = value().parse().expect("--max-error X"),
            n => o.counts.push(n.parse().expect("a particle count")),
        }
    }
    if o.counts.is_empty() {
        o.counts = vec![30_000, 100_000, 1_000_000];
    }
    o
}

fn write_xyz_ply(path: &Path, points: &[Vec3]) {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    write!(f, "ply\nformat binary_little_endian 1.0\nelement vertex {}\nproperty float x\nproperty float y\nproperty float z\nend_header\n", points.len()).unwrap();
    for p in points {
        for v in p.to_array() {
            f.write_all(&v.to_le_bytes()).unwrap();
        }
    }
}

/// One splashsurf run: (process wall time, its own reconstruction time without file I/O).
fn run_splashsurf(o: &Options, input: &Path) -> Option<(Duration, Duration)> {
    let output = input.with_extension("splashsurf.ply");
    let start = Instant::now();
    let out = Command::new(&o.splashsurf)
        .args(["reconstruct", input.to_str()?, "-r", &R.to_string()])
        .args(["-l", "2.0", "-c", "0.5", "-n", &o.threads.to_string()])
        .args(SPLASHSURF_PLAIN)
        .args(["-o", output.to_str()?])
        .output()
        .ok()?;
    let wall = start.elapsed();
    if !out.status.success() {
        eprintln!(
            "splashsurf failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    // Its timing report ("    surface reconstruction: 99.90%, 341.84ms avg, 1 call ..."): the
    // reconstruction proper is the whole minus loading the file and writing the mesh.
    let log =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let ms_of = |label: &str| -> Option<f64> {
        let line = log.lines().find(|l| {
            l.trim_start_matches(|c| c != ']')
                .contains(&format!(" {label}:"))
        })?;
        let avg = line.split(", ").nth(1)?;
        avg.split("ms").next()?.trim().parse().ok()
    };
    let ms = ms_of("surface reconstruction")?
        - ms_of("loading particle positions").unwrap_or(0.0)
        - ms_of("write surface mesh to file").unwrap_or(0.0);
    Some((wall, Duration::from_secs_f64(ms / 1000.0)))
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

fn main() {
    let o = options();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(o.threads)
        .build()
        .unwrap();
    let mut table = Vec::new();
    for &n in &o.counts {
        let particles = bench_particles(n, R);
        let velocities = vec![Vec3::new(0.0, 0.0, -1.0); n];
        let colours = vec![[0.8, 0.5, 0.1]; n];
        let input = std::path::PathBuf::from(format!("/tmp/gloop_bench_{n}.ply"));
        write_xyz_ply(&input, &particles);
        let (mut ours, mut stages, mut wall, mut recon) = (vec![], vec![], vec![], vec![]);
        let mut size = (0, 0);
        for _ in 0..o.runs.max(1) {
            let start = Instant::now();
            let (mesh, laps) = pool.install(|| {
                mesh_particles_timed(&particles, &velocities, &colours, R, &o.settings, &[])
            });
            ours.push(start.elapsed());
            stages.push(laps);
            size = (mesh.positions.len(), mesh.triangles.len());
            drop(mesh);
            if let Some((w, r)) = run_splashsurf(&o, &input) {
                wall.push(w);
                recon.push(r);
            }
        }
        println!(
            "{n} particles: ours {} vertices, {} triangles; per stage (median):",
            size.0, size.1
        );
        for (k, (name, _)) in stages[0].iter().enumerate() {
            let t = median(stages.iter().map(|s| s[k].1).collect());
            println!("    {name:<30} {:>7.3} s", t.as_secs_f64());
        }
        let got = wall.len();
        table.push((n, median(ours), median(recon), median(wall), got));
    }
    println!(
        "\nmedians of {} alternating runs, {} threads, cube 0.5 r, ours with anisotropy {}; \
         splashsurf plain (no anisotropy in 0.14): -r {R} -l 2 -c 0.5 {}:",
        o.runs,
        o.threads,
        o.settings.anisotropy,
        SPLASHSURF_PLAIN.join(" ")
    );
    println!(
        "{:>9} | {:>10} | {:>21} | {:>16} | {:>13}",
        "particles", "ours (s)", "splashsurf recon (s)", "splashsurf wall", "ours / recon"
    );
    for (n, ours, recon, wall, got) in table {
        if got == 0 {
            println!(
                "{n:>9} | {:>10.3} | splashsurf did not run",
                ours.as_secs_f64()
            );
            continue;
        }
        println!(
            "{n:>9} | {:>10.3} | {:>21.3} | {:>16.3} | {:>13.2}",
            ours.as_secs_f64(),
            recon.as_secs_f64(),
            wall.as_secs_f64(),
            ours.as_secs_f64() / recon.as_secs_f64()
        );
    }
}
