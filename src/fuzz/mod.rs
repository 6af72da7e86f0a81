//! A mutation fuzzer for scene files (issue 35: no panic, abort, hang or runaway memory on any
//! input). Variants of the demo scenes and a small scene, in JSON and in the binary
//! `scene.gloop` form, are read, validated and, when valid, built and stepped for a frame.
//! Every outcome must be `Ok` or a clean error.
//!
//! Cases run in a child process (`child`), which reports each case as it starts and ends; the
//! parent (`supervise`) restarts it after the case that crashed it or that stopped answering,
//! and reports those cases. A case's time is bounded by cancelling its frame after
//! `CASE_SECONDS` (a clean outcome), its memory by a particle cap and the child's address
//! space limit.
//!
//! No fuzzing crate: a deterministic PRNG (`Rng`) makes every case reproducible from its
//! seed and number (`gloop::fuzz::case_input`).

mod child;
mod mutate;
mod rng;
mod supervise;

pub use child::{run_child, CaseOutcome, CASE_SECONDS};
pub use mutate::{base_scenes, case_input, CaseInput};
pub use rng::Rng;
pub use supervise::{supervise, Finding, Report};
