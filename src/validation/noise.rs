//! Deterministic jitter for the particle sets that validation scenes, benchmarks and tests
//! build: the same numbers on every machine and run, without a random-number crate.

use glam::Vec3;

/// A xorshift32 sequence from `seed` (non-zero), as values in [−0.5, 0.5).
pub fn uniform_noise(seed: u32) -> impl FnMut() -> f32 {
    let mut state = seed;
    move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state as f32 / u32::MAX as f32 - 0.5
    }
}

/// A random displacement of up to a quarter particle radius along each axis, for particles
/// placed by a pattern (shells, rings): the mesher then meets disorder, as in a simulation,
/// rather than a pattern it could happen to suit, while the particles stay about 2r apart.
pub fn jitter(noise: &mut impl FnMut() -> f32, r: f32) -> Vec3 {
    Vec3::new(noise(), noise(), noise()) * 0.5 * r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_is_centred_in_its_range_and_repeatable() {
        let values: Vec<f32> = std::iter::repeat_with(uniform_noise(7))
            .take(10_000)
            .collect();
        assert!(values.iter().all(|v| (-0.5..0.5).contains(v)));
        let mean = values.iter().sum::<f32>() / values.len() as f32;
        assert!(mean.abs() < 0.01, "mean {mean}");
        let again: Vec<f32> = std::iter::repeat_with(uniform_noise(7))
            .take(10_000)
            .collect();
        assert_eq!(values, again);
    }
}
