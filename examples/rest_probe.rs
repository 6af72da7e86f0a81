//! `rest_probe RADIUS NX NY NZ SETTLE WATCH [classic]`: rest-tank figures for one block.
use gloop::scene::ViscosityModel;
use gloop::validation::rest_tank::measure;

fn main() {
    let a: Vec<f32> = std::env::args()
        .skip(1)
        .take(6)
        .map(|s| s.parse().unwrap())
        .collect();
    let model = if std::env::args().nth(7).as_deref() == Some("classic") {
        ViscosityModel::Classic
    } else {
        ViscosityModel::Implicit
    };
    let t = std::time::Instant::now();
    let f = measure(a[0], glam::Vec3::new(a[1], a[2], a[3]), model, a[4], a[5]).unwrap();
    println!("{model:?}: {f:?} ({:.1}s)", t.elapsed().as_secs_f32());
}
