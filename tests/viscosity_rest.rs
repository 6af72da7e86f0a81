//! Honey at rest in a tank with the implicit viscosity holds still (the `rest-tank` scene,
//! shortened): density within 1%, the tank carrying the weight, no volume drift, and frames
//! that end nearly still.
//!
//! A small tank, settled 3 s and watched for 1 s, at five radii within ±1.2% of 5 mm. How
//! still one tank ends is chaotic: rounding the viscosity's pair sums in another order (the
//! same physics) moved the RMS speed over the window at 5 mm from 2.4e-4 to 9.1e-4 m/s, and
//! over the five radii it measured 2.4e-4-1.3e-3 before that change and 2.9e-4-9.1e-4
//! after it. So the tank is watched at all five: their median must meet the full scene's
//! limit, 1e-3·√(gH) (7.7e-4 m/s here), and none may exceed twice it; every frame's RMS
//! speed stays within 2.5e-3 m/s (measured up to 2.2e-3) and the median frame's within
//! 1e-3 (up to 1.3e-3 at one radius, so that too is a median over the radii). After only
//! 2 s of settling (as before the density correction's carry, which lengthens the settling)
//! the same second measured up to 1.2e-3 over the window and 2.1e-3 in its worst frame at
//! 5 mm. Before frames ended with the viscosity applied and the last density pass cut at
//! the tolerance, worst and median frames measured 4.1-7.9e-3 and 2.2-3.3e-3.
use glam::Vec3;
use gloop::scene::ViscosityModel;
use gloop::validation::rest_tank::measure;

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

#[test]
fn honey_block_rests_with_implicit_viscosity() {
    let mut windows = Vec::new();
    let mut medians = Vec::new();
    let mut limit = 0.0;
    for radius in [0.00494, 0.00497, 0.005, 0.00503, 0.00506] {
        let f = measure(
            radius,
            Vec3::new(8.0, 8.0, 6.0),
            ViscosityModel::Implicit,
            3.0,
            1.0,
        )
        .unwrap();
        eprintln!("r = {radius}: {f:?}");
        limit = 1e-3 * f.speed_scale;
        assert!(f.max_density_error <= 0.01, "r = {radius}: {f:?}");
        assert!(f.window_rms_speed <= 2.0 * limit, "r = {radius}: {f:?}");
        assert!(f.max_rms_speed <= 2.5e-3, "r = {radius}: {f:?}");
        assert!(
            (f.load_over_weight - 1.0).abs() <= 0.05,
            "r = {radius}: {f:?}"
        );
        assert!(f.volume_drift <= 0.005, "r = {radius}: {f:?}");
        windows.push(f.window_rms_speed);
        medians.push(f.median_rms_speed);
    }
    assert!(median(windows.clone()) <= limit, "windows {windows:?}");
    assert!(median(medians.clone()) <= 1e-3, "median frames {medians:?}");
}
