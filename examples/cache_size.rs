//! Cache size and triangles per frame of surface caches, side by side, and how far apart their
//! surfaces are (issue 33: a fifth of the size, within 0.25 r of today's surface).
//!
//! For each cache folder: bytes of its surface files and of the whole folder, and triangles and
//! vertices per frame (from the PLY headers); ratios against the first folder. With
//! `--compare FRAME`, the symmetric Hausdorff distance (in particle radii) between the first
//! folder's surface of that frame and each other's, and for each folder the angle between the
//! area-weighted vertex normals of its frame (what files used to carry) and the corner-angle
//! weighted ones Blender computes for a smooth-shaded mesh (what it shows without them).
//!
//! To measure a change of the mesher on the honey-drop demo:
//!   gloop demo honey-drop --out P --no-surface   # particles only, once
//!   cp -r P A; cp -r P B
//!   OLD_GLOOP mesh A; gloop mesh B
//!   cargo run --release --example cache_size -- A B --compare 200

use std::path::{Path, PathBuf};

use glam::Vec3;
use gloop::cache::{CacheDir, Manifest};
use gloop::surface::hausdorff::hausdorff;
use gloop::surface::read_surface_ply;

#[derive(Default)]
struct Totals {
    frames: usize,
    surface_bytes: u64,
    folder_bytes: u64,
    triangles: Vec<usize>,
    vertices: Vec<usize>,
}

fn main() {
    let mut folders = vec![];
    let mut compare = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--compare" => compare = args.next().and_then(|f| f.parse::<i32>().ok()),
            _ => folders.push(PathBuf::from(a)),
        }
    }
    if folders.is_empty() {
        eprintln!("usage: cache_size DIR [DIR..] [--compare FRAME]");
        std::process::exit(2);
    }
    let totals: Vec<Totals> = folders.iter().map(|f| totals(f)).collect();
    println!(
        "{:<28} {:>6} {:>14} {:>14} {:>9} {:>12} {:>12} {:>10}",
        "cache",
        "frames",
        "surface bytes",
        "folder bytes",
        "ratio",
        "tris/frame",
        "max tris",
        "max verts"
    );
    for (folder, t) in folders.iter().zip(&totals) {
        let mean = t.triangles.iter().sum::<usize>() / t.frames.max(1);
        println!(
            "{:<28} {:>6} {:>14} {:>14} {:>9.3} {:>12} {:>12} {:>10}",
            folder.display().to_string(),
            t.frames,
            t.surface_bytes,
            t.folder_bytes,
            t.folder_bytes as f64 / totals[0].folder_bytes as f64,
            mean,
            t.triangles.iter().max().unwrap_or(&0),
            t.vertices.iter().max().unwrap_or(&0),
        );
    }
    if let Some(frame) = compare {
        compare_frame(&folders, frame);
    }
}

fn totals(folder: &Path) -> Totals {
    let mut t = Totals::default();
    let mut names: Vec<PathBuf> = std::fs::read_dir(folder)
        .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        t.folder_bytes += bytes;
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if name.starts_with("surface_") && name.ends_with(".ply") {
            let (vertices, triangles) = header_counts(&path);
            t.frames += 1;
            t.surface_bytes += bytes;
            t.vertices.push(vertices);
            t.triangles.push(triangles);
        }
    }
    t
}

/// Vertex and face counts from a PLY header (the payload is not read).
fn header_counts(path: &Path) -> (usize, usize) {
    use std::io::BufRead;
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let (mut vertices, mut faces) = (0, 0);
    for line in file.split(b'\n') {
        let line = String::from_utf8_lossy(&line.unwrap()).trim().to_string();
        let words: Vec<&str> = line.split_whitespace().collect();
        match words[..] {
            ["element", "vertex", n] => vertices = n.parse().unwrap(),
            ["element", "face", n] => faces = n.parse().unwrap(),
            ["end_header"] => break,
            _ => {}
        }
    }
    (vertices, faces)
}

fn compare_frame(folders: &[PathBuf], frame: i32) {
    let cache = CacheDir::new(&folders[0]);
    let r = Manifest::read(&cache.manifest())
        .expect("a manifest with the particle radius")
        .particle_radius;
    let meshes: Vec<_> = folders
        .iter()
        .map(|f| read_surface_ply(&CacheDir::new(f).surface(frame)).expect("the frame's surface"))
        .collect();
    let base = &meshes[0];
    println!("frame {frame}, r = {r}:");
    for (folder, mesh) in folders.iter().zip(&meshes) {
        let (to, from) = hausdorff(
            (&base.positions, &base.triangles),
            (&mesh.positions, &mesh.triangles),
            10.0 * r,
        );
        let (rms, max) = normal_angles(&mesh.positions, &mesh.triangles);
        let report = gloop::surface::quality::measure(mesh);
        println!(
            "  {}: Hausdorff to the first {:.3} r (first to it {:.3} r, it to first {:.3} r); \
             area- vs angle-weighted normals: RMS {rms:.2}°, max {max:.1}°; {} triangles, \
             {} components, {} bad and {} flipped edges",
            folder.display(),
            to.max(from) / r,
            to / r,
            from / r,
            report.triangles,
            report.components,
            report.bad_edges,
            report.flipped_edges,
        );
    }
}

/// RMS and largest angle (degrees) between area-weighted and corner-angle-weighted vertex
/// normals of the same triangles.
fn normal_angles(positions: &[Vec3], triangles: &[[u32; 3]]) -> (f64, f64) {
    let mut area = vec![Vec3::ZERO; positions.len()];
    let mut angle = vec![Vec3::ZERO; positions.len()];
    for t in triangles {
        let p = t.map(|v| positions[v as usize]);
        let cross = (p[1] - p[0]).cross(p[2] - p[0]);
        let unit = cross.normalize_or_zero();
        for k in 0..3 {
            let (e1, e2) = (p[(k + 1) % 3] - p[k], p[(k + 2) % 3] - p[k]);
            let corner = e1.angle_between(e2);
            area[t[k] as usize] += cross;
            if corner.is_finite() {
                angle[t[k] as usize] += unit * corner;
            }
        }
    }
    let mut sum = 0.0f64;
    let mut max = 0.0f64;
    for (a, b) in area.iter().zip(&angle) {
        let d = a.normalize_or_zero().angle_between(b.normalize_or_zero()) as f64;
        let d = if d.is_finite() { d.to_degrees() } else { 0.0 };
        sum += d * d;
        max = max.max(d);
    }
    ((sum / positions.len().max(1) as f64).sqrt(), max)
}
