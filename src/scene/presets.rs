//! Material presets in physical units (see ../shared/PHYSICS_NOTES.md §5 for the sources).

use super::{LiquidMaterial, SolidMaterial};

pub fn liquid(name: &str, density: f32, viscosity: f32, colour: [f32; 3]) -> LiquidMaterial {
    LiquidMaterial {
        name: name.into(),
        density,
        viscosity,
        colour,
        cohesion: 0.5,
        miscible: false,
    }
}

/// Clover honey, 16 % water, 20 °C: 19 Pa·s, 1420 kg/m³ (classic beekeeping data).
pub fn honey() -> LiquidMaterial {
    liquid("honey", 1420.0, 19.0, [0.80, 0.42, 0.05])
}

/// Waterborne acrylic paint at low shear (paint.org); miscible, so colours mix.
pub fn paint(name: &str, colour: [f32; 3]) -> LiquidMaterial {
    LiquidMaterial {
        miscible: true,
        ..liquid(name, 1300.0, 2.0, colour)
    }
}

/// A clear hair gel: shear-thinning, ~5 Pa·s at low shear (assumed), water-like density.
pub fn gel() -> LiquidMaterial {
    liquid("gel", 1020.0, 5.0, [0.55, 0.85, 0.95])
}

pub fn solid(name: &str, friction: f32, stickiness: f32) -> SolidMaterial {
    SolidMaterial {
        name: name.into(),
        friction,
        stickiness,
    }
}

pub fn steel() -> SolidMaterial {
    solid("steel", 0.3, 4.0)
}

pub fn plastic() -> SolidMaterial {
    solid("plastic", 0.1, 1.0)
}
