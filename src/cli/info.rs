//! `gloop info DIR`: what a cache folder holds.

use std::path::Path;

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
        Ok(Some(holder)) if holder.is_stale() => {
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
    println!("  frame  liquid particles");
    for frame in particle_frames {
        match read_particles_header(&cache.particles(frame)) {
            Ok(h) => println!("  {frame:>5}  {}", h.particles),
            Err(e) => println!("  {frame:>5}  unreadable: {e}"),
        }
    }
    Ok(())
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
