//! Colours in the cache as 8-bit sRGB, as PLY readers expect `uchar red green blue` to be.
//!
//! 8 bits of *linear* colour would band in the darks (honey's blue channel is about 0.05, where
//! a step of 1/255 is 8%); sRGB's curve spends the codes where the eye tells them apart: the
//! rounding moves a channel by at most 2% of its value above 0.04 (1% above 0.2), which a
//! render does not show.

use std::sync::LazyLock;

/// Linear 0..1 to the nearest sRGB code (clamped; non-finite reads as 0).
pub fn encode(linear: f32) -> u8 {
    let c = if linear.is_finite() {
        linear.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let s = if c <= 0.003_130_8 {
        12.92 * c
    } else {
        1.055 * c.powf(1.0 / 2.4) - 0.055
    };
    (s * 255.0).round() as u8
}

/// An sRGB code to linear 0..1.
pub fn decode(code: u8) -> f32 {
    static TABLE: LazyLock<[f32; 256]> = LazyLock::new(|| {
        std::array::from_fn(|k| {
            let s = k as f32 / 255.0;
            if s <= 0.040_45 {
                s / 12.92
            } else {
                ((s + 0.055) / 1.055).powf(2.4)
            }
        })
    });
    TABLE[code as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_and_colours_stay_close() {
        for code in 0..=255u8 {
            assert_eq!(encode(decode(code)), code);
        }
        // Honey's colour comes back within 1% per channel (2% in the dark blue).
        for (c, tolerance) in [(0.8f32, 0.01), (0.42, 0.01), (0.05, 0.02), (1.0, 0.0)] {
            let back = decode(encode(c));
            assert!((back - c).abs() <= tolerance * c, "{c} -> {back}");
        }
        assert_eq!(decode(encode(0.0)), 0.0);
        assert_eq!(encode(f32::NAN), 0);
        assert_eq!(encode(7.0), 255);
    }
}
