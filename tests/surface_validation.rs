//! The `gloop validate` surface scenes at CI size (they are already small).

use gloop::surface::SurfaceSettings;
use gloop::validation::sphere::sphere_checks;
use gloop::validation::translated_blob::translated_blob_checks;

fn assert_all_pass(checks: &[gloop::validation::Check]) {
    for c in checks {
        println!("{c}");
    }
    let failed: Vec<_> = checks
        .iter()
        .filter(|c| !c.pass)
        .map(|c| c.what.clone())
        .collect();
    assert!(failed.is_empty(), "failed: {failed:?}");
}

#[test]
fn balls_of_radius_10r_mesh_to_round_closed_manifold_spheres() {
    assert_all_pass(&sphere_checks(10.0, &SurfaceSettings::default()));
}

#[test]
fn translated_blob_keeps_its_area_within_0_2_percent() {
    assert_all_pass(&translated_blob_checks(8, &SurfaceSettings::default()));
}
