//! Where a stop puts liquid that touches a closed obstacle's particles.

use glam::Vec3;

use super::obstacle_push;
use crate::sim::neighbours::Row;
use crate::sim::objects::ObjectParticles;
use crate::sim::params::Params;
use crate::sim::tests::{setup, RADIUS};

/// The top face of a closed obstacle: one-sided particles at spacing 2r over x, y in
/// [0, 10r], z = 0, facing +z.
fn top_face() -> ObjectParticles {
    let mut face = ObjectParticles::default();
    for y in 0..=5 {
        for x in 0..=5 {
            face.position
                .push(Vec3::new(x as f32, y as f32, 0.0) * 2.0 * RADIUS);
            face.normal.push(Vec3::Z);
            face.velocity.push(Vec3::ZERO);
            face.material.push(0);
            face.one_sided.push(true);
        }
    }
    face
}

/// The push `face` gives a liquid particle at `at` (in radii), every face particle listed.
fn push_at(p: &Params, face: &ObjectParticles, at: Vec3) -> Vec3 {
    let all: Vec<u32> = (0..face.position.len() as u32).collect();
    obstacle_push(p, at * RADIUS, face, Row::Wide(&all)) / RADIUS
}

#[test]
fn liquid_under_a_face_goes_out_along_its_normal() {
    let (_, p, _) = setup(0);
    let face = top_face();
    let contact = p.object_contact / RADIUS;
    // Under the face's middle, 0.3 r deep: it has tunnelled in.
    let push = push_at(&p, &face, Vec3::new(5.0, 5.0, -0.3));
    let out = Vec3::Z * (contact + 0.3);
    assert!(push.distance(out) < 1e-4, "pushed {push} r, not {out} r");
}

#[test]
fn liquid_beside_a_face_edge_is_pushed_aside_not_thrown_over_it() {
    let (_, p, _) = setup(0);
    let face = top_face();
    let contact = p.object_contact / RADIUS;
    // Level with the face, 0.1 r below its plane, 2.3 r beyond its edge at x = 10 r: it
    // touches only the edge particle at (10 r, 4 r), from the side.
    let at = Vec3::new(12.3, 4.0, -0.1);
    let push = push_at(&p, &face, at);
    let depth = contact - at.distance(Vec3::new(10.0, 4.0, 0.0));
    assert!(depth > 0.0, "the test's particle touches the edge");
    assert!(
        push.length() <= depth + 1e-4 && push.x > 0.9 * push.length(),
        "pushed {push} r: away from the edge particle by at most {depth} r expected"
    );
}
