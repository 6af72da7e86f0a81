"""Liquid and solid material presets in physical units.

Liquids mirror `src/scene/presets.rs` (see PHYSICS_NOTES.md §5 for sources); the values are
copied into the object's editable fields when a preset is picked, so the scene file always
carries explicit numbers.
"""

# key: (label, density kg/m³, viscosity Pa·s, linear RGB colour, cohesion m/s², miscible, look)
LIQUIDS = {
    "HONEY": ("Honey", 1420.0, 19.0, (0.80, 0.42, 0.05), 2.0, False, "GLASSY"),
    "CHOCOLATE": (
        "Melted chocolate",
        1270.0,
        10.0,
        (0.16, 0.06, 0.02),
        2.0,
        False,
        "OPAQUE",
    ),
    "GEL": ("Hair gel", 1020.0, 5.0, (0.55, 0.85, 0.95), 2.0, False, "GLASSY"),
    "PAINT_RED": ("Paint (red)", 1300.0, 2.0, (0.70, 0.03, 0.03), 2.0, True, "OPAQUE"),
    "PAINT_BLUE": (
        "Paint (blue)",
        1300.0,
        2.0,
        (0.02, 0.10, 0.70),
        2.0,
        True,
        "OPAQUE",
    ),
    "PAINT_YELLOW": (
        "Paint (yellow)",
        1300.0,
        2.0,
        (0.85, 0.65, 0.02),
        2.0,
        True,
        "OPAQUE",
    ),
    "PAINT_WHITE": (
        "Paint (white)",
        1300.0,
        2.0,
        (0.85, 0.85, 0.85),
        2.0,
        True,
        "OPAQUE",
    ),
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


def enum_items(table):
    items = [(key, v[0], f"{v[0]} preset") for key, v in table.items()]
    items.append(("CUSTOM", "Custom", "Your own values"))
    return items
