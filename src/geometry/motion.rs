//! An object's world-space vertex positions at any (fractional) frame.

use glam::{Mat4, Vec3};

use crate::scene::{Motion, TriMesh};

/// World-space vertices of `mesh` under `motion` at `frame` (fractional frames interpolate;
/// outside the exported range the nearest pose holds).
pub fn world_vertices(mesh: &TriMesh, motion: &Motion, frame: f32) -> Vec<Vec3> {
    match motion {
        Motion::Static { matrix } => transform(&mesh.vertices, matrix),
        Motion::Rigid {
            first_frame,
            matrices,
        } => {
            let m = interpolate_matrix(matrices, frame - *first_frame as f32);
            transform(&mesh.vertices, &m)
        }
        Motion::Deforming {
            first_frame,
            positions,
        } => {
            let (k, t) = bracket(positions.len(), frame - *first_frame as f32);
            if t == 0.0 {
                positions[k].clone()
            } else {
                positions[k]
                    .iter()
                    .zip(&positions[k + 1])
                    .map(|(a, b)| a.lerp(*b, t))
                    .collect()
            }
        }
    }
}

fn transform(vertices: &[Vec3], m: &Mat4) -> Vec<Vec3> {
    vertices.iter().map(|v| m.transform_point3(*v)).collect()
}

/// Index of the pose at or before `x` and the fraction towards the next one (clamped).
fn bracket(count: usize, x: f32) -> (usize, f32) {
    if x.is_nan() || x <= 0.0 || count <= 1 {
        return (0, 0.0);
    }
    let last = (count - 1) as f32;
    if x >= last {
        return (count - 1, 0.0);
    }
    let k = x.floor();
    (k as usize, x - k)
}

/// Rigid interpolation: translation and scale lerp, rotation slerp. Exact frames return the
/// exported matrix untouched.
fn interpolate_matrix(matrices: &[Mat4], x: f32) -> Mat4 {
    let (k, t) = bracket(matrices.len(), x);
    if t == 0.0 {
        return matrices[k];
    }
    let (s0, r0, t0) = matrices[k].to_scale_rotation_translation();
    let (s1, r1, t1) = matrices[k + 1].to_scale_rotation_translation();
    Mat4::from_scale_rotation_translation(s0.lerp(s1, t), r0.slerp(r1, t), t0.lerp(t1, t))
}
