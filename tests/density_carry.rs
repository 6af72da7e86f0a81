//! The density correction starts each substep from a share of the last one's summed steps
//! (`density::CARRY`): what held a resting column up a substep ago mostly still does, so the
//! passes only find the difference.

use std::sync::atomic::AtomicBool;

use glam::Vec3;
use gloop::scene::ViscosityModel;
use gloop::validation::rest_tank;
use gloop::Simulation;

/// A settled column of 8 layers (the resting tank's height), one frame on from its carried
/// steps and from none (as a bake's first frame starts). Only the first substep differs (the
/// others carry again), and without its carry that substep must take at least one and a half
/// times the passes of a carried one: measured 34 passes for the carried frame (about 8.5 a
/// substep) and 40 from none, whose first substep thus took about 14.5. (Taller columns
/// reach a correction's tail, whose lift and momentum do much of what the carry did: at 24
/// layers 80 passes carried and 95 from none; before the tail, 105 and 144.)
#[test]
fn a_settled_column_is_held_up_in_fewer_passes_with_the_carry() {
    let scene = rest_tank::scene(0.005, Vec3::new(6.0, 6.0, 8.0), ViscosityModel::Implicit);
    let cancel = AtomicBool::new(false);
    let mut sim = Simulation::new(&scene).unwrap();
    for _ in 0..24 {
        sim.step_frame(&cancel).unwrap();
    }
    let settled = sim.liquid().clone();
    assert_eq!(settled.density_steps.len(), settled.len());
    let mut without = settled.clone();
    without.density_steps.clear();
    let frame = sim.frame();
    let run = |liquid| {
        let mut sim = Simulation::resume(&scene, frame, liquid).unwrap();
        sim.step_frame(&cancel).unwrap()
    };
    let (carried, cold) = (run(settled), run(without));
    let tolerance = scene.settings.density_tolerance;
    assert!(carried.worst_density_error <= tolerance, "{carried:?}");
    assert!(cold.worst_density_error <= tolerance, "{cold:?}");
    let per_carried_substep = carried.density_iterations / carried.substeps;
    assert!(
        2 * cold.density_iterations >= 2 * carried.density_iterations + per_carried_substep,
        "carried {} passes, from none {}",
        carried.density_iterations,
        cold.density_iterations
    );
}
