//! bfloat16: the upper half of an f32, rounded to nearest (ties to even). Eight bits of
//! precision over f32's whole range, at half the memory, and widening back is a shift. Used
//! for large arrays whose rounding is harmless: the viscosity's coupling strengths and the
//! blocks of its solve's preconditioner.

/// `x` (finite) rounded to bfloat16, as bits.
pub fn round(x: f32) -> u16 {
    let bits = x.to_bits();
    // Round half to even on the 16 bits dropped (on the magnitude: the sign is the top bit).
    let rounded = bits.wrapping_add(0x7FFF + ((bits >> 16) & 1));
    (rounded >> 16) as u16
}

/// The f32 a bfloat16 stands for.
#[inline(always)]
pub fn widen(bits: u16) -> f32 {
    f32::from_bits((bits as u32) << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_keeps_itself_to_half_a_step_of_its_16_bits() {
        for x in [
            1e-12f32, 3.3e-7, 0.1, 1.0, 1.5, 2.999, 7.77e5, -0.37, -1.2e9,
        ] {
            let kept = widen(round(x));
            assert!(((kept - x) / x).abs() <= 1.0 / 256.0, "{x} kept as {kept}");
        }
        // Exactly representable values survive, and a tie rounds to the even neighbour.
        assert_eq!(widen(round(1.5)), 1.5);
        assert_eq!(widen(round(-1.5)), -1.5);
        let tie = f32::from_bits(0x3F80_8000); // halfway between 1.0 and the next bfloat16
        assert_eq!(widen(round(tie)), 1.0);
        assert_eq!(widen(round(-tie)), -1.0);
    }
}
