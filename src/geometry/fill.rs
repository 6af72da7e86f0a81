//! Filling a closed mesh with a lattice of liquid particles.

use glam::Vec3;

/// Lattice points of spacing `spacing` inside the closed mesh, in deterministic order
/// (x fastest). The lattice is anchored at the world origin, offset by half a spacing, so the
/// same mesh always gives the same points.
///
/// Rays along +x are cast once per (y, z) row; each triangle is tested only against the rows
/// its bounding box covers, and points between odd and even crossings are inside. Rays are
/// nudged by a tiny irrational offset so they never run exactly through a shared edge.
pub fn fill_closed_mesh(vertices: &[Vec3], triangles: &[[u32; 3]], spacing: f32) -> Vec<Vec3> {
    if triangles.is_empty() {
        return Vec::new();
    }
    let (lo, hi) = super::bounds(vertices);
    let to_index = |x: f32| ((x / spacing) - 0.5).ceil() as i64;
    let from_index = |i: i64| (i as f32 + 0.5) * spacing;
    let (j0, j1) = (to_index(lo.y), to_index(hi.y));
    let (k0, k1) = (to_index(lo.z), to_index(hi.z));
    if j1 < j0 || k1 < k0 {
        return Vec::new();
    }
    let rows_y = (j1 - j0 + 1) as usize;
    let rows_z = (k1 - k0 + 1) as usize;
    let nudge_y = spacing * 1.234_567e-4;
    let nudge_z = spacing * 2.718_281e-4;
    let mut hits: Vec<Vec<f32>> = vec![Vec::new(); rows_y * rows_z];
    for t in triangles {
        let [a, b, c] = t.map(|i| vertices[i as usize]);
        let tlo = a.min(b).min(c);
        let thi = a.max(b).max(c);
        let (ja, jb) = (
            to_index(tlo.y - nudge_y).max(j0),
            (to_index(thi.y - nudge_y)).min(j1),
        );
        let (ka, kb) = (
            to_index(tlo.z - nudge_z).max(k0),
            (to_index(thi.z - nudge_z)).min(k1),
        );
        for k in ka..=kb {
            for j in ja..=jb {
                let (y, z) = (from_index(j) + nudge_y, from_index(k) + nudge_z);
                if let Some(x) = ray_x_crossing(a, b, c, y, z) {
                    hits[(k - k0) as usize * rows_y + (j - j0) as usize].push(x);
                }
            }
        }
    }
    let mut points = Vec::new();
    for k in k0..=k1 {
        for j in j0..=j1 {
            let row = &mut hits[(k - k0) as usize * rows_y + (j - j0) as usize];
            if row.len() < 2 {
                continue;
            }
            row.sort_by(f32::total_cmp);
            for pair in row.chunks_exact(2) {
                let (i_start, i_end) = (to_index(pair[0]), to_index(pair[1]) - 1);
                for i in i_start..=i_end {
                    let x = from_index(i);
                    if x > pair[0] && x < pair[1] {
                        points.push(Vec3::new(x, from_index(j), from_index(k)));
                    }
                }
            }
        }
    }
    points
}

/// Where the line {(x, y, z) : x ∈ ℝ} crosses triangle abc, if it does.
fn ray_x_crossing(a: Vec3, b: Vec3, c: Vec3, y: f32, z: f32) -> Option<f32> {
    // Barycentric coordinates of (y, z) in the triangle projected onto the yz plane.
    let d = (b.y - a.y) * (c.z - a.z) - (c.y - a.y) * (b.z - a.z);
    if d.abs() < f32::MIN_POSITIVE {
        return None;
    }
    let u = ((y - a.y) * (c.z - a.z) - (c.y - a.y) * (z - a.z)) / d;
    let v = ((b.y - a.y) * (z - a.z) - (y - a.y) * (b.z - a.z)) / d;
    if u < 0.0 || v < 0.0 || u + v > 1.0 {
        return None;
    }
    Some(a.x + u * (b.x - a.x) + v * (c.x - a.x))
}
