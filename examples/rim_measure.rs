//! `rim_measure DIR RADIUS FIRST LAST`: for each surface in the cache folder, the contact line's
//! roughness (sections just above the floor z = 0) and the lowest vertex, in particle radii.
use gloop::surface::read_surface_ply;
use gloop::validation::contact_line::{length, roughness, section_loops};

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let dir = std::path::PathBuf::from(&a[1]);
    let r: f32 = a[2].parse().unwrap();
    let (first, last): (i32, i32) = (a[3].parse().unwrap(), a[4].parse().unwrap());
    for frame in first..=last {
        let Ok(mesh) = read_surface_ply(&dir.join(format!("surface_{frame:05}.ply"))) else {
            continue;
        };
        let lowest = mesh
            .positions
            .iter()
            .map(|p| p.z / r)
            .fold(f32::MAX, f32::min);
        let mut line = format!("frame {frame:3}: lowest {lowest:+.3} r;");
        for h in [0.0f32, 0.25, 0.5] {
            let loops = section_loops(&mesh, h * r);
            match loops.first() {
                Some(l) => {
                    line += &format!(
                        " z={h:+.2}: {}, L {:.0}, w2 {:.3} w3 {:.3};",
                        loops.len(),
                        length(l) / r as f64,
                        roughness(l, 0.25 * r as f64, 2.0 * r as f64) / r as f64,
                        roughness(l, 0.25 * r as f64, 3.0 * r as f64) / r as f64
                    )
                }
                None => line += &format!(" z={h:+.1}: -;"),
            }
        }
        println!("{line}");
    }
}
