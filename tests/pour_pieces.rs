//! A honey pour sheds no spray: after touchdown its surface is one piece (the rope and its
//! pile), beside which only real drops of at least 8 particles may float, never specks around
//! single particles that left the rope. Voids inside the liquid are not pieces of it.

use std::sync::atomic::AtomicBool;

use gloop::demos::honey_pour;
use gloop::surface::{mesh_particles, SurfaceSettings};
use gloop::validation::pieces::pieces;
use gloop::Simulation;

/// The smallest separate body of liquid that may float beside the rope.
const SMALLEST_DROP: usize = 8;

#[test]
fn a_honey_pour_is_one_piece_plus_only_real_drops() {
    let r = honey_pour::DEFAULT_RADIUS;
    let (fps, seconds) = (24.0, 0.6);
    let scene = honey_pour::scene(r, fps, seconds);
    let mut sim = Simulation::new(&scene).unwrap();
    let cancel = AtomicBool::new(false);
    let (mut judged, mut specks) = (0, Vec::new());
    for _ in 0..(seconds * fps).round() as usize {
        sim.step_frame(&cancel).unwrap();
        let x = &sim.liquid().position;
        if !x.iter().any(|p| p.z < honey_pour::PLATE_TOP + 3.0 * r) {
            continue;
        }
        judged += 1;
        let mesh = mesh_particles(x, &[], &[], r, &SurfaceSettings::default());
        let bodies: Vec<usize> = pieces(&mesh, x)
            .into_iter()
            .filter(|p| !p.is_void())
            .map(|p| p.particles)
            .collect();
        assert!(!bodies.is_empty(), "frame {}: no surface", sim.frame());
        // The first is the rope with its pile; every other must be a drop of its own.
        let small: Vec<usize> = bodies[1..]
            .iter()
            .copied()
            .filter(|&n| n < SMALLEST_DROP)
            .collect();
        if !small.is_empty() {
            specks.push((sim.frame(), small));
        }
    }
    assert!(judged >= 8, "the pour touched down in only {judged} frames");
    assert!(
        specks.is_empty(),
        "pieces of fewer than {SMALLEST_DROP} particles beside the rope (frame, their \
         particles): {specks:?}"
    );
}
