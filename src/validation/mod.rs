//! `gloop validate`: physical validation scenes. Each scene measures something, compares it
//! with what physics (or the issue) expects, and reports PASS/FAIL. Tests run the same scenes
//! at sizes that fit in CI.

use std::fmt;

pub mod contact_line;
pub mod cylinder;
pub mod flat_coat;
pub mod honey_pour;
pub mod layer;
pub mod noise;
pub mod pieces;
pub mod rest_tank;
pub mod resting_puddle;
pub mod scenes;
pub mod sphere;
pub mod spinning_blob;
pub mod stokes_settling;
pub mod thread;
pub mod translated_blob;
pub mod viscometer;

/// One measured quantity against its expectation.
#[derive(Clone, Debug)]
pub struct Check {
    pub what: String,
    pub measured: f64,
    pub expected: String,
    pub pass: bool,
    /// False for figures reported for information: they never fail and print as `info`.
    pub judged: bool,
}

impl Check {
    /// Passes when `measured <= limit`.
    pub fn at_most(what: impl Into<String>, measured: f64, limit: f64) -> Check {
        Check {
            what: what.into(),
            measured,
            expected: format!("<= {limit}"),
            pass: measured <= limit,
            judged: true,
        }
    }
    /// Passes when `measured >= limit`.
    pub fn at_least(what: impl Into<String>, measured: f64, limit: f64) -> Check {
        Check {
            what: what.into(),
            measured,
            expected: format!(">= {limit}"),
            pass: measured >= limit,
            judged: true,
        }
    }
    /// Passes when `measured` is within `relative` of `target`.
    pub fn near(what: impl Into<String>, measured: f64, target: f64, relative: f64) -> Check {
        let pass = ((measured - target) / target).abs() <= relative;
        Check {
            what: what.into(),
            measured,
            expected: format!("{target} ± {:.1}%", relative * 100.0),
            pass,
            judged: true,
        }
    }
    /// Reported for information only (e.g. the classic model's figures); never fails.
    pub fn info(what: impl Into<String>, measured: f64) -> Check {
        Check {
            what: what.into(),
            measured,
            expected: "(info)".into(),
            pass: true,
            judged: false,
        }
    }
    /// A figure shown beside a threshold it is not judged by (the reason belongs in the
    /// scene's documentation); never fails.
    pub fn shown_against(what: impl Into<String>, measured: f64, threshold: &str) -> Check {
        Check {
            what: what.into(),
            measured,
            expected: format!("({threshold})"),
            pass: true,
            judged: false,
        }
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "  {:<56} measured {:>12.6} expected {:<18} {}",
            self.what,
            self.measured,
            self.expected,
            match (self.judged, self.pass) {
                (false, _) => "info",
                (true, true) => "PASS",
                (true, false) => "FAIL",
            }
        )
    }
}

/// A validation scene: a name for the command line and the function that runs it.
pub struct Scenario {
    pub name: &'static str,
    pub description: &'static str,
    pub run: fn() -> crate::Result<Vec<Check>>,
}

/// Every validation scene, in the order `gloop validate` runs them.
pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "sphere",
            description:
                "a ball of radius 10 r of jittered particles meshes to one closed, manifold, round surface (lattice and unjittered shells for info)",
            run: sphere::run,
        },
        Scenario {
            name: "thread",
            description:
                "jittered threads of radius 1.5, 2, 3 and 4 r mesh as round, even cylinders (no beads)",
            run: thread::run,
        },
        Scenario {
            name: "flat-coat",
            description:
                "a honey layer 4 r thick settled on a tank's floor meshes flat on top and in contact below",
            run: flat_coat::run,
        },
        Scenario {
            name: "translated-blob",
            description: "a blob moved 0.37 cubes per frame keeps its surface area within 0.2%",
            run: translated_blob::run,
        },
        Scenario {
            name: "resting-puddle",
            description: "a settled puddle simulated and meshed for 100 frames does not shimmer",
            run: resting_puddle::run,
        },
        Scenario {
            name: "viscometer",
            description:
                "a decaying periodic shear wave gives back the requested viscosity within 5%",
            run: viscometer::run,
        },
        Scenario {
            name: "spinning-blob",
            description:
                "a honey ball in rigid rotation keeps its momenta (classic model for info)",
            run: spinning_blob::run,
        },
        Scenario {
            name: "rest-tank",
            description: "honey at rest in a tank: density, stillness, load and volume hold",
            run: rest_tank::run,
        },
        Scenario {
            name: "honey-pour",
            description:
                "honey poured onto a plate falls as one straight, even rope and coils where it lands",
            run: honey_pour::run,
        },
        Scenario {
            name: "stokes-settling",
            description:
                "a steel ball sinks through honey in a tank at the Stokes velocity, wall-corrected (Haberman & Sayre), within 10%",
            run: stokes_settling::run,
        },
    ]
}
