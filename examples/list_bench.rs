//! Benchmark: building the liquid's neighbour lists from nothing, as a full rebuild does.
//! Prints the median time of a rebuild over repeated builds and a checksum of the lists, so
//! that two builds of the search can be compared for speed and checked for the same lists.
//!
//! `cargo run --release --example list_bench -- [CELLS_X CELLS_Y CELLS_Z] [REPEATS]`
//! (default 50 × 50 × 40 = 100 000 particles on a jittered 2r lattice, r = 2.5 mm, 15 builds;
//! the near lists' reach, the density support plus the skin, and the contacts', 2 r plus
//! theirs, taken from the solver's constants).
use std::time::Instant;

use glam::Vec3;
use gloop::sim::kernels::DENSITY_SUPPORT_RADII;
use gloop::sim::neighbours::{CellGrid, Space};
use gloop::sim::{CONTACT_SKIN_RADII, SKIN_RADII};
use gloop::validation::noise::uniform_noise;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (nx, ny, nz, repeats) = (num(0, 50), num(1, 50), num(2, 40), num(3, 15));
    let r = 0.0025f32;
    let mut noise = uniform_noise(5);
    let mut x = Vec::with_capacity(nx * ny * nz);
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                let jitter = Vec3::new(noise(), noise(), noise()) * 0.3 * r;
                x.push(Vec3::new(i as f32, j as f32, k as f32) * 2.0 * r + jitter);
            }
        }
    }
    let space = Space::from_parts(Vec3::splat(-1.0), Vec3::splat(2.0), [false; 3]);
    println!(
        "{} particles, {} threads",
        x.len(),
        rayon::current_num_threads()
    );
    // The liquid's contacts are pairs within 2 r (`Params::liquid_contact`).
    let reaches = [
        ("near lists", DENSITY_SUPPORT_RADII + SKIN_RADII),
        ("contacts", 2.0 + CONTACT_SKIN_RADII),
    ];
    for (name, radii) in reaches {
        let reach = radii * r;
        let mut times = Vec::new();
        let mut checksum = 0u64;
        for _ in 0..repeats {
            let started = Instant::now();
            let lists = CellGrid::build(&x, reach, space).neighbour_lists(&x, &x, reach, true);
            times.push(started.elapsed().as_secs_f64());
            checksum = (0..x.len()).fold(0u64, |h, i| {
                lists.of(i).into_iter().fold(h, |h, j| {
                    h.wrapping_mul(1_000_003).wrapping_add(j as u64 + 1)
                })
            });
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{name} ({radii} r): median {:.1} ms over {repeats} builds, checksum {checksum:016x}",
            1e3 * times[times.len() / 2]
        );
    }
}
