//! `gloop bench`: solver speed and memory on the demos (or given scene files).
//!
//! Per scene: median and mean wall-clock seconds per frame, neighbour pairs processed per second
//! (`FrameStats::neighbour_pairs` over solver time), and peak memory per particle, two ways:
//! - resident set: the rise of the process's peak resident set (`VmHWM`) over its resident set
//!   before the simulation was built, divided by liquid + object particles: what the OS sees,
//!   including code pages, thread stacks and freed memory the C allocator keeps;
//! - heap: the rise of the peak live heap (`heap_meter`) over the heap before the simulation
//!   was built, per particle: what the solver's data structures need.
//!
//! Beside the speed, how much of it was bought by stopping short: the share of substeps whose
//! density correction stopped at the pass cap rather than at the tolerance, and the largest
//! compression such a substep left.
//!
//! Substeps are adaptive (`gloop::sim::adaptive`): the table gives the mean a frame took.
//!
//! `--substeps`, `--max-substeps`, `--moves` and `--viscosity` run every scene with other steps or the paper's
//! explicit viscosity instead of its own, to measure what a scene's settings cost; such a row
//! is named with what was changed (`honey-drop[substeps=2]`) and shows no target, since the
//! targets are for the demos as they are.
//!
//! Each scene runs in a child process of its own
//! (`gloop bench-one`), so one scene's heap never inflates or hides another's peak. Nothing is
//! written to disk.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use super::heap_meter;
use gloop::scene::ViscosityModel;
use gloop::sim::adaptive::set_by_summary;
use gloop::{GloopError, Result, Scene, Simulation};
use serde::{Deserialize, Serialize};

/// What `gloop bench` may change in every scene it runs.
#[derive(clap::Args, Clone, Debug, Default, PartialEq)]
pub struct Overrides {
    /// Run every scene with this many substeps per frame at the least instead of its own
    /// minimum (frames take more when their speed asks, up to the maximum; a maximum below
    /// this is raised to it).
    #[arg(long)]
    pub substeps: Option<u32>,
    /// Run every scene with this most substeps per frame instead of its own (equal to
    /// `--substeps`, a fixed count).
    #[arg(long)]
    pub max_substeps: Option<u32>,
    /// Run every scene with this many moves per substep instead of its own.
    #[arg(long)]
    pub moves: Option<u32>,
    /// Run every scene with this viscosity model instead of its own: `implicit` (Gloop's,
    /// in physical units) or `classic` (the paper's explicit momentum exchange).
    #[arg(long, value_parser = parse_viscosity_model)]
    pub viscosity: Option<ViscosityModel>,
}

impl Overrides {
    fn apply(&self, scene: &mut Scene) {
        let settings = &mut scene.settings;
        settings.substeps = self.substeps.unwrap_or(settings.substeps);
        settings.max_substeps = match self.max_substeps {
            Some(n) => n,
            None => settings.max_substeps.max(settings.substeps),
        };
        settings.moves = self.moves.unwrap_or(settings.moves);
        settings.viscosity_model = self.viscosity.unwrap_or(settings.viscosity_model);
    }

    /// What the overrides change, as (flag, value), in the flags' order.
    fn changes(&self) -> Vec<(&'static str, String)> {
        [
            ("substeps", self.substeps.map(|n| n.to_string())),
            ("max-substeps", self.max_substeps.map(|n| n.to_string())),
            ("moves", self.moves.map(|n| n.to_string())),
            (
                "viscosity",
                self.viscosity.map(|m| viscosity_model_name(m).to_string()),
            ),
        ]
        .into_iter()
        .filter_map(|(flag, value)| Some((flag, value?)))
        .collect()
    }

    fn change_nothing(&self) -> bool {
        self.changes().is_empty()
    }

    /// A row's name: the scene's, with what was changed in brackets (a count with what it
    /// counts, a model by its name: `honey-drop[substeps=2,classic]`).
    fn label(&self, name: &str) -> String {
        if self.change_nothing() {
            return name.to_string();
        }
        let shown: Vec<String> = self
            .changes()
            .into_iter()
            .map(|(flag, value)| match flag {
                "viscosity" => value,
                _ => format!("{flag}={value}"),
            })
            .collect();
        format!("{name}[{}]", shown.join(","))
    }

    /// The same overrides as arguments for a `gloop bench-one` child.
    fn to_args(&self) -> Vec<String> {
        self.changes()
            .into_iter()
            .flat_map(|(flag, value)| [format!("--{flag}"), value])
            .collect()
    }
}

fn parse_viscosity_model(text: &str) -> std::result::Result<ViscosityModel, String> {
    match text {
        "implicit" => Ok(ViscosityModel::Implicit),
        "classic" => Ok(ViscosityModel::Classic),
        _ => Err(format!(
            "'{text}' is not a viscosity model (implicit, classic)"
        )),
    }
}

fn viscosity_model_name(model: ViscosityModel) -> &'static str {
    match model {
        ViscosityModel::Implicit => "implicit",
        ViscosityModel::Classic => "classic",
    }
}

#[derive(Serialize, Deserialize)]
struct Row {
    name: String,
    liquid: usize,
    object: usize,
    median_s: f64,
    /// Mean seconds per frame: unlike the median, it moves when a few heavy frames (an impact)
    /// change.
    mean_s: f64,
    pairs_per_s: f64,
    peak_bytes: u64,
    bytes_per_particle: f64,
    /// Peak live heap of the simulation per particle.
    heap_bytes_per_particle: f64,
    /// Substeps per frame, the mean over the frames (adaptive: between the scene's
    /// `substeps` and `max_substeps`).
    substeps: f64,
    /// The most substeps any frame took.
    most_substeps: u32,
    /// Which bound set the frames' substeps (`sim::adaptive::Bound`), with how many frames
    /// each set, most first: "stretch 8, speed 2".
    #[serde(default)]
    substeps_set_by: String,
    /// Density-correction passes per substep, averaged over the frames: where the time goes.
    density_passes: f64,
    /// Share of substeps whose correction stopped at the pass cap, short of the tolerance.
    capped_share: f64,
    /// Largest compression ρ/ρ0 − 1 any substep's correction left: how far short of the
    /// tolerance the capped substeps stopped.
    worst_compression: f64,
}

pub fn run(frames: u32, scenes: &[String], overrides: &Overrides) -> Result<()> {
    at_least_one(frames)?;
    let names: Vec<String> = if scenes.is_empty() {
        super::demo_names().iter().map(|s| s.to_string()).collect()
    } else {
        scenes.to_vec()
    };
    // Load everything first so a typo fails before minutes of benchmarking.
    for name in &names {
        load(name, overrides)?;
    }
    println!(
        "gloop bench: {frames} frames per scene, {} threads",
        rayon::current_num_threads()
    );
    let mut rows = Vec::new();
    for name in &names {
        eprintln!("  running {} ...", overrides.label(name));
        rows.push(run_child(name, frames, overrides)?);
    }
    print_table(&rows, overrides);
    Ok(())
}

/// A median needs a frame.
fn at_least_one(frames: u32) -> Result<()> {
    if frames == 0 {
        return Err(GloopError::Other("--frames must be at least 1".into()));
    }
    Ok(())
}

/// Runs one scene in a fresh `gloop bench-one` process and parses its result line.
fn run_child(name: &str, frames: u32, overrides: &Overrides) -> Result<Row> {
    let exe = std::env::current_exe().map_err(|e| GloopError::Other(e.to_string()))?;
    let out = Command::new(&exe)
        .args(["bench-one", "--frames", &frames.to_string(), name])
        .args(overrides.to_args())
        .output()
        .map_err(|e| GloopError::io(&exe, e))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let message = stderr.trim().trim_start_matches("error: ");
        return Err(GloopError::Other(format!(
            "bench of {name} failed: {message}"
        )));
    }
    let line = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(line.trim())
        .map_err(|e| GloopError::Other(format!("bench of {name}: unreadable result ({e})")))
}

/// `gloop bench-one`: benchmarks one scene in this process and prints its row as JSON.
pub fn run_one(frames: u32, name: &str, overrides: &Overrides) -> Result<()> {
    at_least_one(frames)?;
    let scene = load(name, overrides)?;
    let row = bench_scene(&overrides.label(name), &scene, frames)?;
    println!("{}", serde_json::to_string(&row).expect("a row serializes"));
    Ok(())
}

/// A demo or scene file, with the overrides applied (and checked: `--substeps 0` is refused
/// here, before any benchmarking, as a scene file saying so would be).
fn load(name: &str, overrides: &Overrides) -> Result<Scene> {
    let mut scene = if super::demo_names().contains(&name) {
        super::demo_scene(name)?
    } else if Path::new(name).exists() {
        Scene::load(Path::new(name))?
    } else {
        return Err(GloopError::Other(format!(
            "'{name}' is neither a demo ({}) nor a scene file",
            super::demo_names().join(", ")
        )));
    };
    if !overrides.change_nothing() {
        overrides.apply(&mut scene);
        scene.validate().map_err(|e| {
            GloopError::Other(format!(
                "{name} with {}: {e}",
                overrides.to_args().join(" ")
            ))
        })?;
    }
    Ok(scene)
}

fn bench_scene(name: &str, scene: &Scene, frames: u32) -> Result<Row> {
    let baseline = proc_status_bytes("VmRSS:").unwrap_or(0);
    let heap_baseline = heap_meter::live_bytes();
    heap_meter::reset_peak();
    let mut sim = Simulation::new(scene)?;
    let never = AtomicBool::new(false);
    let mut seconds = Vec::new();
    let mut pairs: u64 = 0;
    let mut passes: u64 = 0;
    let mut capped: u64 = 0;
    let mut worst_compression = 0.0f64;
    let (mut substeps, mut most_substeps) = (0u64, 0u32);
    let mut bounds = Vec::new();
    let (mut liquid, mut object) = (sim.liquid().len(), sim.object_positions().len());
    for _ in 0..frames {
        let t = Instant::now();
        let stats = sim.step_frame(&never)?;
        seconds.push(t.elapsed().as_secs_f64());
        pairs += stats.neighbour_pairs;
        passes += stats.density_iterations as u64;
        capped += stats.capped_substeps as u64;
        substeps += stats.substeps as u64;
        most_substeps = most_substeps.max(stats.substeps);
        bounds.push(stats.substep_bound);
        worst_compression = worst_compression.max(stats.worst_density_error as f64);
        liquid = liquid.max(stats.liquid_particles);
        object = object.max(stats.object_particles);
    }
    let peak = proc_status_bytes("VmHWM:").unwrap_or(0);
    let heap_peak = heap_meter::peak_bytes();
    let total: f64 = seconds.iter().sum();
    seconds.sort_by(|a, b| a.total_cmp(b));
    let median_s = if seconds.len() % 2 == 1 {
        seconds[seconds.len() / 2]
    } else {
        (seconds[seconds.len() / 2 - 1] + seconds[seconds.len() / 2]) / 2.0
    };
    let particles = (liquid + object).max(1);
    let substeps = substeps.max(1) as f64;
    Ok(Row {
        name: name.to_string(),
        liquid,
        object,
        median_s,
        mean_s: total / frames as f64,
        pairs_per_s: pairs as f64 / total.max(1e-12),
        peak_bytes: peak,
        bytes_per_particle: peak.saturating_sub(baseline) as f64 / particles as f64,
        heap_bytes_per_particle: heap_peak.saturating_sub(heap_baseline) as f64 / particles as f64,
        substeps: substeps / frames as f64,
        most_substeps,
        substeps_set_by: set_by_summary(bounds),
        density_passes: passes as f64 / substeps,
        capped_share: capped as f64 / substeps,
        worst_compression,
    })
}

/// Issue 2's targets on the 2-core reference machine: seconds per frame (the paper's in
/// brackets) and bytes per particle.
fn target(name: &str) -> &'static str {
    match name {
        "honey-drop" => "<=0.040 s (paper 4.0), <=300 B",
        "paint-drops" => "(paper 2.5 s), <=300 B",
        "fan" => "<=0.5 s (paper 65), <=300 B",
        _ => "",
    }
}

/// The table, one row per scene. The targets column is left out when the scenes were changed.
fn print_table(rows: &[Row], overrides: &Overrides) {
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(14);
    let changed = !overrides.change_nothing();
    println!(
        "{:<width$} {:>9} {:>9} {:>13} {:>14} {:>18} {:>14} {:>10} {:>10} {:>10} {:>15} {:>7} {:>9}  {:<24} {}",
        "scene",
        "liquid",
        "object",
        "s/frame(med)",
        "s/frame(mean)",
        "substeps(mean/max)",
        "pairs/s",
        "peak MB",
        "B/particle",
        "heap B/p",
        "passes/substep",
        "capped",
        "worst ρ%",
        "substeps set by (frames)",
        if changed { "" } else { "target" }
    );
    for r in rows {
        println!(
            "{:<width$} {:>9} {:>9} {:>13.4} {:>14.4} {:>18} {:>14.3e} {:>10.1} {:>10.0} {:>10.0} {:>15.1} {:>6.0}% {:>9.2}  {:<24} {}",
            r.name,
            r.liquid,
            r.object,
            r.median_s,
            r.mean_s,
            format!("{:.1}/{}", r.substeps, r.most_substeps),
            r.pairs_per_s,
            r.peak_bytes as f64 / 1e6,
            r.bytes_per_particle,
            r.heap_bytes_per_particle,
            r.density_passes,
            100.0 * r.capped_share,
            100.0 * r.worst_compression,
            r.substeps_set_by,
            if changed { "" } else { target(&r.name) }
        );
    }
}

/// A `kB` line of /proc/self/status, in bytes (None off Linux).
fn proc_status_bytes(key: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = text.lines().find(|l| l.starts_with(key))?;
    let kb: u64 = line[key.len()..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kb * 1024)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct BenchOneArgs {
        #[command(flatten)]
        overrides: Overrides,
    }

    /// A child `gloop bench-one` must run the scene the parent was asked for: the overrides
    /// survive the trip through its arguments.
    #[test]
    fn overrides_reach_the_child_unchanged() {
        let cases = [
            Overrides::default(),
            Overrides {
                substeps: Some(2),
                ..Overrides::default()
            },
            Overrides {
                substeps: Some(3),
                max_substeps: Some(8),
                moves: Some(5),
                viscosity: Some(ViscosityModel::Classic),
            },
            Overrides {
                viscosity: Some(ViscosityModel::Implicit),
                ..Overrides::default()
            },
        ];
        for overrides in cases {
            let args = std::iter::once("bench-one".to_string()).chain(overrides.to_args());
            let parsed = BenchOneArgs::try_parse_from(args).unwrap().overrides;
            assert_eq!(parsed, overrides);
        }
    }

    #[test]
    fn overrides_change_only_what_they_name() {
        let mut scene = super::super::demo_scene("honey-drop").unwrap();
        let own = scene.settings.clone();
        Overrides {
            moves: Some(own.moves + 3),
            ..Overrides::default()
        }
        .apply(&mut scene);
        assert_eq!(scene.settings.moves, own.moves + 3);
        assert_eq!(scene.settings.substeps, own.substeps);
        assert_eq!(scene.settings.viscosity_model, own.viscosity_model);
        let overrides = Overrides {
            substeps: Some(2),
            viscosity: Some(ViscosityModel::Classic),
            ..Overrides::default()
        };
        assert_eq!(overrides.label("fan"), "fan[substeps=2,classic]");
        assert_eq!(Overrides::default().label("fan"), "fan");
    }
}
