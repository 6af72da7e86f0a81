//! Honey at rest in a tank with the implicit viscosity holds still as well as the solver's
//! resting-block test requires (the `rest-tank` scene, shortened): density within 1%, RMS
//! speed under 1 cm/s, the tank carrying the weight, no volume drift.
use glam::Vec3;
use gloop::scene::ViscosityModel;
use gloop::validation::rest_tank::measure;

#[test]
fn honey_block_rests_with_implicit_viscosity() {
    let f = measure(
        0.005,
        Vec3::new(8.0, 8.0, 6.0),
        ViscosityModel::Implicit,
        2.0,
        1.0,
    )
    .unwrap();
    assert!(f.max_density_error <= 0.0101, "{f:?}");
    assert!(f.max_rms_speed < 0.01, "{f:?}");
    assert!((f.load_over_weight - 1.0).abs() <= 0.05, "{f:?}");
    assert!(f.volume_drift <= 0.005, "{f:?}");
}
