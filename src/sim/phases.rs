//! Where a frame's time goes: wall-clock time per phase of the paper's Figure 3, and the
//! neighbour lists' upkeep inside the phases that keep them.
//!
//! Each frame's `FrameStats` carries its own, so a profile needs no process-wide counters
//! (which tests running side by side would mix). Reading the clock costs tens of
//! nanoseconds, a few hundred times per frame: nothing beside the phases it times.
//!
//! `examples/frame_profile.rs` prints them (`examples/honey_drop_bench.rs` too, as shares).
//! First measured so, two threads, shares of the time:
//!
//! | scene | lists at start | forces | viscosity (+ frame end) | moves (upkeep) | density (upkeep) |
//! |---|---|---|---|---|---|
//! | honey drop, frames 2-14 | 3% | 6% | 23% + 9% | 25% (14%) | 35% (15%) |
//! | fan, frames 2-7 | 1% | 4% | 20% + 3% | 16% (14%) | 56% (17%) |
//! | 30k honey block, 5 frames | 2% | 3% | 14% + 4% | 18% (13%) | 59% (19%) |
//!
//! Keeping the lists exact was 32-34% of every scene's time.

use std::time::{Duration, Instant};

/// Wall-clock time per phase over one frame (or a sum of frames).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PhaseTimes {
    /// Making the neighbour lists exact at each substep's start (a fresh build at a frame's
    /// first substep).
    pub lists: Duration,
    /// Gravity and adhesion (and the classic viscosity's exchange).
    pub forces: Duration,
    /// The implicit viscosity solves of the substeps.
    pub viscosity: Duration,
    /// The M moves: translation, friction and contacts, with their lists' upkeep.
    pub moves: Duration,
    /// Of `moves`: cutting the contact lists from the near lists, and keeping them and the
    /// object lists exact from move to move.
    pub moves_list_upkeep: Duration,
    /// The density correction, with its lists' upkeep.
    pub density: Duration,
    /// Of `density`: keeping the near and object lists exact from pass to pass.
    pub density_list_upkeep: Duration,
    /// The implicit viscosity solve on the velocities a frame ends with.
    pub frame_end_viscosity: Duration,
}

impl PhaseTimes {
    /// The phases as (name, time), the upkeep within a phase right after it.
    pub fn named(&self) -> [(&'static str, Duration); 8] {
        [
            ("lists at substep start", self.lists),
            ("forces", self.forces),
            ("viscosity (substeps)", self.viscosity),
            ("moves", self.moves),
            ("  of which list upkeep", self.moves_list_upkeep),
            ("density correction", self.density),
            ("  of which list upkeep", self.density_list_upkeep),
            ("viscosity (frame end)", self.frame_end_viscosity),
        ]
    }

    /// The phases' sum, each counted once (the upkeep is inside its phase).
    pub fn total(&self) -> Duration {
        self.lists
            + self.forces
            + self.viscosity
            + self.moves
            + self.density
            + self.frame_end_viscosity
    }
}

impl std::ops::AddAssign for PhaseTimes {
    fn add_assign(&mut self, other: Self) {
        self.lists += other.lists;
        self.forces += other.forces;
        self.viscosity += other.viscosity;
        self.moves += other.moves;
        self.moves_list_upkeep += other.moves_list_upkeep;
        self.density += other.density;
        self.density_list_upkeep += other.density_list_upkeep;
        self.frame_end_viscosity += other.frame_end_viscosity;
    }
}

/// Runs `f`, adding the time it took to `into`.
#[inline]
pub fn timed<T>(into: &mut Duration, f: impl FnOnce() -> T) -> T {
    let started = Instant::now();
    let result = f();
    *into += started.elapsed();
    result
}
