//! Argument parsing (clap derive) and dispatch to one file per command.

mod bake_cmd;
mod bench;
mod frames;
mod heap_meter;
mod info;
mod mesh;
mod validate;

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use gloop::surface::SurfaceSettings;

/// Exit status of a bake stopped by its `cancel` file (finished frames are kept).
pub const EXIT_CANCELLED: i32 = 2;

#[derive(Parser)]
#[command(
    name = "gloop",
    version,
    about = "Bake highly viscous liquids (Steele et al. 2004)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Bake a built-in demo scene (honey-drop, paint-drops, fan, honey-pour) into a cache folder.
    Demo {
        /// Which demo.
        name: String,
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Bake a scene file (binary `.gloop` or JSON) into a cache folder.
    Bake {
        scene: PathBuf,
        #[command(flatten)]
        cache: CacheArgs,
    },
    /// Print what a cache folder holds: manifest, frames present, particle counts.
    Info { dir: PathBuf },
    /// Mesh (or re-mesh) a cache's particle files into surface files. Out-of-range values
    /// (negative ones included, hence `allow_hyphen_values`) are refused by the mesher's
    /// checks, naming the field.
    Mesh {
        dir: PathBuf,
        /// Frames to mesh, inclusive (default: all present).
        #[arg(long, value_parser = frames::parse_range, allow_hyphen_values = true)]
        frames: Option<(i32, i32)>,
        /// Marching-cubes cell size in particle radii (smaller = finer).
        #[arg(long, default_value_t = SurfaceSettings::default().resolution, allow_hyphen_values = true)]
        resolution: f32,
        /// 0 = raw particle field, 1 = very smooth.
        #[arg(long, default_value_t = SurfaceSettings::default().smoothness, allow_hyphen_values = true)]
        smoothness: f32,
        /// How far decimation may move the surface, in particle radii (0 = no decimation).
        #[arg(long, default_value_t = SurfaceSettings::default().max_error, allow_hyphen_values = true)]
        max_error: f32,
    },
    /// Measure solver speed and memory: median and mean seconds per frame, neighbour pairs per
    /// second, peak memory per particle.
    Bench {
        /// Frames to simulate per scene.
        #[arg(long, default_value_t = 10)]
        frames: u32,
        /// Demo names or scene files (default: every demo).
        scenes: Vec<String>,
        #[command(flatten)]
        overrides: bench::Overrides,
    },
    /// One scene of `gloop bench`, run in its own process; prints a JSON row.
    #[command(hide = true)]
    BenchOne {
        #[arg(long)]
        frames: u32,
        scene: String,
        #[command(flatten)]
        overrides: bench::Overrides,
    },
    /// Run the physical validation scenes and report PASS/FAIL per check.
    Validate {
        /// Scenes to run (default: all).
        names: Vec<String>,
    },
}

/// Where and how `demo` and `bake` write their cache.
#[derive(clap::Args)]
struct CacheArgs {
    /// Cache folder to write (created if missing). A folder holding an earlier bake's frames
    /// needs --overwrite (or --resume).
    #[arg(long)]
    out: PathBuf,
    /// Frames to bake, inclusive, e.g. `1..50` (default: the scene's range).
    #[arg(long, value_parser = frames::parse_range, allow_hyphen_values = true)]
    frames: Option<(i32, i32)>,
    /// Continue from the last complete frame in the cache folder.
    #[arg(long)]
    resume: bool,
    /// Replace the bake already in the cache folder. It is kept aside until the new bake
    /// finishes, and put back if the new bake fails.
    #[arg(long, conflicts_with = "resume")]
    overwrite: bool,
    /// Bake although the scene has cautions: a liquid object below the resolution (fewer
    /// than 50 particles) or over a million object particles. Without it such a bake is
    /// refused, naming them.
    #[arg(long)]
    confirm: bool,
    /// Write particle files only, no surface meshes (mesh later with `gloop mesh`).
    #[arg(long)]
    no_surface: bool,
}

impl CacheArgs {
    fn bake_args(&self) -> bake_cmd::BakeArgs {
        bake_cmd::BakeArgs {
            frames: self.frames,
            resume: self.resume,
            overwrite: self.overwrite,
            confirm: self.confirm,
            surface: !self.no_surface,
        }
    }
}

/// Parses the arguments, runs the command and returns the exit status.
pub fn run() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { name, cache } => bake_cmd::demo(&name, &cache.out, cache.bake_args()),
        Command::Bake { scene, cache } => {
            bake_cmd::bake_file(&scene, &cache.out, cache.bake_args())
        }
        Command::Info { dir } => info::run(&dir).map(|()| 0),
        Command::Mesh {
            dir,
            frames,
            resolution,
            smoothness,
            max_error,
        } => {
            let settings = SurfaceSettings {
                resolution,
                smoothness,
                max_error,
                ..SurfaceSettings::default()
            };
            mesh::run(&dir, frames, settings).map(|()| 0)
        }
        Command::Bench {
            frames,
            scenes,
            overrides,
        } => bench::run(frames, &scenes, &overrides).map(|()| 0),
        Command::BenchOne {
            frames,
            scene,
            overrides,
        } => bench::run_one(frames, &scene, &overrides).map(|()| 0),
        Command::Validate { names } => validate::run(&names),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            1
        }
    }
}

/// A demo scene by name, or an error listing the known names.
fn demo_scene(name: &str) -> gloop::Result<gloop::Scene> {
    use gloop::demos::{demo_scene, DEMO_NAMES};
    demo_scene(name).ok_or_else(|| {
        gloop::GloopError::Other(format!(
            "unknown demo '{name}'; known demos: {}",
            DEMO_NAMES.join(", ")
        ))
    })
}

fn demo_names() -> &'static [&'static str] {
    gloop::demos::DEMO_NAMES
}
