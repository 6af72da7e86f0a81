//! Volume, centre of mass and inertia tensor of a closed triangle mesh of uniform density, by
//! the divergence theorem: the solid is the signed sum of the tetrahedra each outward triangle
//! makes with a reference point, and each tetrahedron's moments have closed forms. For the
//! tetrahedron (0, a, b, c) of signed volume V = a·(b×c)/6:
//!
//!   ∫ dV = V,   ∫ x dV = V (a + b + c)/4,   ∫ x xᵀ dV = V/20 (a aᵀ + b bᵀ + c cᵀ + s sᵀ),
//!
//! s = a + b + c. The inertia tensor about the centre of mass c̄ is ρ (tr(C) 𝟙 − C) with
//! C = ∫ x xᵀ dV − V c̄ c̄ᵀ. Everything is summed in f64 relative to the mesh's first vertex, so
//! a small body far from the origin keeps its digits.

use glam::{DMat3, DVec3, Vec3};

/// A uniform solid's mass properties, in the mesh's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// m³; positive for a closed, outward-facing mesh.
    pub volume: f64,
    /// kg.
    pub mass: f64,
    /// The centre of mass, in the mesh's coordinates.
    pub centre: DVec3,
    /// kg·m², about the centre of mass, along the mesh's axes.
    pub inertia: DMat3,
}

/// The volume, centre and second moment ∫ x xᵀ dV (about the first vertex) of the solid the
/// closed mesh encloses, or `None` for a mesh without triangles.
fn moments(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Option<(f64, DVec3, DVec3, DMat3)> {
    let origin = vertices.first()?.as_dvec3();
    let mut volume = 0.0;
    let mut first = DVec3::ZERO;
    let mut second = DMat3::ZERO;
    for t in triangles {
        let [a, b, c] = t.map(|i| vertices[i as usize].as_dvec3() - origin);
        let v = a.dot(b.cross(c)) / 6.0;
        let s = a + b + c;
        volume += v;
        first += s * (v / 4.0);
        second += (outer(a) + outer(b) + outer(c) + outer(s)) * (v / 20.0);
    }
    Some((volume, first, origin, second))
}

fn outer(a: DVec3) -> DMat3 {
    DMat3::from_cols(a * a.x, a * a.y, a * a.z)
}

impl MassProperties {
    /// The mass properties of the closed mesh filled at `density` kg/m³. `None` when it
    /// encloses no volume (empty, flat, or inside out), which a rigid body cannot be.
    pub fn of_mesh(vertices: &[Vec3], triangles: &[[u32; 3]], density: f64) -> Option<Self> {
        let (volume, first, origin, second) = moments(vertices, triangles)?;
        if !(volume > 0.0 && volume.is_finite()) {
            return None;
        }
        let centre = first / volume;
        let central = second - outer(centre) * volume;
        let trace = central.x_axis.x + central.y_axis.y + central.z_axis.z;
        let inertia = (DMat3::from_diagonal(DVec3::splat(trace)) - central) * density;
        Some(MassProperties {
            volume,
            mass: volume * density,
            centre: centre + origin,
            inertia,
        })
    }

    /// The same solid with its mass set to `mass` (its density follows).
    pub fn with_mass(self, mass: f64) -> Self {
        let scale = mass / self.mass;
        MassProperties {
            mass,
            inertia: self.inertia * scale,
            ..self
        }
    }

    /// The solid's density, kg/m³.
    pub fn density(&self) -> f64 {
        self.mass / self.volume
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::box_mesh;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance * b.abs().max(1e-30)
    }

    #[test]
    fn a_box_has_its_closed_form_volume_centre_and_inertia() {
        let (lo, hi) = (Vec3::new(1.0, -2.0, 0.5), Vec3::new(3.0, -1.0, 0.75));
        let mesh = box_mesh(lo, hi);
        let density = 800.0;
        let m = MassProperties::of_mesh(&mesh.vertices, &mesh.triangles, density).unwrap();
        let (a, b, c) = (2.0, 1.0, 0.25);
        let mass = a * b * c * density;
        assert!(close(m.volume, a * b * c, 1e-12), "{m:?}");
        assert!(close(m.mass, mass, 1e-12));
        assert!((m.centre - DVec3::new(2.0, -1.5, 0.625)).length() < 1e-12);
        let expected = DVec3::new(b * b + c * c, a * a + c * c, a * a + b * b) * (mass / 12.0);
        let diagonal = DVec3::new(m.inertia.x_axis.x, m.inertia.y_axis.y, m.inertia.z_axis.z);
        assert!(
            (diagonal - expected).length() < 1e-9 * expected.length(),
            "{diagonal}"
        );
        // The box's axes are principal: no products of inertia.
        for (i, j) in [(0, 1), (0, 2), (1, 2)] {
            assert!(m.inertia.col(i)[j].abs() < 1e-9 * expected.length());
        }
    }

    #[test]
    fn a_sphere_tends_to_two_fifths_m_r_squared() {
        let radius = 0.005;
        let mesh = crate::demos::shapes::icosphere(radius, 5);
        let m = MassProperties::of_mesh(&mesh.vertices, &mesh.triangles, 7800.0).unwrap();
        // The inscribed polyhedron loses a little volume (0.05% at five splits).
        let ball = 4.0 / 3.0 * std::f64::consts::PI * (radius as f64).powi(3);
        assert!(close(m.volume, ball, 2e-3), "{} against {ball}", m.volume);
        assert!(m.centre.length() < 1e-9);
        let expected = 0.4 * m.mass * (radius as f64).powi(2);
        for axis in 0..3 {
            assert!(
                close(m.inertia.col(axis)[axis], expected, 3e-3),
                "{:?} against {expected}",
                m.inertia
            );
        }
        let with_mass = m.with_mass(1.0);
        assert!(close(
            with_mass.inertia.x_axis.x,
            0.4 * (radius as f64).powi(2),
            3e-3
        ));
    }

    #[test]
    fn an_inside_out_or_flat_mesh_has_none() {
        let mesh = box_mesh(Vec3::ZERO, Vec3::ONE);
        let inside_out: Vec<[u32; 3]> = mesh.triangles.iter().map(|t| [t[0], t[2], t[1]]).collect();
        assert!(MassProperties::of_mesh(&mesh.vertices, &inside_out, 1.0).is_none());
        let flat = box_mesh(Vec3::ZERO, Vec3::new(1.0, 1.0, 0.0));
        assert!(MassProperties::of_mesh(&flat.vertices, &flat.triangles, 1.0).is_none());
        assert!(MassProperties::of_mesh(&[], &[], 1.0).is_none());
    }
}
