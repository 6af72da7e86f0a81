//! `gloop info DIR`: what a cache folder holds, and which of its frames are damaged or
//! missing: every frame file is checked against the size and hash the manifest recorded when
//! it was written (see `gloop::cache::check`), so a file cut short shows as such, not at the
//! particle count its header announces.

use std::path::Path;

use gloop::cache::check::{check_frames, FileState, FrameCheck};
use gloop::cache::{read_particles_header, CacheDir, Manifest, Status};
use gloop::{GloopError, Result};

pub fn run(dir: &Path) -> Result<()> {
    if !dir.is_dir() {
        return Err(GloopError::file(dir, "no such cache folder"));
    }
    let cache = CacheDir::new(dir);
    let manifest = Manifest::read(&cache.manifest())?;
    println!("cache {}", dir.display());
    println!(
        "  format {}, written by gloop {}, scene hash {}",
        manifest.format_version, manifest.gloop_version, manifest.scene_hash
    );
    println!(
        "  frames {}..{} at {} fps, particle radius {} m",
        manifest.frame_start, manifest.frame_end, manifest.fps, manifest.particle_radius
    );
    match manifest.last_complete_frame {
        Some(f) => println!("  last complete frame {f}"),
        None => println!("  no complete frame yet"),
    }
    for (id, l) in manifest.liquids.iter().enumerate() {
        let [r, g, b] = l.colour;
        println!("  liquid {id}: {} (colour {r:.3} {g:.3} {b:.3})", l.name);
    }
    if let Ok(status) = Status::read(&cache.status()) {
        println!(
            "  status: {} at frame {} ({}/{} frames, {:.1} s){}",
            format!("{:?}", status.state).to_lowercase(),
            status.frame,
            status.frames_done,
            status.frames_total,
            status.elapsed_s,
            status
                .error
                .map(|e| format!(", error: {e}"))
                .unwrap_or_default()
        );
    }
    match gloop::cache::lock_holder(dir) {
        Ok(Some(holder)) if holder.is_stale(dir) => {
            println!("  lock: left by {}, which is gone", holder.describe())
        }
        Ok(Some(holder)) => println!("  in use by {}", holder.describe()),
        Ok(None) => {}
        Err(e) => println!("  lock: {e}"),
    }
    let replaced = dir.join(gloop::bake::REPLACED_FOLDER);
    if replaced.is_dir() {
        println!(
            "  the bake this one replaces is kept in {} until a bake here finishes",
            replaced.display()
        );
    }
    let io = |e| GloopError::io(dir, e);
    let particle_frames = cache.frames_present("particles").map_err(io)?;
    let surface_frames = cache.frames_present("surface").map_err(io)?;
    println!(
        "  particle files: {} ({})",
        particle_frames.len(),
        ranges(&particle_frames)
    );
    println!(
        "  surface files: {} ({})",
        surface_frames.len(),
        ranges(&surface_frames)
    );
    let checks = check_frames(&cache, &manifest)?;
    // Interior shells of the surface (see `gloop::surface::cavities`): the air pockets kept
    // and the phantom voids filled. Caches meshed before they were counted have no columns.
    let shells = |frame: i32| {
        let files = manifest.frames.get(&frame)?;
        Some((files.air_pockets?, files.voids_filled.unwrap_or(0)))
    };
    let counted = checks.iter().any(|c| shells(c.frame).is_some());
    match counted {
        true => println!("  frame  air pockets  voids filled  liquid particles"),
        false => println!("  frame  liquid particles"),
    }
    for check in &checks {
        let line = frame_line(&cache, check);
        match (counted, shells(check.frame)) {
            (false, _) => println!("  {:>5}  {line}", check.frame),
            (true, Some((kept, filled))) => {
                println!("  {:>5}  {kept:>11}  {filled:>12}  {line}", check.frame)
            }
            (true, None) => println!("  {:>5}  {:>11}  {:>12}  {line}", check.frame, "-", "-"),
        }
    }
    println!("{}", damage_summary(&checks));
    Ok(())
}

/// The particle count of a sound frame, or what is wrong with it.
fn frame_line(cache: &CacheDir, check: &FrameCheck) -> String {
    if check.is_broken() {
        return format!("damaged: {}", check.describe());
    }
    let count = match check.particles {
        FileState::Absent => "no particle file".to_string(),
        _ => match read_particles_header(&cache.particles(check.frame)) {
            Ok(h) => h.particles.to_string(),
            Err(e) => format!("unreadable: {e}"),
        },
    };
    let unrecorded = [&check.particles, &check.surface]
        .iter()
        .any(|s| **s == FileState::Unrecorded);
    match unrecorded {
        true => format!("{count} (no record to check it against)"),
        false => count,
    }
}

/// One line: the damaged or missing frames, or that every recorded file checked out.
fn damage_summary(checks: &[FrameCheck]) -> String {
    let broken: Vec<i32> = checks
        .iter()
        .filter(|c| c.is_broken())
        .map(|c| c.frame)
        .collect();
    if broken.is_empty() {
        return "  every recorded frame file matches its size and hash".into();
    }
    let first_lost = checks.iter().find(|c| c.particles.is_broken());
    let repair = match first_lost {
        Some(c) => format!("a resume bakes again from frame {}", c.frame),
        None => "a resume meshes their surfaces again".to_string(),
    };
    format!(
        "  damaged or missing frames: {} ({} frames); {repair}",
        ranges(&broken),
        broken.len()
    )
}

/// `1..5, 8, 10..12` for a sorted list of frames.
fn ranges(frames: &[i32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < frames.len() {
        let mut j = i;
        while j + 1 < frames.len() && frames[j + 1] == frames[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            frames[i].to_string()
        } else {
            format!("{}..{}", frames[i], frames[j])
        });
        i = j + 1;
    }
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}
