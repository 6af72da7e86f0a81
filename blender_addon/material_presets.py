"""Liquid and solid material presets in physical units.

Liquids mirror `src/scene/presets.rs` (see PHYSICS_NOTES.md §5 for sources); the values are
copied into the object's editable fields when a preset is picked, so the scene file always
carries explicit numbers.

Colours are linear Rec.709 (Blender's scene-linear). A glassy liquid's colour is the light
that gets through 1 cm of it (see shading.py); each comes from an absorption spectrum through
`spectral.py`, and `tools/liquid_colours.py` prints them again from their sources. An opaque
liquid's colour is its diffuse reflectance, from a measured colour.
"""

# key: (label, density kg/m³, viscosity Pa·s, linear RGB colour, cohesion m/s², miscible, look)
LIQUIDS = {
    # Light amber honey (Pfund 59 mm, typical light amber honeys; spectral.HONEY_GRADES).
    "HONEY": ("Honey", 1420.0, 19.0, (0.7016, 0.3445, 0.03066), 2.0, False, "GLASSY"),
    # The USDA honey colour grades, mid-range on the Pfund scale (spectral.HONEY_GRADES).
    "HONEY_WATER_WHITE": (
        "Honey (water white)",
        1420.0,
        19.0,
        (0.9832, 0.9327, 0.7995),
        2.0,
        False,
        "GLASSY",
    ),
    "HONEY_EXTRA_WHITE": (
        "Honey (extra white)",
        1420.0,
        19.0,
        (0.9426, 0.7925, 0.4743),
        2.0,
        False,
        "GLASSY",
    ),
    "HONEY_WHITE": ("Honey (white)", 1420.0, 19.0, (0.8748, 0.6252, 0.2183), 2.0, False, "GLASSY"),
    "HONEY_EXTRA_LIGHT_AMBER": (
        "Honey (extra light amber)",
        1420.0,
        19.0,
        (0.7881, 0.4682, 0.08784),
        2.0,
        False,
        "GLASSY",
    ),
    "HONEY_AMBER": (
        "Honey (amber)",
        1420.0,
        19.0,
        (0.5303, 0.1624, 0.003125),
        2.0,
        False,
        "GLASSY",
    ),
    "HONEY_DARK_AMBER": (
        "Honey (dark amber)",
        1420.0,
        19.0,
        (0.4347, 0.0943, 0.0006527),
        2.0,
        False,
        "GLASSY",
    ),
    # Golden syrup: Lyle's specification (1,200–2,200 ICUMSA units, 83 °Brix; spectral.py);
    # 70 Pa·s and 1400 kg/m³ as in src/scene/presets.rs.
    "GOLDEN_SYRUP": (
        "Golden syrup",
        1400.0,
        70.0,
        (0.6874, 0.3264, 0.02573),
        2.0,
        False,
        "GLASSY",
    ),
    # Caramel: golden syrup's caramel colourants at twice the strength (an assumed level,
    # spectral.py); viscosity and density of a warm caramel, assumed like golden syrup's.
    "CARAMEL": ("Caramel", 1400.0, 70.0, (0.4522, 0.1054, 0.0008456), 2.0, False, "GLASSY"),
    # Chocolate: cocoa mass, CIELAB L* 30.37, a* 6.34, b* 10.72 (Food Eng. Prog. 28(4):296,
    # Table 1; D65) → linear Rec.709.
    "CHOCOLATE": (
        "Melted chocolate",
        1270.0,
        10.0,
        (0.0954, 0.0571, 0.0384),
        2.0,
        False,
        "OPAQUE",
    ),
    "GEL": ("Hair gel", 1020.0, 5.0, (0.55, 0.85, 0.95), 2.0, False, "GLASSY"),
    # Paints: the painted patches of the X-Rite ColorChecker Classic (formulation after
    # November 2014, as tabulated by colour-science 0.4.7; D50 → D65 by Bradford) → linear
    # Rec.709: red, blue, yellow and white 9.5.
    "PAINT_RED": ("Paint (red)", 1300.0, 2.0, (0.4462, 0.0364, 0.0406), 2.0, True, "OPAQUE"),
    "PAINT_BLUE": (
        "Paint (blue)",
        1300.0,
        2.0,
        (0.0210, 0.0475, 0.2841),
        2.0,
        True,
        "OPAQUE",
    ),
    "PAINT_YELLOW": (
        "Paint (yellow)",
        1300.0,
        2.0,
        (0.8417, 0.5744, 0.0047),
        2.0,
        True,
        "OPAQUE",
    ),
    "PAINT_WHITE": (
        "Paint (white)",
        1300.0,
        2.0,
        (0.8795, 0.8850, 0.8342),
        2.0,
        True,
        "OPAQUE",
    ),
}

# Stable enum numbers: Blender stores an enum by number in .blend files, so presets keep the
# numbers they were saved with (the first seven and Custom as they were before the honey
# grades) whatever their order in the menu.
LIQUID_NUMBERS = {
    "HONEY": 0,
    "CHOCOLATE": 1,
    "GEL": 2,
    "PAINT_RED": 3,
    "PAINT_BLUE": 4,
    "PAINT_YELLOW": 5,
    "PAINT_WHITE": 6,
    "CUSTOM": 7,
    "HONEY_WATER_WHITE": 8,
    "HONEY_EXTRA_WHITE": 9,
    "HONEY_WHITE": 10,
    "HONEY_EXTRA_LIGHT_AMBER": 11,
    "HONEY_AMBER": 12,
    "HONEY_DARK_AMBER": 13,
    "GOLDEN_SYRUP": 14,
    "CARAMEL": 15,
}

# key: (label, friction 0..1, stickiness m/s²)
SOLIDS = {
    "STEEL": ("Steel", 0.3, 4.0),
    "GLASS": ("Glass", 0.05, 2.0),
    "CERAMIC": ("Ceramic", 0.2, 3.0),
    "PLASTIC": ("Plastic", 0.1, 1.0),
    "WOOD": ("Wood", 0.5, 6.0),
    "FABRIC": ("Fabric", 0.9, 8.0),
}


def enum_items(table, numbers=None):
    """Menu items for a preset table, then Custom; with `numbers`, each item keeps its number."""
    items = [(key, v[0], f"{v[0]} preset") for key, v in table.items()]
    items.append(("CUSTOM", "Custom", "Your own values"))
    if numbers is not None:
        items = [(*item, numbers[item[0]]) for item in items]
    return items
