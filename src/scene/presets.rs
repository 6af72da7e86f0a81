//! Material presets in physical units. Values and sources: ../shared/PHYSICS_NOTES.md §5;
//! each preset names its source. Viscosities are at ~20 °C unless stated; shear-thinning and
//! yield-stress liquids (ketchup, paint, chocolate, shampoo, gel) are given their low-shear
//! apparent viscosity, which is what governs slow pours and drips.

use super::{LiquidMaterial, Look, SolidMaterial};

pub fn liquid(name: &str, density: f32, viscosity: f32, colour: [f32; 3]) -> LiquidMaterial {
    LiquidMaterial {
        name: name.into(),
        density,
        viscosity,
        colour,
        cohesion: 0.5,
        miscible: false,
        look: Look::Glassy,
    }
}

/// Water at 20 °C: 1.002 mPa·s, 998 kg/m³ (preproom table; Dow table gives 1.005 cP).
pub fn water() -> LiquidMaterial {
    liquid("water", 998.0, 1.002e-3, [0.80, 0.90, 1.00])
}

/// Olive oil at 20–25 °C: 0.081 Pa·s (preproom / CAMEO), 913.7 kg/m³ at 20 °C.
pub fn olive_oil() -> LiquidMaterial {
    liquid("olive oil", 913.7, 0.081, [0.55, 0.50, 0.05])
}

/// Glycerine (100 %) at 20 °C: 1.41 Pa·s, 1261 kg/m³ (Dow glycerine table; Cheng 2008).
pub fn glycerine() -> LiquidMaterial {
    liquid("glycerine", 1261.0, 1.41, [0.92, 0.94, 0.96])
}

/// Clover honey, 16 % water, 20 °C: 19 Pa·s, 1420 kg/m³ (classic beekeeping data,
/// beeclubpellas; density pages give 1417–1423 kg/m³ at 15–18 % water). Colour: light amber
/// (Pfund 59 mm), the linear RGB light through 1 cm from its absorption spectrum, as in
/// blender_addon/material_presets.py (blender_addon/spectral.py, tools/liquid_colours.py).
pub fn honey() -> LiquidMaterial {
    liquid("honey", 1420.0, 19.0, [0.7016, 0.3445, 0.03066])
}

/// Golden syrup at 20 °C: ν ≈ 5×10⁻² m²/s (Worster, Understanding Fluid Flow, ch. 3), so
/// μ ≈ 70 Pa·s at ≈ 1400 kg/m³ (density assumed, typical of invert-sugar syrups). Colour:
/// Lyle's specification, 1,200–2,200 ICUMSA units at 83 °Brix (blender_addon/spectral.py).
pub fn golden_syrup() -> LiquidMaterial {
    liquid("golden syrup", 1400.0, 70.0, [0.6874, 0.3264, 0.02573])
}

/// Melted dark chocolate at 40 °C: Casson plastic viscosity 6.1 Pa·s (Meritics note; Netzsch
/// glossary); its yield stress (~29 Pa) is not modelled. Density ≈ 1250 kg/m³ (assumed).
/// Colour: cocoa mass, CIELAB 30.37, 6.34, 10.72 (Food Eng. Prog. 28(4):296) → linear RGB.
pub fn chocolate() -> LiquidMaterial {
    LiquidMaterial {
        look: Look::Opaque,
        ..liquid("chocolate", 1250.0, 6.1, [0.0954, 0.0571, 0.0384])
    }
}

/// Ketchup: apparent ~50 Pa·s at low shear, strongly shear-thinning with a yield stress
/// (Potravinarstvo 2019; Sharoba 2005). Density ≈ 1120 kg/m³ (assumed).
pub fn ketchup() -> LiquidMaterial {
    LiquidMaterial {
        look: Look::Opaque,
        ..liquid("ketchup", 1120.0, 50.0, [0.45, 0.02, 0.01])
    }
}

/// Shampoo: ~1–10 Pa·s at low shear (Thermo Fisher blog; Lamy app note), here 5 Pa·s;
/// ≈ 1020 kg/m³ (~80 % water).
pub fn shampoo() -> LiquidMaterial {
    liquid("shampoo", 1020.0, 5.0, [0.30, 0.60, 0.35])
}

/// Waterborne acrylic paint at low shear: ~2 Pa·s (thixotropic; high-shear 0.02–0.1 Pa·s,
/// paint.org, Schoff), ≈ 1300 kg/m³. Miscible, so paints mix their colours.
pub fn paint(name: &str, colour: [f32; 3]) -> LiquidMaterial {
    LiquidMaterial {
        miscible: true,
        look: Look::Opaque,
        ..liquid(name, 1300.0, 2.0, colour)
    }
}

/// Acrylic paint (see `paint`) under the name "acrylic paint".
pub fn acrylic_paint(colour: [f32; 3]) -> LiquidMaterial {
    paint("acrylic paint", colour)
}

/// Basaltic lava (Kīlauea, ~1150 °C): 10–100 Pa·s, here 100 Pa·s (MTU slide, Vergniolle);
/// ≈ 2650 kg/m³. Colour: incandescent orange (emission is the renderer's job).
pub fn lava() -> LiquidMaterial {
    liquid("lava", 2650.0, 100.0, [1.00, 0.25, 0.02])
}

/// A clear hair gel: shear-thinning, ~5 Pa·s at low shear (assumed; comparable to shampoo),
/// water-like density 1020 kg/m³.
pub fn gel() -> LiquidMaterial {
    liquid("gel", 1020.0, 5.0, [0.55, 0.85, 0.95])
}

/// Every liquid preset, for menus and demos.
pub fn liquids() -> Vec<LiquidMaterial> {
    vec![
        water(),
        olive_oil(),
        glycerine(),
        honey(),
        golden_syrup(),
        chocolate(),
        ketchup(),
        shampoo(),
        acrylic_paint([0.05, 0.20, 0.70]),
        lava(),
        gel(),
    ]
}

pub fn solid(name: &str, friction: f32, stickiness: f32) -> SolidMaterial {
    SolidMaterial {
        name: name.into(),
        friction,
        stickiness,
        see_through: false,
    }
}

// Solids. No-slip holds for all these liquids on all these solids (PHYSICS_NOTES §5.1); the
// friction factor stands in for it, and stickiness for wetting: aqueous and oily liquids wet
// glass and clean steel (water on glass ≈ 14°, on steel 66–86°) and bead on plastics such as
// PTFE (≈ 95°). The numbers are modelled from those contact angles, not measured.

/// Stainless steel: partially wetted (water 66–86°), smooth.
pub fn steel() -> SolidMaterial {
    solid("steel", 0.3, 4.0)
}

/// Glass: well wetted (water ≈ 14°), smooth: low friction, high stickiness.
pub fn glass() -> SolidMaterial {
    SolidMaterial {
        see_through: true,
        ..solid("glass", 0.2, 6.0)
    }
}

/// Wood: rough and porous, liquid clings and is held back.
pub fn wood() -> SolidMaterial {
    solid("wood", 0.6, 5.0)
}

/// Plastic (PTFE-like, water ≈ 95°): liquid beads and slides off.
pub fn plastic() -> SolidMaterial {
    solid("plastic", 0.1, 1.0)
}

/// Fabric: absorbent weave, liquid soaks in and hardly slides.
pub fn fabric() -> SolidMaterial {
    solid("fabric", 0.9, 8.0)
}

/// Every solid preset.
pub fn solids() -> Vec<SolidMaterial> {
    vec![steel(), glass(), wood(), plastic(), fabric()]
}
