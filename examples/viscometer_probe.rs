//! Prints the viscometer's fitted ν for one case: `cargo run --release --example viscometer_probe -- NU RADIUS SUBSTEPS [classic]`.
use gloop::scene::ViscosityModel;
use gloop::validation::viscometer::Viscometer;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let nu: f32 = a[1].parse().unwrap();
    let r: f32 = a[2].parse().unwrap();
    let s: u32 = a[3].parse().unwrap();
    let mut v = Viscometer::standard(nu, r, s);
    if a.get(4).map(String::as_str) == Some("classic") {
        v.model = ViscosityModel::Classic;
    }
    let t = std::time::Instant::now();
    let m = v.measure(8.0).unwrap();
    println!(
        "nu {nu} r {r} substeps {s}: fitted {m:.4e} ratio {:.4} ({:.1}s)",
        m / nu,
        t.elapsed().as_secs_f32()
    );
}
