//! Runs validation scenes as `gloop validate [NAME…]` will: prints every check and exits
//! non-zero on a FAIL. `cargo run --release --example validate -- viscometer spinning-blob`.
use gloop::validation::scenarios;

fn main() {
    let names: Vec<String> = std::env::args().skip(1).collect();
    let mut failed = false;
    for s in scenarios() {
        if !names.is_empty() && !names.iter().any(|n| n == s.name) {
            continue;
        }
        println!("{}: {}", s.name, s.description);
        let t = std::time::Instant::now();
        match (s.run)() {
            Ok(checks) => {
                for c in &checks {
                    println!("{c}");
                    failed |= !c.pass;
                }
            }
            Err(e) => {
                println!("  error: {e}");
                failed = true;
            }
        }
        println!("  ({:.1} s)", t.elapsed().as_secs_f32());
    }
    std::process::exit(i32::from(failed));
}
