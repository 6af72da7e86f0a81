//! The fuzzer's child process: runs cases one after another and reports each on stdout as
//! `fuzz start N` and `fuzz end N OUTCOME`, so its supervisor knows which case a crash or a
//! hang belongs to.

use std::io::Write;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::mutate::{case_input, CaseInput, FUZZ_CAP};
use crate::error::GloopError;
use crate::scene::Scene;
use crate::sim::{scene_warnings, Simulation};

/// A case's frame is cancelled after this long (cancelling is a clean outcome); only a case
/// that does not come back at all is a hang.
pub const CASE_SECONDS: f64 = 2.0;

/// The child's address space: far above what a case under `FUZZ_CAP` particles needs, far
/// below the machine, so a runaway allocation fails (and is reported) instead of swapping.
const ADDRESS_SPACE_BYTES: u64 = 4 << 30;

/// How a case ended. Every one of these is clean; a panic, an abort or a hang is a finding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaseOutcome {
    /// The file did not parse.
    Unreadable,
    /// It parsed, and validation refused it.
    Invalid,
    /// It validated, and building its particles failed cleanly.
    NotBuilt,
    /// It was built and stepped a frame.
    Stepped,
    /// Its frame ran past `CASE_SECONDS` and was cancelled.
    Cancelled,
    /// Its frame ended with an error (an unstable solve).
    StepFailed,
}

impl CaseOutcome {
    pub fn name(self) -> &'static str {
        match self {
            CaseOutcome::Unreadable => "unreadable",
            CaseOutcome::Invalid => "invalid",
            CaseOutcome::NotBuilt => "not-built",
            CaseOutcome::Stepped => "stepped",
            CaseOutcome::Cancelled => "cancelled",
            CaseOutcome::StepFailed => "step-failed",
        }
    }
}

/// Runs cases `first..first + count` of the run seeded `seed`, reporting to `out`.
pub fn run_child(seed: u64, first: u64, count: u64, out: &mut dyn Write) {
    limit_address_space();
    let cancel = Arc::new(AtomicBool::new(false));
    let deadline = Arc::new(Mutex::new(None::<Instant>));
    spawn_watchdog(Arc::clone(&cancel), Arc::clone(&deadline));
    for index in first..first.saturating_add(count) {
        // A mutation that panics is the harness's bug, reported like a case's.
        let Ok(input) = catch_unwind(|| case_input(seed, index)) else {
            let _ = writeln!(out, "fuzz start {index} (mutating)");
            let _ = writeln!(out, "fuzz end {index} panic in the mutator");
            continue;
        };
        let _ = writeln!(out, "fuzz start {index} {}", input.label);
        let _ = out.flush();
        cancel.store(false, Ordering::SeqCst);
        *deadline.lock().unwrap() = Some(Instant::now() + Duration::from_secs_f64(CASE_SECONDS));
        let outcome = catch_unwind(AssertUnwindSafe(|| run_case(&input, &cancel)));
        *deadline.lock().unwrap() = None;
        let line = match outcome {
            Ok(outcome) => format!("fuzz end {index} {}", outcome.name()),
            Err(payload) => {
                let message = payload
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                format!("fuzz end {index} panic {}", message.replace('\n', " "))
            }
        };
        let _ = writeln!(out, "{line}");
        let _ = out.flush();
    }
}

/// One case: read, validate, build, step a frame.
pub fn run_case(input: &CaseInput, cancel: &AtomicBool) -> CaseOutcome {
    let origin = Path::new(if input.json {
        "case.json"
    } else {
        "case.gloop"
    });
    let parsed = if input.json {
        std::str::from_utf8(&input.bytes)
            .map_err(|_| GloopError::file(origin, "not UTF-8"))
            .and_then(|text| Scene::from_json(text, origin))
    } else {
        Scene::from_binary(&input.bytes, origin)
    };
    let Ok(mut scene) = parsed else {
        return CaseOutcome::Unreadable;
    };
    // The case's memory bound: whatever cap the variant asks for, no more than this.
    scene.settings.max_particles = scene.settings.max_particles.min(FUZZ_CAP);
    if scene.validate().is_err() {
        return CaseOutcome::Invalid;
    }
    let _ = scene_warnings(&scene);
    let Ok(mut sim) = Simulation::new(&scene) else {
        return CaseOutcome::NotBuilt;
    };
    match sim.step_frame(cancel) {
        Ok(_) => CaseOutcome::Stepped,
        Err(GloopError::Cancelled) => CaseOutcome::Cancelled,
        Err(_) => CaseOutcome::StepFailed,
    }
}

/// Sets `cancel` once the current case's deadline has passed.
fn spawn_watchdog(cancel: Arc<AtomicBool>, deadline: Arc<Mutex<Option<Instant>>>) {
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(5));
        if deadline
            .lock()
            .unwrap()
            .is_some_and(|d| Instant::now() >= d)
        {
            cancel.store(true, Ordering::SeqCst);
        }
    });
}

#[cfg(unix)]
fn limit_address_space() {
    let limit = libc::rlimit {
        rlim_cur: ADDRESS_SPACE_BYTES as libc::rlim_t,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: setrlimit only reads the struct passed to it.
    unsafe {
        libc::setrlimit(libc::RLIMIT_AS, &limit);
    }
}

#[cfg(not(unix))]
fn limit_address_space() {}
