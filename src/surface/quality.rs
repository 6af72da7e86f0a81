//! Measurements of a surface mesh used by the validation scenes and tests: topology (closed,
//! manifold, consistently wound, components), volume, area, degenerate triangles.

use std::collections::HashMap;

use glam::Vec3;

use super::SurfaceMesh;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshReport {
    pub vertices: usize,
    pub triangles: usize,
    /// Undirected edges not used by exactly two triangles (0 = closed, edge-manifold).
    pub bad_edges: usize,
    /// Directed edges used twice in the same direction (0 = consistent winding).
    pub flipped_edges: usize,
    /// Connected components (over shared vertices).
    pub components: usize,
    pub volume: f64,
    pub area: f64,
    /// Triangles whose area is below 1e-6 of the mean (slivers with no area).
    pub degenerate: usize,
}

impl MeshReport {
    pub fn is_closed_manifold(&self) -> bool {
        self.triangles > 0 && self.bad_edges == 0 && self.flipped_edges == 0
    }
}

pub fn measure(mesh: &SurfaceMesh) -> MeshReport {
    let p = &mesh.positions;
    let mut undirected: HashMap<(u32, u32), u32> = HashMap::new();
    let mut directed: HashMap<(u32, u32), u32> = HashMap::new();
    let mut volume = 0.0f64;
    let mut areas = Vec::with_capacity(mesh.triangles.len());
    for t in &mesh.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *undirected.entry((a.min(b), a.max(b))).or_default() += 1;
            *directed.entry((a, b)).or_default() += 1;
        }
        let [a, b, c] = t.map(|i| p[i as usize].as_dvec3());
        volume += a.dot(b.cross(c)) / 6.0;
        areas.push(0.5 * (b - a).cross(c - a).length());
    }
    let area: f64 = areas.iter().sum();
    let mean = area / areas.len().max(1) as f64;
    MeshReport {
        vertices: p.len(),
        triangles: mesh.triangles.len(),
        bad_edges: undirected.values().filter(|&&n| n != 2).count(),
        flipped_edges: directed.values().filter(|&&n| n > 1).count(),
        components: components(p.len(), &mesh.triangles),
        volume,
        area,
        degenerate: areas.iter().filter(|&&a| a <= 1e-6 * mean).count(),
    }
}

/// Whether the triangle (a, b, c) is a sliver: its height under `fraction` of its longest
/// side. Its normal is then rounding noise, and it covers no area a ray could meet, so its
/// orientation is not judged (decimation's turned triangles, `hausdorff::turned_triangles`).
pub fn is_sliver(a: Vec3, b: Vec3, c: Vec3, fraction: f32) -> bool {
    let twice_area = (b - a).cross(c - a).length_squared();
    let longest = (b - a)
        .length_squared()
        .max((c - b).length_squared())
        .max((a - c).length_squared());
    // |n| is twice the area, so |n| / longest side is the height; squared to avoid roots.
    twice_area <= fraction * fraction * longest * longest
}

/// The vertex normals Blender shades a mesh with when it is given none: each vertex's adjacent
/// triangles' unit normals weighted by the triangle's angle at that vertex (summed in triangle
/// order; zero for a vertex no triangle uses). A needle, three corners nearly in a line, has a
/// corner of almost 180°: whatever its plane, that vertex's normal turns half way to it, though
/// the needle has no area (on a curved surface a needle's plane can stand at 60° or more to it).
pub fn shading_normals(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Vec3> {
    let mut sums = vec![Vec3::ZERO; positions.len()];
    for t in triangles {
        let p = t.map(|v| positions[v as usize]);
        let normal = (p[1] - p[0]).cross(p[2] - p[0]).normalize_or_zero();
        if normal == Vec3::ZERO {
            continue; // no plane, no weight (Blender's too)
        }
        for k in 0..3 {
            let (a, b) = (p[(k + 1) % 3] - p[k], p[(k + 2) % 3] - p[k]);
            let lengths = (a.length_squared() * b.length_squared()).sqrt();
            let angle = (a.dot(b) / lengths).clamp(-1.0, 1.0).acos();
            sums[t[k] as usize] += normal * angle;
        }
    }
    sums.into_iter().map(Vec3::normalize_or_zero).collect()
}

/// Number of connected components of the triangles (isolated vertices are not counted).
pub fn components(vertex_count: usize, triangles: &[[u32; 3]]) -> usize {
    let label = component_labels(vertex_count, triangles);
    let mut used = vec![false; vertex_count];
    for t in triangles {
        for &v in t {
            used[v as usize] = true;
        }
    }
    (0..vertex_count)
        .filter(|&v| used[v] && label[v] == v)
        .count()
}

/// Each vertex's component: the lowest vertex index among those its triangles connect it to
/// (union-find, serial, so the same labels every time).
pub fn component_labels(vertex_count: usize, triangles: &[[u32; 3]]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..vertex_count).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for t in triangles {
        for k in 1..3 {
            let (a, b) = (
                find(&mut parent, t[0] as usize),
                find(&mut parent, t[k] as usize),
            );
            parent[a.max(b)] = a.min(b);
        }
    }
    (0..vertex_count).map(|v| find(&mut parent, v)).collect()
}

/// RMS of (|x - centre| - radius) over the surface, and RMS angle (degrees) between the shading
/// normal (the vertex normals interpolated) and the radial direction, both weighted by area.
///
/// Each triangle is sampled at its edge midpoints, a third of its area each (exact for
/// quadratics). Sampling only the vertices would weigh a few large triangles as little as
/// a few small ones: once decimation makes sizes differ, it reads the kept vertices, not the
/// surface between them.
pub fn sphere_deviation(mesh: &SurfaceMesh, centre: Vec3, radius: f32) -> (f64, f64) {
    let (mut area, mut radial, mut angle) = (0.0f64, 0.0f64, 0.0f64);
    for t in &mesh.triangles {
        let [a, b, c] = t.map(|v| v as usize);
        let third = ((mesh.positions[b] - mesh.positions[a])
            .cross(mesh.positions[c] - mesh.positions[a])
            .length()
            / 6.0) as f64;
        for (i, j) in [(a, b), (b, c), (c, a)] {
            let d = (mesh.positions[i] + mesh.positions[j]) / 2.0 - centre;
            let normal = (mesh.normals[i] + mesh.normals[j]).normalize_or_zero();
            let cos = d.normalize_or_zero().dot(normal).clamp(-1.0, 1.0) as f64;
            radial += third * ((d.length() - radius) as f64).powi(2);
            angle += third * cos.acos().to_degrees().powi(2);
            area += third;
        }
    }
    let area = area.max(f64::MIN_POSITIVE);
    ((radial / area).sqrt(), (angle / area).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_needle_turns_its_wide_corners_normal_as_blender_shades_it() {
        // Two flat right triangles meet at the origin; a needle of no area through it, its
        // plane at 60° to theirs. Blender 4.5 shades the origin with (0, -0.496, 0.868).
        let positions = [
            Vec3::ZERO,
            Vec3::X,
            Vec3::Y,
            Vec3::NEG_X,
            Vec3::new(1.0, -0.001, -0.0017),
        ];
        let triangles = [[0, 1, 2], [0, 2, 3], [3, 4, 0]];
        let n = shading_normals(&positions, &triangles)[0];
        assert!(n.abs_diff_eq(Vec3::new(0.0, -0.496, 0.868), 2e-3), "{n}");
        // A vertex no triangle uses has no normal.
        let unused = shading_normals(&positions, &[]);
        assert_eq!(unused[0], Vec3::ZERO);
    }
}
