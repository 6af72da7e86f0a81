//! The scene fuzzer of `tests/scene_fuzz.rs`, for as long as it is given:
//! `cargo run --release --example fuzz_scenes -- --minutes 30 [--seed N]`. Prints the number
//! of variants run, their outcomes and every finding (a case that panicked, crashed or hung),
//! each reproducible from the seed and its case number.

use std::process::Command;
use std::time::{Duration, Instant};

use gloop::fuzz;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .map(|v| {
                v.parse::<f64>()
                    .unwrap_or_else(|_| panic!("{flag} takes a number"))
            })
    };
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let n = |k: usize| {
            args[i + k]
                .parse::<u64>()
                .expect("--child SEED FIRST COUNT")
        };
        fuzz::run_child(n(1), n(2), n(3), &mut std::io::stdout());
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--scan") {
        // `--scan SEED COUNT`: only the mutations, for the mutator's own bugs.
        let n = |k: usize| args[i + k].parse::<u64>().expect("--scan SEED COUNT");
        for case in 0..n(2) {
            if std::panic::catch_unwind(|| fuzz::case_input(n(1), case)).is_err() {
                println!("mutator panicked at case {case}");
            }
        }
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--dump") {
        // `--dump SEED CASE`: the case's file, and its scene as JSON if it reads.
        let n = |k: usize| args[i + k].parse::<u64>().expect("--dump SEED CASE");
        let input = fuzz::case_input(n(1), n(2));
        println!("{}", input.label);
        let origin = std::path::Path::new("case");
        let scene = if input.json {
            gloop::Scene::from_json(&String::from_utf8_lossy(&input.bytes), origin)
        } else {
            gloop::Scene::from_binary(&input.bytes, origin)
        };
        match scene {
            Ok(scene) => println!("{}", scene.to_json()),
            Err(e) => println!("unreadable: {e}"),
        }
        return;
    }
    let minutes = value("--minutes").unwrap_or(1.0);
    let seed = value("--seed").unwrap_or(30.0) as u64;
    let exe = std::env::current_exe().expect("this example's path");
    let child = |first: u64| {
        let mut command = Command::new(&exe);
        command.args([
            "--child",
            &seed.to_string(),
            &first.to_string(),
            &u64::MAX.to_string(),
        ]);
        command
    };
    let started = Instant::now();
    let until = started + Duration::from_secs_f64(minutes * 60.0);
    let report = fuzz::supervise(&child, u64::MAX, Some(until), Duration::from_secs(60));
    println!(
        "{} scene variants in {:.1} min (seed {seed}): {:?}; slowest case {:?}",
        report.cases,
        started.elapsed().as_secs_f64() / 60.0,
        report.outcomes,
        report.slowest
    );
    for f in &report.findings {
        println!("finding: case {} ({}): {}", f.case, f.label, f.what);
    }
    if !report.findings.is_empty() {
        std::process::exit(1);
    }
}
