//! The particle cap counts what the bake will make: an obstacle's cheap upper bound (up to 3×
//! its samples on a plain box) never refuses a scene whose real count fits, since the Bake
//! panel counts obstacles exactly and says it fits.

use gloop::sim::Simulation;

mod bake_support;
use bake_support::tiny_scene;

#[test]
fn a_scene_that_fits_the_cap_exactly_is_accepted_and_one_over_is_refused() {
    let scene = tiny_scene(2);
    let sim = Simulation::new(&scene).unwrap();
    let made = (sim.liquid().len() + sim.object_positions().len()) as u64;

    let mut fits = scene.clone();
    fits.settings.max_particles = made;
    fits.validate().unwrap();

    let mut over = scene.clone();
    over.settings.max_particles = made - 1;
    let refused = over.validate().unwrap_err().to_string();
    assert!(refused.contains(&format!("{made} particles")), "{refused}");
}
