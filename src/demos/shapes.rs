//! Closed, outward-facing triangle meshes for the demo scenes: spheres, boxes, cylinders and a
//! fan. Every builder is deterministic (same arguments, same bits) and returns a mesh in its own
//! local space; place it with a motion matrix or `transformed`.

use std::collections::HashMap;
use std::f32::consts::{PI, TAU};

use glam::{Mat4, Vec3};

use crate::scene::TriMesh;

/// An icosphere: a regular icosahedron whose faces are split `subdivisions` times (each split
/// quarters every triangle), with the vertices pushed onto the sphere. Triangles are nearly
/// equal in size, so surface samples come out even. Vertices lie on the sphere of `radius`;
/// the faces cut slightly inside it.
pub fn icosphere(radius: f32, subdivisions: u32) -> TriMesh {
    let t = (1.0 + 5f32.sqrt()) / 2.0;
    let mut vertices: Vec<Vec3> = [
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ]
    .iter()
    .map(|p| Vec3::from_array(*p).normalize())
    .collect();
    let mut triangles: Vec<[u32; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    for _ in 0..subdivisions {
        // Each edge's midpoint is made once, so neighbouring triangles share it (closedness).
        let mut midpoints: HashMap<(u32, u32), u32> = HashMap::new();
        let mut midpoint = |a: u32, b: u32, vertices: &mut Vec<Vec3>| -> u32 {
            *midpoints.entry((a.min(b), a.max(b))).or_insert_with(|| {
                let m = (vertices[a as usize] + vertices[b as usize]).normalize();
                vertices.push(m);
                (vertices.len() - 1) as u32
            })
        };
        let mut finer = Vec::with_capacity(triangles.len() * 4);
        for [a, b, c] in triangles {
            let ab = midpoint(a, b, &mut vertices);
            let bc = midpoint(b, c, &mut vertices);
            let ca = midpoint(c, a, &mut vertices);
            finer.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
        }
        triangles = finer;
    }
    TriMesh {
        vertices: vertices.into_iter().map(|v| v * radius).collect(),
        triangles,
    }
}

/// An axis-aligned box centred on the origin with the given half extents.
pub fn box_mesh(half_extents: Vec3) -> TriMesh {
    let h = half_extents;
    let corner = |i: u32| {
        Vec3::new(
            if i & 1 == 0 { -h.x } else { h.x },
            if i & 2 == 0 { -h.y } else { h.y },
            if i & 4 == 0 { -h.z } else { h.z },
        )
    };
    // Corner i has bit 0 = +x, bit 1 = +y, bit 2 = +z. Each face's quad is listed
    // counter-clockwise seen from outside.
    let quads = [
        [0, 2, 3, 1], // -z
        [4, 5, 7, 6], // +z
        [0, 1, 5, 4], // -y
        [2, 6, 7, 3], // +y
        [0, 4, 6, 2], // -x
        [1, 3, 7, 5], // +x
    ];
    TriMesh {
        vertices: (0..8).map(corner).collect(),
        triangles: quads
            .iter()
            .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
            .collect(),
    }
}

/// A cylinder along z centred on the origin: `segments` sides, flat caps fanned from a centre
/// vertex. Vertices lie on the circle of `radius`.
pub fn cylinder(radius: f32, height: f32, segments: u32) -> TriMesh {
    let n = segments.max(3);
    let half = 0.5 * height;
    let mut vertices = Vec::with_capacity(2 * n as usize + 2);
    for z in [-half, half] {
        for i in 0..n {
            let a = TAU * i as f32 / n as f32;
            vertices.push(Vec3::new(radius * a.cos(), radius * a.sin(), z));
        }
    }
    let (bottom, top) = (2 * n, 2 * n + 1);
    vertices.push(Vec3::new(0.0, 0.0, -half));
    vertices.push(Vec3::new(0.0, 0.0, half));
    let mut triangles = Vec::with_capacity(4 * n as usize);
    for i in 0..n {
        let j = (i + 1) % n;
        // Side quad (i, j) bottom to top, counter-clockwise seen from outside.
        triangles.push([i, j, n + j]);
        triangles.push([i, n + j, n + i]);
        triangles.push([bottom, j, i]);
        triangles.push([top, n + i, n + j]);
    }
    TriMesh {
        vertices,
        triangles,
    }
}

/// A flat disc of `radius` in the z = 0 plane, facing down (−z): a nozzle that pours
/// downward. `segments` triangles fanned from the centre.
pub fn downward_disc(radius: f32, segments: u32) -> TriMesh {
    let n = segments.max(3);
    let mut vertices = vec![Vec3::ZERO];
    vertices.extend((0..n).map(|i| {
        let a = TAU * i as f32 / n as f32;
        Vec3::new(radius * a.cos(), radius * a.sin(), 0.0)
    }));
    // Clockwise seen from above, so the normal points down.
    let triangles = (0..n).map(|i| [0, 1 + (i + 1) % n, 1 + i]).collect();
    TriMesh {
        vertices,
        triangles,
    }
}

/// `mesh` with every vertex transformed by `m` (a rigid or positively scaled matrix keeps the
/// triangles outward-facing).
pub fn transformed(mesh: &TriMesh, m: Mat4) -> TriMesh {
    TriMesh {
        vertices: mesh
            .vertices
            .iter()
            .map(|v| m.transform_point3(*v))
            .collect(),
        triangles: mesh.triangles.clone(),
    }
}

/// One mesh holding several closed meshes (each part stays its own closed shell).
pub fn merged(parts: &[TriMesh]) -> TriMesh {
    let mut out = TriMesh::default();
    for part in parts {
        let base = out.vertices.len() as u32;
        out.vertices.extend_from_slice(&part.vertices);
        out.triangles
            .extend(part.triangles.iter().map(|t| t.map(|i| i + base)));
    }
    out
}

/// A ceiling-fan-like rotor about the local z axis: a cylindrical hub and `blades` flat,
/// pitched blades (boxes with thickness). Blades start a little inside the hub so no gap opens
/// between them; every part is a closed shell of its own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FanShape {
    pub blades: u32,
    pub hub_radius: f32,
    pub hub_height: f32,
    /// Distance from the axis to the blade tips.
    pub tip_radius: f32,
    /// Blade size across (tangential) and through (thickness).
    pub blade_width: f32,
    pub blade_thickness: f32,
    /// Blade twist about its own radial axis, radians (0 = flat, horizontal).
    pub pitch: f32,
    /// Sides of the hub cylinder.
    pub hub_segments: u32,
}

impl FanShape {
    /// Where each blade starts, measured from the axis: inside the hub by a quarter of its
    /// radius, so the blade's root is buried in the hub.
    pub fn blade_root(&self) -> f32 {
        0.75 * self.hub_radius
    }

    /// Half extents of every blade box in its own frame (x radial, y across, z thickness).
    pub fn blade_half_extents(&self) -> Vec3 {
        Vec3::new(
            0.5 * (self.tip_radius - self.blade_root()),
            0.5 * self.blade_width,
            0.5 * self.blade_thickness,
        )
    }

    /// Fan-local pose of each blade box (maps the box's own frame, centred on its middle, into
    /// the fan's frame). A point p is inside blade k when `pose.inverse() * p` lies within
    /// `blade_half_extents`.
    pub fn blade_poses(&self) -> Vec<Mat4> {
        let middle = 0.5 * (self.blade_root() + self.tip_radius);
        (0..self.blades)
            .map(|k| {
                let angle = TAU * k as f32 / self.blades as f32;
                Mat4::from_rotation_z(angle)
                    * Mat4::from_translation(Vec3::new(middle, 0.0, 0.0))
                    * Mat4::from_rotation_x(self.pitch)
            })
            .collect()
    }

    /// Signed distance from the fan-local point `p` to the fan: negative inside the hub or a
    /// blade, positive outside. The hub counts as the cylinder inscribed in its prism, so a
    /// point reported inside is inside the mesh.
    pub fn signed_distance(&self, p: Vec3) -> f32 {
        let hub_inscribed = self.hub_radius * (PI / self.hub_segments as f32).cos();
        let hub = box_like_distance(glam::Vec2::new(
            p.truncate().length() - hub_inscribed,
            p.z.abs() - 0.5 * self.hub_height,
        ));
        let half = self.blade_half_extents();
        self.blade_poses()
            .iter()
            .map(|pose| {
                let q = pose.inverse().transform_point3(p).abs() - half;
                let outside = q.max(Vec3::ZERO).length();
                outside + q.max_element().min(0.0)
            })
            .fold(hub, f32::min)
    }

    /// True if the fan-local point `p` is inside the hub or a blade.
    pub fn contains(&self, p: Vec3) -> bool {
        self.signed_distance(p) <= 0.0
    }

    pub fn mesh(&self) -> TriMesh {
        let mut parts = vec![cylinder(
            self.hub_radius,
            self.hub_height,
            self.hub_segments,
        )];
        let blade = box_mesh(self.blade_half_extents());
        parts.extend(
            self.blade_poses()
                .into_iter()
                .map(|m| transformed(&blade, m)),
        );
        merged(&parts)
    }
}

/// Signed distance of a 2-D box given per-axis excess distances (|p| - half extent).
fn box_like_distance(q: glam::Vec2) -> f32 {
    q.max(glam::Vec2::ZERO).length() + q.max_element().min(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{enclosed_volume, open_edge_count, surface_area};

    fn assert_closed_with_volume(mesh: &TriMesh, expected: f32, tolerance: f32) {
        assert_eq!(open_edge_count(mesh), 0, "mesh has open edges");
        let volume = enclosed_volume(&mesh.vertices, &mesh.triangles);
        assert!(
            ((volume - expected) / expected).abs() <= tolerance,
            "volume {volume}, expected {expected} ± {}%",
            tolerance * 100.0
        );
    }

    #[test]
    fn icosphere_is_closed_with_the_sphere_volume() {
        let r = 0.03;
        let m = icosphere(r, 4);
        assert_eq!(m.triangles.len(), 20 * 4usize.pow(4));
        // Faces cut inside the sphere; at 5120 triangles the volume is within 0.5 %.
        assert_closed_with_volume(&m, 4.0 / 3.0 * PI * r.powi(3), 0.005);
        assert!(m.vertices.iter().all(|v| (v.length() - r).abs() < 1e-6));
        let area = surface_area(&m.vertices, &m.triangles);
        assert!((area / (4.0 * PI * r * r) - 1.0).abs() < 0.005);
    }

    #[test]
    fn box_is_closed_with_the_box_volume() {
        let h = Vec3::new(0.1, 0.02, 0.005);
        assert_closed_with_volume(&box_mesh(h), 8.0 * h.x * h.y * h.z, 1e-5);
        let area = surface_area(&box_mesh(h).vertices, &box_mesh(h).triangles);
        assert!((area - 8.0 * (h.x * h.y + h.y * h.z + h.z * h.x)).abs() < 1e-6);
    }

    #[test]
    fn cylinder_is_closed_with_the_cylinder_volume() {
        let (r, h) = (0.02, 0.03);
        // A 64-sided prism holds sin(2π/64)·64/(2π) of the circle's area: 0.16 % less.
        assert_closed_with_volume(&cylinder(r, h, 64), PI * r * r * h, 0.002);
    }

    #[test]
    fn rigid_transforms_keep_meshes_closed_and_outward() {
        let m = Mat4::from_rotation_translation(
            glam::Quat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0),
            Vec3::new(1.0, -2.0, 0.5),
        );
        let h = Vec3::new(0.1, 0.2, 0.3);
        assert_closed_with_volume(&transformed(&box_mesh(h), m), 8.0 * h.x * h.y * h.z, 1e-4);
    }

    fn test_fan() -> FanShape {
        FanShape {
            blades: 4,
            hub_radius: 0.02,
            hub_height: 0.02,
            tip_radius: 0.1,
            blade_width: 0.03,
            blade_thickness: 0.004,
            pitch: 0.35,
            hub_segments: 48,
        }
    }

    #[test]
    fn fan_is_closed_with_the_volume_of_its_parts() {
        let fan = test_fan();
        let mesh = fan.mesh();
        let h = fan.blade_half_extents();
        // The parts overlap where the blades enter the hub; the enclosed volume of separate
        // shells is the sum of the parts.
        let prism = (TAU / 48.0).sin() * 48.0 / TAU;
        let parts = PI * fan.hub_radius.powi(2) * fan.hub_height * prism
            + fan.blades as f32 * 8.0 * h.x * h.y * h.z;
        assert_closed_with_volume(&mesh, parts, 0.002);
        assert_eq!(mesh.triangles.len(), 4 * 48 + 4 * 12);
    }

    #[test]
    fn fan_contains_its_blades_and_not_the_gaps_between_them() {
        let fan = test_fan();
        let mid = 0.5 * (fan.blade_root() + fan.tip_radius);
        for k in 0..4 {
            let a = TAU * k as f32 / 4.0;
            let (c, s) = (a.cos(), a.sin());
            assert!(fan.contains(Vec3::new(mid * c, mid * s, 0.0)));
            // Halfway between two blades, at the same radius: empty.
            let b = a + TAU / 8.0;
            assert!(!fan.contains(Vec3::new(mid * b.cos(), mid * b.sin(), 0.0)));
            // Beyond the tip: empty.
            assert!(!fan.contains(Vec3::new(
                1.05 * fan.tip_radius * c,
                1.05 * fan.tip_radius * s,
                0.0
            )));
        }
        // Distances: 1 mm above the hub's top, 2 mm above the middle of a flat blade.
        let above_hub = fan.signed_distance(Vec3::new(0.0, 0.0, 0.011));
        assert!((above_hub - 0.001).abs() < 1e-6, "{above_hub}");
        let flat = FanShape { pitch: 0.0, ..fan };
        let above_blade = flat.signed_distance(Vec3::new(mid, 0.0, 0.002 + 0.002));
        assert!((above_blade - 0.002).abs() < 1e-6, "{above_blade}");
        assert!(fan.contains(Vec3::new(0.0, 0.0, 0.009)));
        assert!(!fan.contains(Vec3::new(0.0, 0.0, 0.011)));
    }

    #[test]
    fn builders_are_deterministic() {
        assert_eq!(icosphere(0.5, 3), icosphere(0.5, 3));
        assert_eq!(test_fan().mesh(), test_fan().mesh());
    }
}
