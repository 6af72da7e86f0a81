//! How far apart two triangle meshes are: the symmetric Hausdorff distance, measured on samples
//! (every vertex and every triangle's centroid of each mesh) against the other's triangles.
//! Used to check that decimation keeps the surface where it was (issue 33: within 0.25 r).

use glam::Vec3;

use crate::geometry::closest_point_on_triangle;
use rayon::prelude::*;
use rustc_hash::FxHashMap;

/// Max over the samples of `a` of the distance to the triangles of `b`, and the same from `b`
/// to `a`; the symmetric Hausdorff distance is the larger. Distances beyond `cap` read as
/// `cap` (what is that far does not matter, and the search stops there).
pub fn hausdorff(a: (&[Vec3], &[[u32; 3]]), b: (&[Vec3], &[[u32; 3]]), cap: f32) -> (f32, f32) {
    (one_sided(a, b, cap), one_sided(b, a, cap))
}

/// The symmetric Hausdorff distance (see [`hausdorff`]).
pub fn symmetric_hausdorff(a: (&[Vec3], &[[u32; 3]]), b: (&[Vec3], &[[u32; 3]]), cap: f32) -> f32 {
    let (ab, ba) = hausdorff(a, b, cap);
    ab.max(ba)
}

fn one_sided(from: (&[Vec3], &[[u32; 3]]), to: (&[Vec3], &[[u32; 3]]), cap: f32) -> f32 {
    distances(from, to, cap)
        .into_iter()
        .map(|(_, d)| d)
        .fold(0.0, f32::max)
}

/// The samples of `from` farther than `limit` from the triangles of `to`.
///
/// Only "is any triangle within `limit`?" is asked, not the nearest: each triangle is filed in
/// every cell its box grown by `limit` touches, so a sample's own cell lists every triangle
/// that can be that close, and the search stops at the first one that is. Decimation checks
/// every frame this way; finding the true distance of each sample was 20 times slower.
pub fn far_samples(
    from: (&[Vec3], &[[u32; 3]]),
    to: (&[Vec3], &[[u32; 3]]),
    limit: f32,
) -> Vec<Vec3> {
    let samples = samples(from);
    if to.1.is_empty() {
        return samples;
    }
    let cell = 2.0 * (limit + mean_extent(to));
    let grid = TriangleGrid::new(to.0, to.1, cell, limit);
    samples
        .into_par_iter()
        .filter(|p| !grid.any_within(*p, limit))
        .collect()
}

/// The triangles of `from` that face against the surface `to` where they lie: the normal of
/// the triangle of `to` nearest to their centroid (within `cap`) points the other way. Used to
/// check that decimation turns no triangle over (a turned triangle inside a glassy liquid
/// renders as a dark speck). Slivers, whose height is below `sliver` times their longest side,
/// have no orientation to judge and are left out.
pub fn turned_triangles(
    from: (&[Vec3], &[[u32; 3]]),
    to: (&[Vec3], &[[u32; 3]]),
    cap: f32,
    sliver: f32,
) -> Vec<usize> {
    if to.1.is_empty() {
        return vec![];
    }
    let normal = |(points, triangles): (&[Vec3], &[[u32; 3]]), t: usize| {
        let [a, b, c] = triangles[t].map(|v| points[v as usize]);
        (b - a).cross(c - a)
    };
    let grid = TriangleGrid::new(to.0, to.1, (cap / 4.0).max(mean_extent(to)), 0.0);
    (0..from.1.len())
        .into_par_iter()
        .filter(|&t| {
            let [a, b, c] = from.1[t].map(|v| from.0[v as usize]);
            if super::quality::is_sliver(a, b, c, sliver) {
                return false;
            }
            grid.nearest((a + b + c) / 3.0, cap)
                .is_some_and(|(_, near)| normal(from, t).dot(normal(to, near as usize)) < 0.0)
        })
        .collect()
}

/// Every vertex of `mesh`, then every triangle's centroid.
fn samples(mesh: (&[Vec3], &[[u32; 3]])) -> Vec<Vec3> {
    let (points, triangles) = mesh;
    let centroids = triangles
        .iter()
        .map(|t| t.iter().map(|&v| points[v as usize]).sum::<Vec3>() / 3.0);
    points.iter().copied().chain(centroids).collect()
}

/// The mean of the triangles' largest box sides.
fn mean_extent(mesh: (&[Vec3], &[[u32; 3]])) -> f32 {
    let (points, triangles) = mesh;
    triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|v| points[v as usize]);
            (a.max(b).max(c) - a.min(b).min(c)).max_element()
        })
        .sum::<f32>()
        / triangles.len() as f32
}

/// Every sample of `from` (vertices, then centroids) with its distance to `to`, capped.
fn distances(
    from: (&[Vec3], &[[u32; 3]]),
    to: (&[Vec3], &[[u32; 3]]),
    cap: f32,
) -> Vec<(Vec3, f32)> {
    if to.1.is_empty() {
        return samples(from).into_iter().map(|p| (p, cap)).collect();
    }
    // Cells about as large as the triangles: much smaller ones would each hold a large
    // triangle many times over.
    let grid = TriangleGrid::new(to.0, to.1, (cap / 4.0).max(mean_extent(to)), 0.0);
    samples(from)
        .into_par_iter()
        .map(|p| (p, grid.distance(p, cap)))
        .collect()
}

/// Triangles bucketed by the grid cells their bounding boxes, grown by a margin, touch.
struct TriangleGrid<'a> {
    positions: &'a [Vec3],
    triangles: &'a [[u32; 3]],
    cell: f32,
    cells: FxHashMap<[i32; 3], Vec<u32>>,
}

impl<'a> TriangleGrid<'a> {
    fn new(positions: &'a [Vec3], triangles: &'a [[u32; 3]], cell: f32, margin: f32) -> Self {
        let mut cells: FxHashMap<[i32; 3], Vec<u32>> = FxHashMap::default();
        let key = |p: Vec3| (p / cell).floor().as_ivec3().to_array();
        for (f, t) in triangles.iter().enumerate() {
            let [a, b, c] = t.map(|v| positions[v as usize]);
            let grow = Vec3::splat(margin);
            let (lo, hi) = (key(a.min(b).min(c) - grow), key(a.max(b).max(c) + grow));
            for z in lo[2]..=hi[2] {
                for y in lo[1]..=hi[1] {
                    for x in lo[0]..=hi[0] {
                        cells.entry([x, y, z]).or_default().push(f as u32);
                    }
                }
            }
        }
        TriangleGrid {
            positions,
            triangles,
            cell,
            cells,
        }
    }

    /// Whether a triangle lies within `limit` of `p` (the grid's margin must be at least
    /// `limit`, so that all such triangles are filed in `p`'s own cell).
    fn any_within(&self, p: Vec3, limit: f32) -> bool {
        let c = (p / self.cell).floor().as_ivec3().to_array();
        self.cells.get(&c).is_some_and(|list| {
            list.iter().any(|&f| {
                let [a, b, q] = self.triangles[f as usize].map(|v| self.positions[v as usize]);
                // The box test first: most triangles of a cell are rejected by it.
                let outside = (a.min(b).min(q) - p)
                    .max(p - a.max(b).max(q))
                    .max(Vec3::ZERO);
                outside.length_squared() <= limit * limit
                    && point_triangle_distance(p, a, b, q) <= limit
            })
        })
    }

    /// Distance from `p` to the nearest triangle, searching shells of cells outwards until the
    /// nearest found is closer than any unsearched cell can be (or `cap` is passed).
    fn distance(&self, p: Vec3, cap: f32) -> f32 {
        self.nearest(p, cap).map_or(cap, |(d, _)| d.min(cap))
    }

    /// The nearest triangle to `p` and its distance, if one lies within about `cap` (see
    /// [`TriangleGrid::distance`]); of equally near ones, the first filed.
    fn nearest(&self, p: Vec3, cap: f32) -> Option<(f32, u32)> {
        let c = (p / self.cell).floor().as_ivec3().to_array();
        let mut best: Option<(f32, u32)> = None;
        for k in 0i32.. {
            for z in -k..=k {
                for y in -k..=k {
                    for x in -k..=k {
                        if x.abs().max(y.abs()).max(z.abs()) != k {
                            continue;
                        }
                        let Some(list) = self.cells.get(&[c[0] + x, c[1] + y, c[2] + z]) else {
                            continue;
                        };
                        for &f in list {
                            let [a, b, q] =
                                self.triangles[f as usize].map(|v| self.positions[v as usize]);
                            let d = point_triangle_distance(p, a, b, q);
                            if best.is_none_or(|(e, g)| d < e || (d == e && f < g)) {
                                best = Some((d, f));
                            }
                        }
                    }
                }
            }
            // Every cell not yet searched is at least k cells away.
            let reach = k as f32 * self.cell;
            if best.is_some_and(|(d, _)| d <= reach) || reach >= cap {
                break;
            }
        }
        best
    }
}

/// Distance from `p` to the triangle `abc`.
pub fn point_triangle_distance(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f32 {
    p.distance(closest_point_on_triangle(p, a, b, c))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn point_triangle_regions() {
        let (a, b, c) = (Vec3::ZERO, Vec3::X, Vec3::Y);
        assert_eq!(
            point_triangle_distance(Vec3::new(0.2, 0.2, 0.5), a, b, c),
            0.5
        );
        assert_eq!(
            point_triangle_distance(Vec3::new(-1.0, -1.0, 0.0), a, b, c),
            2f32.sqrt()
        );
        assert_eq!(
            point_triangle_distance(Vec3::new(0.5, -2.0, 0.0), a, b, c),
            2.0
        );
        let d = point_triangle_distance(Vec3::new(1.0, 1.0, 0.0), a, b, c);
        assert!((d - 0.5f32.sqrt()).abs() < 1e-6);
    }

    #[test]
    fn shifted_copy_is_as_far_as_the_shift() {
        // Two triangles of a unit square, and the same square lifted by 0.3.
        let p = vec![Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y];
        let t = vec![[0, 1, 2], [0, 2, 3]];
        let q: Vec<Vec3> = p.iter().map(|v| *v + Vec3::Z * 0.3).collect();
        let d = symmetric_hausdorff((&p, &t), (&q, &t), 10.0);
        assert!((d - 0.3).abs() < 1e-6, "{d}");
        // A bump in one copy is seen from the bumped side only.
        let mut bumped = p.clone();
        bumped.push(Vec3::new(0.5, 0.5, 0.4));
        let fan = vec![[0, 1, 4], [1, 2, 4], [2, 3, 4], [3, 0, 4]];
        let (ab, ba) = hausdorff((&bumped, &fan), (&p, &t), 10.0);
        assert!((ab - 0.4).abs() < 1e-6 && ba < 0.4, "{ab} {ba}");
        assert_eq!(symmetric_hausdorff((&p, &t), (&q, &t), 0.1), 0.1);
    }
}
