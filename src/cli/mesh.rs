//! `gloop mesh DIR`: (re)mesh the particle files of a cache into surface files, e.g. after a
//! bake with `--no-surface` or to try other surface settings. The work, and the checks on
//! the arguments and the manifest, are the library's [`gloop::remesh`].

use std::path::Path;

use gloop::remesh::{remesh, RemeshOptions, RemeshProgress};
use gloop::surface::SurfaceSettings;
use gloop::Result;
use indicatif::{ProgressBar, ProgressStyle};

pub fn run(dir: &Path, frames: Option<(i32, i32)>, settings: SurfaceSettings) -> Result<()> {
    let bar = ProgressBar::new(0).with_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} frames  {msg}")
            .expect("a valid progress template"),
    );
    let mut on_frame = |p: &RemeshProgress| {
        bar.set_length(p.frames_total as u64);
        bar.set_position(p.frames_done as u64);
        bar.set_message(p.line.to_string());
    };
    let options = RemeshOptions {
        frames,
        settings,
        ..RemeshOptions::default()
    };
    let result = remesh(dir, &options, &mut on_frame);
    bar.finish_and_clear();
    let summary = result?;
    let triangles = summary.last.and_then(|l| l.triangles).unwrap_or(0);
    println!(
        "meshed {} frames in {} (last: {triangles} triangles)",
        summary.frames_meshed,
        dir.display()
    );
    Ok(())
}
