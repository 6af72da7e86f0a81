//! The last pass of a correction, taken only as far as it is needed.

use glam::Vec3;
use rayon::prelude::*;

use crate::sim::neighbourhoods::Neighbourhoods;
use crate::sim::params::Params;
use crate::sim::LiquidParticles;

/// Largest compression ρ/ρ0 − 1 over liquid particles (`measure`'s first half, without the
/// steps): what the last pass's cut looks for. It sums neighbour by neighbour rather than
/// in `density_sums`' lanes, so its last bits may differ from `measure`'s. (Summed in four
/// lanes too, as `density_sums` then did, the cut moved, and with it a settled 24-layer
/// column's cold start in `tests/density_carry.rs` fell to 127 passes, under the 131 that
/// test asks for; it was left as measured.)
fn largest_compression(p: &Params, liquid: &LiquidParticles, lists: &Neighbourhoods) -> f32 {
    let w = &p.density_kernel;
    (0..liquid.len())
        .into_par_iter()
        .map(|i| {
            let xi = liquid.position[i];
            let rho = lists.near.list.of(i).into_iter().fold(0.0f32, |rho, j| {
                let d2 = p
                    .space
                    .delta(liquid.position[j as usize], xi)
                    .length_squared();
                rho + w.weight_sq(d2)
            });
            (rho - p.rest_density).max(0.0) / p.rest_density
        })
        .reduce(|| 0.0, f32::max)
}

/// The last pass's displacements from `before` to `after`, and the largest compression at
/// either end (above the tolerance before, within it after).
pub(super) struct LastPass {
    pub before: Vec<Vec3>,
    pub after: Vec<Vec3>,
    pub error_before: f32,
    pub error_after: f32,
}

/// Measurements `cut_last_pass` may spend on finding the cut, where it aims (as a fraction
/// of the tolerance), and the least compression it accepts (the further under the
/// tolerance the cut lands, the more of the pass's lift it keeps).
const CUT_ATTEMPTS: u32 = 3;
const CUT_AIM: f32 = 0.995;
const CUT_ACCEPT: f32 = 0.99;

/// Moves the liquid, which stands at the end of its last pass, back along that pass to where
/// the largest compression meets the tolerance. The point is found by false position on
/// the compression measured along the pass, aiming just under the tolerance; it ends at the
/// first measurement within [`CUT_ACCEPT`, 1] of the tolerance, or else at the earliest
/// point measured within it (the whole pass at worst). Returns the largest compression where
/// the liquid ends, the measurements made, and the fraction of the pass kept.
///
/// (The positions stay clear of obstacles: they lie between two placements the stops have
/// checked, and an obstacle's surface is flat at the scale of one pass.)
pub(super) fn cut_last_pass(
    p: &Params,
    liquid: &mut LiquidParticles,
    moved: &mut [Vec3],
    lists: &Neighbourhoods,
    pass: LastPass,
) -> (f32, u32, f32) {
    let tolerance = p.density_tolerance;
    let aim = CUT_AIM * tolerance;
    // Fractions of the pass: `over` leaves the liquid too compressed, `within` does not;
    // the liquid stands at `at`.
    let (mut over, mut error_over) = (0.0f32, pass.error_before);
    let (mut within, mut error_within) = (1.0f32, pass.error_after);
    let mut at = 1.0f32;
    let mut measures = 0;
    while measures < CUT_ATTEMPTS && error_within < CUT_ACCEPT * tolerance {
        let next = over + (error_over - aim) / (error_over - error_within) * (within - over);
        if !(next > over && next < within) {
            break;
        }
        slide_along(liquid, moved, &pass, next - at);
        at = next;
        let error = largest_compression(p, liquid, lists);
        measures += 1;
        if error > tolerance {
            (over, error_over) = (next, error);
        } else {
            (within, error_within) = (next, error);
        }
    }
    slide_along(liquid, moved, &pass, within - at);
    (error_within, measures, within)
}

/// Moves every particle by `fraction` of its displacement over the last pass.
fn slide_along(liquid: &mut LiquidParticles, moved: &mut [Vec3], pass: &LastPass, fraction: f32) {
    if fraction == 0.0 {
        return;
    }
    liquid
        .position
        .par_iter_mut()
        .zip(moved.par_iter_mut())
        .zip(pass.before.par_iter().zip(pass.after.par_iter()))
        .for_each(|((x, m), (before, after))| {
            let d = (*after - *before) * fraction;
            *x += d;
            *m += d;
        });
}
