//! `gloop validate`: prints every check of the chosen scenes and exits non-zero exactly when
//! one fails.

use std::process::Command;

#[test]
fn validate_prints_every_check_and_its_verdict() {
    let all = gloop::validation::scenarios();
    let first = all.first().expect("at least one validation scene");
    let checks = (first.run)().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gloop"))
        .args(["validate", first.name])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    for check in &checks {
        assert!(
            stdout.contains(&check.what),
            "missing '{}' in {stdout}",
            check.what
        );
    }
    let verdicts = stdout.lines().filter(|l| {
        l.contains(" measured ")
            && (l.ends_with(" PASS") || l.ends_with(" FAIL") || l.ends_with(" info"))
    });
    assert_eq!(verdicts.count(), checks.len(), "{stdout}");
    // Figures shown for information say so rather than claiming a pass.
    let shown = stdout.lines().filter(|l| l.ends_with(" info")).count();
    assert_eq!(
        shown,
        checks.iter().filter(|c| !c.judged).count(),
        "{stdout}"
    );
    let all_pass = checks.iter().all(|c| c.pass);
    assert_eq!(out.status.success(), all_pass, "{stdout}");
    assert!(stdout.contains(if all_pass { "=> PASS" } else { "=> FAIL" }));
    // Only the named scene ran.
    for other in all.iter().skip(1) {
        assert!(!stdout.contains(&format!("{}:", other.name)), "{stdout}");
    }
}
