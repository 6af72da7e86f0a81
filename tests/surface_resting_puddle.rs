//! The issue's `resting-puddle` at a CI-friendly size: the real solver, then the mesher.
use gloop::validation::resting_puddle;

#[test]
fn a_settled_puddle_does_not_shimmer() {
    let figures = resting_puddle::measure(0.005, [10, 10, 3], 48, 40).unwrap();
    let checks = resting_puddle::checks(&figures);
    for c in &checks {
        println!("{c}");
    }
    assert!(checks.iter().all(|c| c.pass), "{checks:#?}");
}
