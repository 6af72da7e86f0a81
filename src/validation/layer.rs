//! How flat a layer's surface mesh is and how it meets the horizontal plane it rests on,
//! sampled by vertical rays on an even grid (so every part of the area counts alike, however it
//! is triangulated): the `flat-coat` scene is judged with it.

use glam::Vec3;

use crate::surface::SurfaceMesh;

/// Where a vertical line crosses a mesh: the height and the vertex normals interpolated there
/// (what a renderer shades with).
#[derive(Clone, Copy, Debug)]
pub struct Crossing {
    pub z: f32,
    pub normal: Vec3,
}

/// Every crossing of the vertical line through (x, y) with the mesh's triangles, in no
/// particular order: where (x, y) falls inside a triangle's shadow on the xy plane, its
/// barycentric coordinates there give the height (in f64, so heights far from the origin keep
/// their precision; triangles seen edge-on are skipped).
pub fn vertical_crossings(mesh: &SurfaceMesh, x: f32, y: f32) -> Vec<Crossing> {
    let (x, y) = (x as f64, y as f64);
    let mut crossings = Vec::new();
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|i| mesh.positions[i as usize].as_dvec3());
        if x < a.x.min(b.x).min(c.x)
            || x > a.x.max(b.x).max(c.x)
            || y < a.y.min(b.y).min(c.y)
            || y > a.y.max(b.y).max(c.y)
        {
            continue;
        }
        let (e1, e2) = (b - a, c - a);
        let det = e1.x * e2.y - e2.x * e1.y;
        if det.abs() < 1e-300 {
            continue;
        }
        let (dx, dy) = (x - a.x, y - a.y);
        let u = (dx * e2.y - e2.x * dy) / det;
        let v = (e1.x * dy - dx * e1.y) / det;
        if u < 0.0 || v < 0.0 || u + v > 1.0 {
            continue;
        }
        let [na, nb, nc] = t.map(|i| mesh.normals.get(i as usize).copied().unwrap_or(Vec3::ZERO));
        let (u32_, v32) = (u as f32, v as f32);
        crossings.push(Crossing {
            z: (a.z + u * e1.z + v * e2.z) as f32,
            normal: (na * (1.0 - u32_ - v32) + nb * u32_ + nc * v32).normalize_or_zero(),
        });
    }
    crossings
}

/// A layer's top and bottom over a patch of its area.
#[derive(Clone, Debug, Default)]
pub struct LayerShape {
    /// Rays that crossed the mesh.
    pub rays: usize,
    /// Rays through the patch that found no mesh (a hole in the layer).
    pub misses: usize,
    pub mean_top: f64,
    /// RMS of the top's height about its mean.
    pub top_rms_height: f64,
    /// RMS angle (degrees) of the top's interpolated normals from straight up.
    pub top_normal_rms_deg: f64,
    /// The bottom's largest and RMS height above the plane.
    pub worst_bottom_gap: f64,
    pub rms_bottom_gap: f64,
    /// The lowest point of the bottom relative to the plane (negative: through it).
    pub lowest_bottom: f64,
}

/// Measures the layer under the rays through `points` (x, y) resting on the plane z = `plane`.
pub fn measure(mesh: &SurfaceMesh, plane: f32, points: &[(f32, f32)]) -> LayerShape {
    let mut f = LayerShape {
        lowest_bottom: f64::INFINITY,
        ..LayerShape::default()
    };
    let (mut tops, mut angles, mut gaps) = (Vec::new(), Vec::new(), Vec::new());
    for &(x, y) in points {
        let crossings = vertical_crossings(mesh, x, y);
        let top = crossings.iter().max_by(|a, b| a.z.total_cmp(&b.z));
        let bottom = crossings.iter().min_by(|a, b| a.z.total_cmp(&b.z));
        let (Some(top), Some(bottom)) = (top, bottom) else {
            f.misses += 1;
            continue;
        };
        tops.push(top.z as f64);
        angles.push(top.normal.dot(Vec3::Z).clamp(-1.0, 1.0).acos().to_degrees() as f64);
        gaps.push((bottom.z - plane) as f64);
    }
    f.rays = tops.len();
    let n = f.rays.max(1) as f64;
    let rms =
        |v: &[f64], about: f64| (v.iter().map(|x| (x - about).powi(2)).sum::<f64>() / n).sqrt();
    f.mean_top = tops.iter().sum::<f64>() / n;
    f.top_rms_height = rms(&tops, f.mean_top);
    f.top_normal_rms_deg = rms(&angles, 0.0);
    f.worst_bottom_gap = gaps.iter().copied().fold(0.0, f64::max);
    f.rms_bottom_gap = rms(&gaps, 0.0);
    f.lowest_bottom = gaps.iter().copied().fold(f64::INFINITY, f64::min);
    f
}

/// An even grid of `(x, y)` points `spacing` apart covering the rectangle `lo`..`hi`.
pub fn grid_points(lo: (f32, f32), hi: (f32, f32), spacing: f32) -> Vec<(f32, f32)> {
    let count = |a: f32, b: f32| ((b - a) / spacing).floor().max(0.0) as usize + 1;
    let (nx, ny) = (count(lo.0, hi.0), count(lo.1, hi.1));
    (0..ny)
        .flat_map(|j| (0..nx).map(move |i| (i, j)))
        .map(|(i, j)| (lo.0 + i as f32 * spacing, lo.1 + j as f32 * spacing))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A slab from z = `bottom` to the top z = `top(x, y)` over the unit square, its top a
    /// grid of `n`×`n` squares with the given normal at every vertex; the bottom a flat square.
    fn slab(n: usize, bottom: f32, top: impl Fn(f32, f32) -> f32, normal: Vec3) -> SurfaceMesh {
        let mut positions = Vec::new();
        for j in 0..=n {
            for i in 0..=n {
                let (x, y) = (i as f32 / n as f32, j as f32 / n as f32);
                positions.push(Vec3::new(x, y, top(x, y)));
            }
        }
        let at = |i: usize, j: usize| (j * (n + 1) + i) as u32;
        let mut triangles = Vec::new();
        for j in 0..n {
            for i in 0..n {
                triangles.push([at(i, j), at(i + 1, j), at(i + 1, j + 1)]);
                triangles.push([at(i, j), at(i + 1, j + 1), at(i, j + 1)]);
            }
        }
        let mut normals = vec![normal; positions.len()];
        let base = positions.len() as u32;
        for (x, y) in [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)] {
            positions.push(Vec3::new(x, y, bottom));
            normals.push(Vec3::NEG_Z);
        }
        triangles.push([base, base + 2, base + 1]);
        triangles.push([base, base + 3, base + 2]);
        SurfaceMesh {
            positions,
            normals,
            triangles,
            ..SurfaceMesh::default()
        }
    }

    #[test]
    fn a_flat_layer_on_its_plane_measures_flat_and_in_contact() {
        let mesh = slab(20, 0.0, |_, _| 0.3, Vec3::Z);
        let points = grid_points((0.13, 0.17), (0.87, 0.81), 0.031);
        let f = measure(&mesh, 0.0, &points);
        assert_eq!((f.rays, f.misses), (points.len(), 0));
        assert!((f.mean_top - 0.3).abs() < 1e-6);
        assert!(
            f.top_rms_height < 1e-6 && f.top_normal_rms_deg < 1e-3,
            "{f:?}"
        );
        assert!(f.worst_bottom_gap.abs() < 1e-6 && f.lowest_bottom.abs() < 1e-6);
    }

    #[test]
    fn a_tilted_top_is_off_by_its_tilt_and_a_floating_bottom_by_its_gap() {
        let tilt = 3f32.to_radians();
        let normal = Vec3::new(-tilt.sin(), 0.0, tilt.cos());
        let mesh = slab(20, 0.05, |x, _| 0.3 + x * tilt.tan(), normal);
        let points = grid_points((0.0, 0.0), (1.0, 1.0), 0.02);
        let f = measure(&mesh, 0.0, &points);
        assert!((f.top_normal_rms_deg - 3.0).abs() < 1e-3, "{f:?}");
        // Heights at 51 even steps over tan(3°): RMS tan(3°) √(52 / (12 × 50)).
        let spread = (tilt.tan() as f64) * (52.0 / 600.0f64).sqrt();
        assert!((f.top_rms_height - spread).abs() < 1e-6, "{f:?}");
        assert!((f.worst_bottom_gap - 0.05).abs() < 1e-6 && (f.lowest_bottom - 0.05).abs() < 1e-6);
        // Below the plane: the lowest point says so.
        let f = measure(&mesh, 0.08, &points);
        assert!((f.lowest_bottom + 0.03).abs() < 1e-6, "{f:?}");
    }

    #[test]
    fn rays_off_the_layer_are_counted_as_misses() {
        let mesh = slab(4, 0.0, |_, _| 0.3, Vec3::Z);
        let f = measure(&mesh, 0.0, &[(0.5, 0.5), (1.5, 0.5)]);
        assert_eq!((f.rays, f.misses), (1, 1));
    }
}
