//! `rope_probe R PLY...`: for each honey-pour particle file, the surface's pieces (and the
//! particles in each), the particles standing apart (nearest neighbour over 3r), and how round
//! the upper rope's sections are in the particles themselves (outermost particle per angular
//! bin, RMS off their mean and the square mode cos 4θ), at particle radius R. With
//! WRITE_MESH set, each frame's surface is written beside it (`NAME.surface.ply`).

use glam::Vec3;
use gloop::cache::read_particles;
use gloop::demos::honey_pour as pour;
use gloop::surface::{mesh_particles, SurfaceSettings};
use gloop::validation::pieces::pieces;

fn main() {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let r: f32 = a[0].parse().unwrap();
    for path in &a[1..] {
        let liquid = read_particles(std::path::Path::new(path)).unwrap();
        let x = &liquid.position;
        let mesh = mesh_particles(x, &[], &[], r, &SurfaceSettings::default());
        // WRITE_MESH=1 writes the surface beside the particle file, for rendering.
        if std::env::var("WRITE_MESH").is_ok() {
            let out = path.replace(".ply", ".surface.ply");
            gloop::surface::write_surface_ply(std::path::Path::new(&out), &mesh).unwrap();
        }
        let p = pieces(&mesh, x);
        let voids = p.iter().filter(|p| p.is_void()).count();
        let small: Vec<usize> = p
            .iter()
            .skip(1)
            .filter(|p| !p.is_void())
            .map(|p| p.particles)
            .collect();
        let specks = small.iter().filter(|&&n| n < 8).count();
        println!(
            "{path}: {} particles, {} pieces (main {}), {voids} voids, {} under 8 particles; others {:?}",
            x.len(),
            p.len(),
            p.first().map_or(0, |p| p.particles),
            specks,
            &small[..small.len().min(20)]
        );
        if let Some(c) = gloop::validation::honey_pour::rope_cylinder(x, r) {
            println!(
                "  (e) RMS off cylinder {:.3}, area variation {:.3}, sections off round {:.3}, radius {:.2}r",
                c.rms_deviation / c.radius,
                c.area_variation(),
                c.rms_section_roundness(),
                c.radius / r as f64
            );
        }
        if let Some(c) = gloop::validation::honey_pour::rope_cylinder_outer(x, r) {
            println!(
                "  (e) outer surface: RMS off cylinder {:.3}, sections off round {:.3}",
                c.rms_deviation / c.radius,
                c.rms_section_roundness(),
            );
        }
        let (_, labels) = gloop::validation::pieces::labelled_pieces(&mesh, x);
        let main: Vec<Vec3> = x
            .iter()
            .zip(&labels)
            .filter(|(_, l)| **l == Some(0))
            .map(|(x, _)| *x)
            .collect();
        if let Some(c) = gloop::validation::honey_pour::rope_cylinder(&main, r) {
            println!(
                "  (e) main piece only: RMS off cylinder {:.3}, sections off round {:.3}",
                c.rms_deviation / c.radius,
                c.rms_section_roundness(),
            );
        }
        let (found, _) = gloop::validation::pieces::labelled_pieces(&mesh, x);
        let mut where_: Vec<String> = Vec::new();
        for (k, piece) in found
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, p)| p.particles < 80 && !p.is_void())
        {
            let members: Vec<Vec3> = x
                .iter()
                .zip(&labels)
                .filter(|(_, l)| **l == Some(k))
                .map(|(x, _)| *x)
                .collect();
            if members.is_empty() {
                continue;
            }
            let c = members.iter().sum::<Vec3>() / members.len() as f32;
            where_.push(format!(
                "{}@z{:.1}mm/ρ{:.1}r",
                piece.particles,
                c.z * 1e3,
                c.truncate().length() / r
            ));
        }
        println!("  specks: {}", where_.join(" "));
        lonely(x, r);
        sections(x, r);
    }
}

/// Particles whose nearest neighbour is over 3r away, with where they are.
fn lonely(x: &[Vec3], r: f32) {
    let grid = gloop::validation::pieces::PointGrid::new(x, 4.0 * r);
    let mut far = Vec::new();
    let mut nn_hist = [0usize; 6];
    for (i, p) in x.iter().enumerate() {
        let d = grid.nearest_other(x, i, 8.0 * r).unwrap_or(f32::INFINITY) / r;
        nn_hist[((d - 1.5) / 0.25).clamp(0.0, 5.0) as usize] += 1;
        if d > 3.0 {
            far.push((p.z, p.truncate().length() / r, d));
        }
    }
    println!(
        "  nearest neighbour (r): <1.75 {} | <2 {} | <2.25 {} | <2.5 {} | <2.75 {} | more {}",
        nn_hist[0], nn_hist[1], nn_hist[2], nn_hist[3], nn_hist[4], nn_hist[5]
    );
    far.sort_by(|a, b| b.0.total_cmp(&a.0));
    let show: Vec<String> = far
        .iter()
        .take(12)
        .map(|(z, rho, d)| format!("z {:.1}mm ρ {:.1}r nn {:.1}r", z * 1e3, rho, d))
        .collect();
    println!("  {} alone beyond 3r: {}", far.len(), show.join("; "));
}

/// The upper rope's sections in 4r slices from 6r + its radius below the nozzle down 2 cm.
fn sections(x: &[Vec3], r: f32) {
    let top = pour::NOZZLE_HEIGHT - r;
    let height = 4.0 * r;
    let (mut rms_sum, mut m4_sum, mut n) = (0.0f64, 0.0f64, 0);
    let mut lines = Vec::new();
    for k in 0..60 {
        let hi = top - 16.0 * r - k as f32 * height;
        let lo = hi - height;
        if lo < pour::PLATE_TOP + 0.03 {
            break;
        }
        let slice: Vec<Vec3> = x
            .iter()
            .copied()
            .filter(|p| p.z < hi && p.z >= lo)
            .collect();
        if slice.len() < 8 {
            continue;
        }
        let c = slice.iter().sum::<Vec3>() / slice.len() as f32;
        const BINS: usize = 16;
        let mut outer = [0.0f32; BINS];
        for p in &slice {
            let d = (*p - c).truncate();
            let bin = (((d.y.atan2(d.x) + std::f32::consts::PI) / std::f32::consts::TAU)
                * BINS as f32) as usize
                % BINS;
            outer[bin] = outer[bin].max(d.length());
        }
        let mean = outer.iter().sum::<f32>() / BINS as f32;
        let rms = (outer.iter().map(|o| (o - mean).powi(2)).sum::<f32>() / BINS as f32).sqrt();
        let (mut cs, mut sn) = (0.0f32, 0.0f32);
        for (b, o) in outer.iter().enumerate() {
            let th = (b as f32 + 0.5) / BINS as f32 * std::f32::consts::TAU;
            cs += o * (4.0 * th).cos();
            sn += o * (4.0 * th).sin();
        }
        let m4 = 2.0 * (cs * cs + sn * sn).sqrt() / BINS as f32;
        rms_sum += (rms / mean) as f64;
        m4_sum += (m4 / mean) as f64;
        n += 1;
        if k % 4 == 0 {
            lines.push(format!(
                "z {:.1}: n {} R {:.2}r rms {:.3} m4 {:.3}",
                hi * 1e3,
                slice.len(),
                mean / r,
                rms / mean,
                m4 / mean
            ));
        }
    }
    println!(
        "  sections: mean outer RMS/R {:.3}, mean cos4θ/R {:.3} over {n}",
        rms_sum / n.max(1) as f64,
        m4_sum / n.max(1) as f64
    );
    for l in lines {
        println!("    {l}");
    }
}
