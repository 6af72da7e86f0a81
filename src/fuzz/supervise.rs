//! The fuzzer's parent: runs the child process, follows its case reports, and restarts it
//! after a case that crashed it (a signal, an abort) or went silent (a hang, which it kills).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// A case that did not end cleanly.
#[derive(Debug, Clone)]
pub struct Finding {
    pub case: u64,
    /// What was mutated (reproduce with `case_input(seed, case)`).
    pub label: String,
    /// "panic", "crash" or "hang", and what is known.
    pub what: String,
}

#[derive(Debug, Default)]
pub struct Report {
    /// Cases that ran to an outcome, clean or not.
    pub cases: u64,
    pub outcomes: BTreeMap<String, u64>,
    pub findings: Vec<Finding>,
    /// The slowest clean case and its seconds.
    pub slowest: Option<(u64, f64)>,
}

/// Runs cases from 0 until `total` have run or `until` has passed, each child started by
/// `child(first_case)`. A case that reports nothing for `hang_after` is killed as a hang.
pub fn supervise(
    child: &dyn Fn(u64) -> Command,
    total: u64,
    until: Option<Instant>,
    hang_after: Duration,
) -> Report {
    let mut report = Report::default();
    let mut next = 0u64;
    let out_of_time = || until.is_some_and(|t| Instant::now() >= t);
    while next < total && !out_of_time() {
        let mut command = child(next);
        command.stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut process = command.spawn().expect("the fuzz child starts");
        let (lines, received) = mpsc::channel::<String>();
        let stdout = process.stdout.take().expect("piped");
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(|l| l.ok()) {
                if lines.send(line).is_err() {
                    break;
                }
            }
        });
        // The last lines of stderr, for a crash's message (an abort's "memory allocation
        // failed", a signal's name).
        let stderr = process.stderr.take().expect("piped");
        let stderr_tail = std::thread::spawn(move || {
            let mut tail: Vec<String> = Vec::new();
            for line in BufReader::new(stderr).lines().map_while(|l| l.ok()) {
                tail.push(line);
                if tail.len() > 6 {
                    tail.remove(0);
                }
            }
            tail.join(" | ")
        });
        let mut current: Option<(u64, String, Instant)> = None;
        let mut hung = false;
        loop {
            if out_of_time() || next >= total {
                break;
            }
            match received.recv_timeout(hang_after) {
                Ok(line) => {
                    let mut words = line.splitn(4, ' ');
                    if words.next() != Some("fuzz") {
                        continue;
                    }
                    let kind = words.next().unwrap_or("");
                    let index: u64 = words.next().and_then(|w| w.parse().ok()).unwrap_or(0);
                    let rest = words.next().unwrap_or("").to_string();
                    if kind == "start" {
                        current = Some((index, rest, Instant::now()));
                    } else if kind == "end" {
                        let (_, label, started) =
                            current
                                .take()
                                .unwrap_or((index, String::new(), Instant::now()));
                        let seconds = started.elapsed().as_secs_f64();
                        report.cases += 1;
                        next = index + 1;
                        if let Some(message) = rest.strip_prefix("panic") {
                            report.findings.push(Finding {
                                case: index,
                                label,
                                what: format!("panic:{message}"),
                            });
                            *report.outcomes.entry("panic".into()).or_default() += 1;
                        } else {
                            *report.outcomes.entry(rest).or_default() += 1;
                            if report.slowest.is_none_or(|(_, s)| seconds > s) {
                                report.slowest = Some((index, seconds));
                            }
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    hung = true;
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
        // Stopped by us at the end of the run, not by the case.
        let stopped = !hung && (out_of_time() || next >= total);
        if hung || stopped {
            let _ = process.kill();
        }
        let status = process.wait().expect("the fuzz child is waited for");
        let tail = stderr_tail.join().unwrap_or_default();
        if let Some((index, label, _)) = current {
            if hung || (!stopped && !status.success()) {
                let what = if hung {
                    format!("hang: no report for {} s", hang_after.as_secs_f64())
                } else {
                    format!("crash: {status}: {tail}")
                };
                report.findings.push(Finding {
                    case: index,
                    label,
                    what,
                });
                *report
                    .outcomes
                    .entry(if hung { "hang" } else { "crash" }.into())
                    .or_default() += 1;
                report.cases += 1;
                next = index + 1;
            }
        } else if !status.success() && !hung && !stopped {
            panic!("the fuzz child failed before its first case: {status}: {tail}");
        }
    }
    report
}
