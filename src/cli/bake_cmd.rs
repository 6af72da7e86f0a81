//! `gloop bake` and `gloop demo`: run a bake with a progress bar.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use gloop::bake::{bake_locked, BakeOptions, BakeOutcome, BakeProgress};
use gloop::cache::{lock, CacheLock, FrameLine};
use gloop::sim::{FrameStats, PassCapReport};
use gloop::{Result, Scene};
use indicatif::{ProgressBar, ProgressStyle};

/// What to bake and how; the flags of `gloop bake` and `gloop demo`.
pub struct BakeArgs {
    pub frames: Option<(i32, i32)>,
    pub resume: bool,
    pub overwrite: bool,
    /// The scene's cautions are confirmed (`--confirm`).
    pub confirm: bool,
    /// Mesh surfaces alongside the particles.
    pub surface: bool,
}

pub fn bake_file(scene: &Path, out: &Path, args: BakeArgs) -> Result<i32> {
    let scene = Scene::load(scene)?;
    run(&scene, out, args)
}

pub fn demo(name: &str, out: &Path, args: BakeArgs) -> Result<i32> {
    let scene = super::demo_scene(name)?;
    run(&scene, out, args)
}

fn run(scene: &Scene, out: &Path, args: BakeArgs) -> Result<i32> {
    for warning in gloop::sim::scene_warnings(scene)? {
        println!("warning: {warning}");
    }
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} frames  {msg}")
            .expect("a valid progress template"),
    );
    // A stats line per frame above the bar, as FLIP Fluids prints (kept in a piped log too).
    let stats_bar = bar.clone();
    let defaults = BakeOptions::default();
    let options = BakeOptions {
        resume: args.resume,
        overwrite: args.overwrite,
        confirmed: args.confirm,
        frames: args.frames,
        surface: defaults.surface.clone().filter(|_| args.surface),
        on_stats: Some(Arc::new(move |line: &FrameLine| {
            print_line(&stats_bar, line)
        })),
        ..defaults
    };
    bar.enable_steady_tick(Duration::from_millis(250));
    let mut on_progress = |p: &BakeProgress| {
        bar.set_length(p.frames_total as u64);
        bar.set_position(p.frames_done as u64);
        bar.set_message(progress_message(p));
    };
    let lock = CacheLock::acquire(out, if args.resume { "resume" } else { "bake" })?;
    // A `cancel` file left by an earlier run would stop this bake at once. Under the lock:
    // a cancel meant for a bake still running is not this command's to remove.
    gloop::bake::remove_stale_cancel(out)?;
    stop_on_interrupt(&options, lock.path());
    let result = bake_locked(&lock, scene, &options, &mut on_progress);
    drop(lock);
    bar.finish_and_clear();
    let summary = result?;
    for repair in &summary.repairs {
        println!("damaged: {repair}");
    }
    let frames_simulated = summary.stats.len();
    match summary.outcome {
        BakeOutcome::Finished => {
            println!(
                "baked frames {}..{} into {} ({frames_simulated} simulated in {:.1} s)",
                summary.first_frame,
                summary.last_frame,
                out.display(),
                summary.elapsed_s
            );
            if let Some(note) = pass_cap_note(scene, &summary.stats) {
                println!("{note}");
            }
            if let Some(note) = substeps_note(scene, &summary.stats) {
                println!("{note}");
            }
            Ok(0)
        }
        BakeOutcome::Cancelled => {
            println!(
                "cancelled: frames up to {} are kept in {}; continue with --resume",
                summary.last_frame,
                out.display()
            );
            Ok(super::EXIT_CANCELLED)
        }
    }
}

/// A note when some substeps' density correction stopped at its pass cap short of the
/// tolerance: the liquid was left compressed there, which a bake should not hide.
fn pass_cap_note(scene: &Scene, stats: &[FrameStats]) -> Option<String> {
    let capped = PassCapReport::of(stats);
    if capped.frames == 0 {
        return None;
    }
    let s = &scene.settings;
    Some(format!(
        "note: in {} of {} frames ({} substeps) the density correction stopped at its pass \
         cap (max_density_iterations = {}) with the liquid up to {:.1}% compressed \
         (density_tolerance {:.1}%); a higher cap keeps its volume",
        capped.frames,
        stats.len(),
        capped.substeps,
        s.max_density_iterations,
        100.0 * capped.worst_compression,
        100.0 * s.density_tolerance
    ))
}

/// The substeps the frames took, and a warning when some wanted more than `max_substeps`.
fn substeps_note(scene: &Scene, stats: &[FrameStats]) -> Option<String> {
    let counts = stats.iter().map(|s| s.substeps);
    let (fewest, most) = (counts.clone().min()?, counts.clone().max()?);
    let mean = counts.map(f64::from).sum::<f64>() / stats.len() as f64;
    let set_by = gloop::sim::adaptive::set_by_summary(stats.iter().map(|s| s.substep_bound));
    let mut note = format!("substeps per frame: {fewest}-{most}, mean {mean:.1} (set by {set_by})");
    let capped = stats.iter().filter(|s| s.substeps_capped).count();
    if capped > 0 {
        let fastest = stats.iter().map(|s| s.substep_speed).fold(0.0f32, f32::max);
        note += &format!(
            "\nwarning: in {capped} of {} frames the liquid or an obstacle (up to {fastest:.2} \
             m/s) asked for more substeps than max_substeps = {}; particles moved more than \
             the particle radius per move there and may pass through thin obstacles",
            stats.len(),
            scene.settings.max_substeps
        );
    }
    Some(note)
}

/// Ctrl-C (or SIGTERM) asks the bake to stop as its `cancel` file does: within a substep,
/// keeping every finished frame, with `status.json` saying "cancelled" and `--resume` able to
/// continue. A second Ctrl-C exits at once (the finished frames are on disk either way),
/// releasing the cache lock at `lock_file` itself since destructors do not run then.
fn stop_on_interrupt(options: &BakeOptions, lock_file: &Path) {
    let cancel = options.cancel.clone();
    let lock_file = lock_file.to_path_buf();
    let installed = ctrlc::set_handler(move || {
        if cancel.swap(true, std::sync::atomic::Ordering::AcqRel) {
            lock::release_if_mine(&lock_file);
            std::process::exit(130);
        }
        eprintln!("\nstopping after the current substep (Ctrl-C again to quit now)");
    });
    // Only one handler per process; a second bake in the same process keeps the first.
    if let Err(ctrlc::Error::System(e)) = installed {
        eprintln!("warning: Ctrl-C will not stop the bake gracefully ({e})");
    }
}

/// Above the bar on a terminal; as a plain line when output is piped (the bar is hidden
/// then, and `ProgressBar::println` would drop the line).
fn print_line(bar: &ProgressBar, line: &FrameLine) {
    if bar.is_hidden() {
        println!("{line}");
    } else {
        bar.println(line.to_string());
    }
}

fn progress_message(p: &BakeProgress) -> String {
    let eta = match p.eta_s {
        Some(s) => format!("ETA {}", format_duration(s)),
        None => "ETA --".to_string(),
    };
    let substeps = match &p.stats {
        Some(stats) => format!("  {} substeps", stats.substeps),
        None => String::new(),
    };
    format!(
        "frame {}  {} liquid + {} object particles{substeps}  {eta}",
        p.frame, p.liquid_particles, p.object_particles
    )
}

fn format_duration(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s % 3600 / 60)
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}
