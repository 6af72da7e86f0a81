use gloop::surface::SurfaceSettings;
use gloop::validation::sphere::sphere_checks;

#[test]
fn lattice_ball_meshes_to_a_round_closed_sphere() {
    let checks = sphere_checks(10.0, &SurfaceSettings::default());
    for c in &checks {
        println!("{c}");
    }
    assert!(checks.iter().all(|c| c.pass));
}
