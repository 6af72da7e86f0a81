//! Benchmark: the honey pour (`demos::honey_pour::scene`) timed frame by frame, for
//! tools/compare_splishsplash.py's `--pour`.
//!
//! `cargo run --release --example pour_bench -- RADIUS FPS SECONDS [DUMP_DIR]` prints one line
//! per frame, `frame K: S s, N substeps, P particles`, S being the wall time of `step_frame`
//! alone, and with DUMP_DIR writes each frame's liquid positions there as `KKKK.bin` (raw
//! little-endian f32 x y z, z up; written outside the timed call).

#[path = "support/dump.rs"]
mod dump;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use gloop::demos::honey_pour;
use gloop::Simulation;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize| a[i].parse::<f32>().expect("RADIUS FPS SECONDS [DUMP_DIR]");
    let (radius, fps, seconds) = (num(0), num(1), num(2));
    let scene = honey_pour::scene(radius, fps, seconds);
    let dump_dir = dump::folder(a.get(3));
    let s = &scene.settings;
    println!(
        "pour: r {radius} m, {fps} fps, {seconds} s, substeps {}..{}, moves {}",
        s.substeps, s.max_substeps, s.moves
    );
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let frames = (seconds * fps).round() as usize;
    for frame in 1..=frames {
        let t = Instant::now();
        let stats = sim.step_frame(&cancel).unwrap();
        let wall = t.elapsed().as_secs_f64();
        let positions = &sim.liquid().position;
        println!(
            "frame {frame}: {wall:.4} s, {} substeps, {} particles",
            stats.substeps,
            positions.len()
        );
        if let Some(d) = &dump_dir {
            dump::write(d, frame, positions);
        }
    }
}
