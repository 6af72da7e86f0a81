//! Triangle-mesh geometry the bake needs: closedness, volume, area, an object's pose at any
//! instant, the liquid lattice inside a closed mesh, and evenly spaced samples on a surface.

mod closest_point;
mod fill;
mod mass_properties;
mod motion;
mod sampling;
mod triangle_tree;

use std::collections::HashMap;

use glam::Vec3;

use crate::scene::{SceneObject, TriMesh};

pub use closest_point::closest_point_on_triangle;
pub use fill::{count_fill, fill_closed_mesh, FillLimits, LATTICE_INDEX_LIMIT};
pub use mass_properties::MassProperties;
pub use motion::world_vertices;
pub use sampling::{sample_surface, sampling_cost, SamplingCost, SurfaceSample};
pub use triangle_tree::TriangleTree;

/// Nominal spacing of object particles on obstacle surfaces. They have radius
/// `OBJECT_PARTICLE_RADIUS_FACTOR * r`; at this spacing the holes between them are far smaller
/// than a liquid particle, so none can pass through.
pub fn obstacle_spacing(radius: f32) -> f32 {
    2.0 * radius
}

/// Object particle radius relative to the liquid radius (the paper: between 1 and 2).
pub const OBJECT_PARTICLE_RADIUS_FACTOR: f32 = 1.5;

/// Number of undirected edges not shared by exactly two triangles. Zero for a closed mesh.
pub fn open_edge_count(mesh: &TriMesh) -> usize {
    let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
    for t in &mesh.triangles {
        for k in 0..3 {
            let (a, b) = (t[k], t[(k + 1) % 3]);
            *uses.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    uses.values().filter(|&&n| n != 2).count()
}

/// Signed volume enclosed by a closed mesh (positive for outward-facing triangles).
pub fn enclosed_volume(vertices: &[Vec3], triangles: &[[u32; 3]]) -> f32 {
    let sum: f64 = triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            a.dot(b.cross(c)) as f64
        })
        .sum();
    (sum / 6.0) as f32
}

/// The area of an emitter's surface at `frame`, where the bake samples its nozzle: what an
/// emission's flow or speed alone is divided or multiplied by.
pub fn nozzle_area(object: &SceneObject, frame: i32) -> f32 {
    let vertices = world_vertices(&object.mesh, &object.motion, frame as f32);
    surface_area(&vertices, &object.mesh.triangles)
}

pub fn surface_area(vertices: &[Vec3], triangles: &[[u32; 3]]) -> f32 {
    triangles
        .iter()
        .map(|t| {
            let [a, b, c] = t.map(|i| vertices[i as usize]);
            0.5 * (b - a).cross(c - a).length() as f64
        })
        .sum::<f64>() as f32
}

/// Unit normal of a triangle (zero for a degenerate one).
pub fn triangle_normal(vertices: &[Vec3], t: [u32; 3]) -> Vec3 {
    let [a, b, c] = t.map(|i| vertices[i as usize]);
    (b - a).cross(c - a).normalize_or_zero()
}

/// Axis-aligned bounds of a point set.
pub fn bounds(points: &[Vec3]) -> (Vec3, Vec3) {
    points.iter().fold(
        (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    )
}

/// An axis-aligned box as a closed, outward-facing triangle mesh.
pub fn box_mesh(lo: Vec3, hi: Vec3) -> TriMesh {
    let v = |x: bool, y: bool, z: bool| {
        Vec3::new(
            if x { hi.x } else { lo.x },
            if y { hi.y } else { lo.y },
            if z { hi.z } else { lo.z },
        )
    };
    let vertices = vec![
        v(false, false, false),
        v(true, false, false),
        v(true, true, false),
        v(false, true, false),
        v(false, false, true),
        v(true, false, true),
        v(true, true, true),
        v(false, true, true),
    ];
    let quads = [
        [0, 3, 2, 1],
        [4, 5, 6, 7],
        [0, 1, 5, 4],
        [2, 3, 7, 6],
        [1, 2, 6, 5],
        [0, 4, 7, 3],
    ];
    let triangles = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    TriMesh {
        vertices,
        triangles,
    }
}

#[cfg(test)]
mod tests;
