//! Heavy-ball momentum on the density passes' Newton steps, stronger in a long
//! correction's tail.

use crate::sim::params::Params;

/// Heavy-ball momentum (Polyak) on the Newton steps: a particle still compressed adds this
/// fraction of its previous pass's step. A Jacobi pass carries a correction only one kernel
/// radius, so lifting a column of liquid back up takes passes growing with the square of its
/// height; momentum brings that towards linear. On the honey drop's first 16 frames it
/// halved the passes (1,353 -> 777) and lowered the compression left at the pass cap
/// (5% -> 1.5% at impact). Larger values cut passes further but left a resting tank
/// jittering twice as fast. A rising (Nesterov) schedule, k/(k+3) capped at 0.7 or 0.85, did
/// worse on both: honey drop 349 → 377-385 passes over 10 frames, resting tank's median
/// RMS speed 1.0-1.2e-3 → 1.5-3.1e-3 m/s. Measured again once the resting tank came to
/// rest (the frame-end viscosity, the cut last pass and the walls' push; `examples/
/// rest_probe.rs` at r and r ± 0.6%), 0.5 is still the most it takes: worst frames
/// 4.2-7.4e-4 m/s at 0.5, 3.6-4.1e-3 at 0.6, 7.1-8.4e-3 at 0.7 and 5.3-8.0e-3 at 0.8,
/// against a limit of 8.9e-4.
const MOMENTUM: f32 = 0.5;

/// Past this many passes of one correction, a pass adds `TAIL_MOMENTUM` of its previous step
/// instead of `MOMENTUM` (and the pass that enters the tail is the lift, `lift.rs`). By then
/// the local compression is gone (a tall block's impact falls from 30-50% to about 5% in
/// its first ten passes) and what is left is the slow lift of whole columns, which crawled
/// at about 4% a pass; a resting tank of 8 layers, whose noise held `MOMENTUM` at 0.5,
/// never runs this many (7-14 passes a substep at r = 5 mm ± 1.2%, its figures unchanged to
/// the bit). Measured before the lift (`examples/honey_drop_bench.rs 50 50 40 5`, 100k
/// particles; the passes are deterministic): passes 741 → 559, 4.53 → 3.82-3.95 s per
/// frame. A resting column of 30 layers (`examples/rest_probe.rs 0.005 10 10 30 2 10`),
/// nearly all of whose substeps run past 16 passes, took 38,695 → 30,039 passes and
/// jittered less: RMS speed over the window 1.95e-3 → 1.53e-3 m/s. From the 8th, 12th or
/// 20th pass on instead, 546, 535 and 579 passes; 0.7, 0.75, 0.85 and 0.9 from the 16th,
/// 566, 566, 559 and 581 (0.85 and up bounce at the end, the largest compression swinging
/// across the tolerance). The demos seldom run that long (2 of the honey drop's 52 substeps
/// in its frames 2-14, 17 of the fan's 54 in its frames 2-7) and barely change: 271 → 272
/// and 846 → 831 passes (`examples/frame_profile.rs`).
pub const TAIL_AFTER_PASSES: u32 = 16;
const TAIL_MOMENTUM: f32 = 0.8;

/// A correction whose largest compression, measured before its 9th pass, is still over
/// `EARLY_TAIL_ABOVE` times the tolerance enters its tail there rather than after 16
/// passes: the liquid is then well short of where the passes would leave it, and only a
/// tall column converges so slowly (a 30k honey block's impacts: 1.8-12% at that pass,
/// and 1.0-5.7% still at the 16th, `examples/honey_drop_bench.rs 34 34 26 5`). Measured
/// (alternating binaries; median of frames 3-7, after the first impact): a 100k block
/// (`examples/honey_drop_bench.rs 50 50 40 6`, two rounds) 3.47/3.46 → 3.00/2.97 s per
/// frame, its frames 3-7 taking 431 → 336 passes; the 30k block (three rounds) only
/// 0.87/0.90/0.88 → 0.85/0.86/0.87 s, 349 → 314 passes (its corrections ran few passes
/// past the 16th, and lifted at the 9th they take about 8 more); `gloop bench --frames
/// 10`, the fan 9.1 → 8.6 passes per substep and 1.51/1.42 → 1.42/1.34 s per frame, the
/// honey drop 0.173/0.179 → 0.167/0.159 s (its frames 2-14: 274 → 277 passes, `examples/
/// frame_profile.rs`), the paint drops 0.121/0.126 → 0.121/0.115 s.
///
/// At rest it never acts: the 8-layer resting tank measures at most 2.4% before its 9th
/// pass (its settling included, r = 4.94-5.06 mm), so its figures are the same to the bit.
/// A resting column of 30 layers (`examples/rest_probe.rs 0.005 10 10 30 2 10`, up to 3.4%
/// there) was as still as before: RMS speed over the window 0.87e-3 → 0.83e-3 m/s (limit
/// 1.7e-3), its worst frame 2.6e-3 → 1.7e-3, volume drift 1.3e-3 → 1.7e-3 (limit 5e-3).
/// Above 2 tolerances instead, the 30k block's frames 2-6 took 249 passes (276 above 3),
/// but the column's window rose to 1.09e-3 m/s and its worst frame to 5.8e-3; after 10
/// passes above 2.5, 290 passes; after 6 above 3, 243, the tank then reaching the rule
/// (3.2% there).
pub const EARLY_TAIL_AFTER_PASSES: u32 = 8;
const EARLY_TAIL_ABOVE: f32 = 3.0;

/// What the next pass's momentum builds on: the previous pass's steps, its largest
/// compression, and how many passes have moved the liquid.
#[derive(Default)]
pub(super) struct Momentum {
    step: Vec<f32>,
    max_error: f32,
    passes: u32,
    /// Whether this correction has lifted: it is in its tail from then on.
    lifted: bool,
}

impl Momentum {
    /// True for the pass that enters the tail: the one after `Params::density_tail_after`
    /// passes, or after `density_early_tail_after` if the largest compression measured for
    /// it, `max_error`, is still over `EARLY_TAIL_ABOVE` tolerances.
    pub fn entering_tail(&self, p: &Params, max_error: f32) -> bool {
        let far_from_tolerance = max_error > EARLY_TAIL_ABOVE * p.density_tolerance;
        !self.lifted
            && (self.passes == p.density_tail_after
                || (self.passes == p.density_early_tail_after && far_from_tolerance))
    }

    /// Adds to each compressed particle's step its share of the previous pass's: `MOMENTUM`,
    /// or `TAIL_MOMENTUM` in the tail. None when the largest compression grew (the usual
    /// restart that keeps an accelerated iteration from running away).
    pub fn add_to(&self, p: &Params, step: &mut [f32], max_error: f32) {
        if self.step.len() != step.len() || max_error > self.max_error {
            return;
        }
        let share = if self.lifted || self.passes >= p.density_tail_after {
            TAIL_MOMENTUM
        } else {
            MOMENTUM
        };
        for (s, previous) in step.iter_mut().zip(&self.step) {
            if *s > 0.0 {
                *s += share * previous;
            }
        }
    }

    /// After a pass pushed the liquid by `step` (momentum included).
    pub fn pushed(&mut self, step: Vec<f32>, max_error: f32) {
        self.step = step;
        self.max_error = max_error;
        self.passes += 1;
    }

    /// After a lift, which took a pass's place: the next pass has no step to build on.
    pub fn lifted(&mut self, max_error: f32) {
        self.lifted = true;
        self.pushed(Vec::new(), max_error);
    }

    /// The last pass's steps as pushed (none after a lift).
    pub fn last_step(&self) -> &[f32] {
        &self.step
    }
}
