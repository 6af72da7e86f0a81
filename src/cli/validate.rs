//! `gloop validate [NAME…]`: run physical validation scenes, print every check.

use gloop::validation::scenarios;
use gloop::{GloopError, Result};

/// Returns exit status 1 if any check fails.
pub fn run(names: &[String]) -> Result<i32> {
    let all = scenarios();
    for name in names {
        if !all.iter().any(|s| s.name == name) {
            let known: Vec<&str> = all.iter().map(|s| s.name).collect();
            return Err(GloopError::Other(format!(
                "unknown validation scene '{name}'; known scenes: {}",
                if known.is_empty() {
                    "(none yet)".to_string()
                } else {
                    known.join(", ")
                }
            )));
        }
    }
    let mut failed = 0;
    let mut ran = 0;
    for scenario in all
        .iter()
        .filter(|s| names.is_empty() || names.iter().any(|n| n == s.name))
    {
        println!("{}: {}", scenario.name, scenario.description);
        ran += 1;
        match (scenario.run)() {
            Ok(checks) => {
                for check in &checks {
                    println!("{check}");
                }
                let ok = checks.iter().all(|c| c.pass);
                failed += usize::from(!ok);
                println!("  => {}", if ok { "PASS" } else { "FAIL" });
            }
            Err(e) => {
                failed += 1;
                println!("  => FAIL (error: {e})");
            }
        }
    }
    println!("{} of {ran} validation scenes passed", ran - failed);
    Ok(if failed > 0 { 1 } else { 0 })
}
