//! The `gloop validate` surface scenes at CI size (they are already small).
//!
//! Issue 33 raised the bar for the mesher; where today's mesher does not reach it yet, the
//! figures are printed and the check is listed as expected to fail, so these tests still catch
//! every regression in what passes. TODO(issue 33): empty each `NOT_YET` list as the
//! anisotropic mesher and obstacle contact land.

use gloop::surface::SurfaceSettings;
use gloop::validation::sphere::sphere_checks;
use gloop::validation::thread::{thread_checks, LENGTH, RADII};
use gloop::validation::translated_blob::translated_blob_checks;
use gloop::validation::{flat_coat, Check};

/// Prints every check and asserts that each passes, except those whose description contains
/// one of `not_yet` (issue 33's bar that today's mesher does not reach).
fn assert_pass_except(checks: &[Check], not_yet: &[&str]) {
    for c in checks {
        println!("{c}");
    }
    let failed: Vec<_> = checks
        .iter()
        .filter(|c| !c.pass && !not_yet.iter().any(|n| c.what.contains(n)))
        .map(|c| c.what.clone())
        .collect();
    assert!(failed.is_empty(), "failed: {failed:?}");
}

fn assert_all_pass(checks: &[Check]) {
    assert_pass_except(checks, &[]);
}

#[test]
fn balls_of_radius_10r_mesh_to_round_closed_manifold_spheres() {
    // TODO(issue 33): the jittered ball is 0.54% of R off round (limit 0.5%).
    const NOT_YET: &[&str] = &["jittered: RMS radial deviation / R"];
    assert_pass_except(&sphere_checks(10.0, &SurfaceSettings::default()), NOT_YET);
}

#[test]
fn translated_blob_keeps_its_area_within_0_2_percent() {
    assert_all_pass(&translated_blob_checks(8, &SurfaceSettings::default()));
}

#[test]
fn threads_mesh_as_round_even_cylinders() {
    // TODO(issue 33): today's isotropic field leaves thin threads beaded (1.5 r: area 5.03%
    // std/mean) and all but the 3 r thread more than 3% of their radius off round.
    const NOT_YET: &[&str] = &[
        "R = 1.5 r: cross-section area",
        "R = 1.5 r: RMS off best-fit cylinder",
        "R = 2 r: RMS off best-fit cylinder",
        "R = 4 r: RMS off best-fit cylinder",
    ];
    let checks = thread_checks(&RADII, LENGTH, &SurfaceSettings::default());
    assert_pass_except(&checks, NOT_YET);
}

#[test]
fn a_settled_coat_meshes_flat_and_never_below_its_floor() {
    // TODO(issue 33): the top is 0.09 r RMS off flat (limit 0.05 r), and the bottom floats
    // about 1.2 r above the floor until the mesher knows the obstacles.
    const NOT_YET: &[&str] = &[
        "top: RMS height deviation",
        "bottom: largest height above the plane",
    ];
    let f = flat_coat::measure(
        flat_coat::RADIUS,
        flat_coat::CELLS,
        flat_coat::SETTLE_FRAMES,
        flat_coat::EDGE,
    )
    .unwrap();
    assert_pass_except(&flat_coat::checks(&f), NOT_YET);
}
