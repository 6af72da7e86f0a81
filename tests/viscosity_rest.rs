//! Honey at rest in a tank with the implicit viscosity holds still (the `rest-tank` scene,
//! shortened): density within 1%, the tank carrying the weight, no volume drift, and frames
//! that end nearly still.
//!
//! The speeds are bounds for this small tank's first second after settling, where the full
//! scene's limit (1e-3·√(gH), 7.7e-4 m/s here) is not yet met: its worst frame measured
//! 1.1-1.4e-3 m/s and its median 3.2-4.0e-4 at r and r ± 0.6%. Before frames ended with the
//! viscosity applied and the last density pass cut at the tolerance, the same runs measured
//! 4.1-7.9e-3 and 2.2-3.3e-3.
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
    assert!(f.max_density_error <= 0.01, "{f:?}");
    assert!(f.max_rms_speed <= 2.5e-3, "{f:?}");
    assert!(f.median_rms_speed <= 1e-3, "{f:?}");
    assert!((f.load_over_weight - 1.0).abs() <= 0.05, "{f:?}");
    assert!(f.volume_drift <= 0.005, "{f:?}");
}
