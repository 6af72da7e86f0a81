"""Colour of a clear absorbing liquid from its absorption spectrum, for Cycles' RGB volumes.

Cycles absorbs per colour channel, so a liquid whose absorption varies smoothly over the
spectrum (honey, syrup) needs three coefficients that make RGB Beer–Lambert look like the
real thing. Here: the spectral transmission exp(−α(λ)·d) through a depth d, lit by D65 and
seen through the CIE 1931 2° observer, gives XYZ, then Blender's scene-linear RGB (Rec.709
primaries, D65 white, so a clear liquid is (1, 1, 1)); `fit_absorption` then picks the
per-channel coefficients (per metre) whose exp(−σ·d) best matches that RGB over the depths an
artist sees (a thread to a jar). Pure Python, no bpy: `tools/liquid_colours.py` runs it to
regenerate the preset table, the tests run it directly.
"""

import math

# (nm, x̄, ȳ, z̄, D65 relative power) at 10 nm: CIE 015:2018 tables (CIE 1931 2° standard
# observer; D65), as tabulated by colour-science 0.4.7 (`MSDS_CMFS`, `SDS_ILLUMINANTS`).
# 10 nm steps are CIE's own abridged spacing; the spectra integrated here are smooth.
CIE_1931_D65 = (
    (380, 0.001368, 3.9e-05, 0.00645, 49.975),
    (390, 0.004243, 0.00012, 0.02005, 54.648),
    (400, 0.01431, 0.000396, 0.06785, 82.755),
    (410, 0.04351, 0.00121, 0.2074, 91.486),
    (420, 0.13438, 0.004, 0.6456, 93.432),
    (430, 0.2839, 0.0116, 1.3856, 86.682),
    (440, 0.34828, 0.023, 1.74706, 104.86),
    (450, 0.3362, 0.038, 1.77211, 117.01),
    (460, 0.2908, 0.06, 1.6692, 117.81),
    (470, 0.19536, 0.09098, 1.28764, 114.86),
    (480, 0.09564, 0.13902, 0.81295, 115.92),
    (490, 0.03201, 0.20802, 0.46518, 108.81),
    (500, 0.0049, 0.323, 0.272, 109.35),
    (510, 0.0093, 0.503, 0.1582, 107.8),
    (520, 0.06327, 0.71, 0.07825, 104.79),
    (530, 0.1655, 0.862, 0.04216, 107.69),
    (540, 0.2904, 0.954, 0.0203, 104.41),
    (550, 0.43345, 0.99495, 0.00875, 104.05),
    (560, 0.5945, 0.995, 0.0039, 100),
    (570, 0.7621, 0.952, 0.0021, 96.334),
    (580, 0.9163, 0.87, 0.00165, 95.788),
    (590, 1.0263, 0.757, 0.0011, 88.686),
    (600, 1.0622, 0.631, 0.0008, 90.006),
    (610, 1.0026, 0.503, 0.00034, 89.599),
    (620, 0.85445, 0.381, 0.00019, 87.699),
    (630, 0.6424, 0.265, 5e-05, 83.289),
    (640, 0.4479, 0.175, 2e-05, 83.699),
    (650, 0.2835, 0.107, 0, 80.027),
    (660, 0.1649, 0.061, 0, 80.215),
    (670, 0.0874, 0.032, 0, 82.278),
    (680, 0.04677, 0.017, 0, 78.284),
    (690, 0.0227, 0.00821, 0, 69.721),
    (700, 0.0113592, 0.004102, 0, 71.609),
    (710, 0.00579035, 0.002091, 0, 74.349),
    (720, 0.00289933, 0.001047, 0, 61.604),
    (730, 0.00143997, 0.00052, 0, 69.886),
    (740, 0.000690079, 0.0002492, 0, 75.087),
    (750, 0.000332301, 0.00012, 0, 63.593),
    (760, 0.00016615, 6e-05, 0, 46.418),
    (770, 8.30753e-05, 3e-05, 0, 66.805),
    (780, 4.15099e-05, 1.499e-05, 0, 63.383),
)

# XYZ (D65) → linear Rec.709, which is Blender's scene-linear space (IEC 61966-2-1 matrix).
XYZ_TO_REC709 = (
    (3.2406, -1.5372, -0.4986),
    (-0.9689, 1.8758, 0.0415),
    (0.0557, -0.2040, 1.0570),
)

# Depths the fit must get right (metres): a 1 mm thread, a 5 mm puddle seen in and out, a
# 3 cm jar-like block.
FIT_DEPTHS = (0.001, 0.002, 0.005, 0.01, 0.02, 0.03)
# A channel darker than this through a depth is black to the eye; its exact value doesn't
# matter and out-of-gamut (negative) values are clamped to it.
FLOOR = 1e-4


def _rgb_of_xyz(xyz):
    return tuple(sum(m * v for m, v in zip(row, xyz)) for row in XYZ_TO_REC709)


def _xyz(transmission):
    """XYZ of white D65 light after `transmission(nm)`, scaled so that Y of clear is 1."""
    x = y = z = norm = 0.0
    for nm, xbar, ybar, zbar, power in CIE_1931_D65:
        t = transmission(nm)
        x += t * power * xbar
        y += t * power * ybar
        z += t * power * zbar
        norm += power * ybar
    return x / norm, y / norm, z / norm


_CLEAR = _rgb_of_xyz(_xyz(lambda nm: 1.0))


def transmitted_rgb(absorption, depth):
    """Linear Rec.709 colour of white light through `depth` metres of a liquid whose
    absorption coefficient is `absorption(nm)` per metre (natural log). A clear liquid gives
    exactly (1, 1, 1): the matrix's rounding is divided out."""
    rgb = _rgb_of_xyz(_xyz(lambda nm: math.exp(-absorption(nm) * depth)))
    return tuple(c / w for c, w in zip(rgb, _CLEAR))


def fit_absorption(absorption, depths=FIT_DEPTHS):
    """Per-channel absorption coefficients (per metre) so that exp(−σ·d) matches
    `transmitted_rgb` over `depths`: least squares on the log (Beer–Lambert is linear there),
    each depth weighted by how much light the channel still carries, so channels that are
    already black stop pulling the fit."""
    sigma = []
    seen = [transmitted_rgb(absorption, d) for d in depths]
    for c in range(3):
        num = den = 0.0
        for d, rgb in zip(depths, seen):
            t = max(rgb[c], FLOOR)
            w = t
            num += w * d * -math.log(t)
            den += w * d * d
        sigma.append(max(num / den, 0.0))
    return tuple(sigma)


def transmission_through(sigma, depth):
    """What the fitted RGB model keeps through `depth` metres."""
    return tuple(math.exp(-s * depth) for s in sigma)


def linner_absorption(a_ref, ref_nm, hue_index):
    """Absorption per metre (natural log) of a liquid whose decadic absorbance is `a_ref` per
    cm at `ref_nm` and whose log absorbance falls linearly with wavelength, by `hue_index`
    tenths of a decade per 100 nm (Linner's hue index, 10·log10(A510 / A610)). Caramel
    colours follow that form: Beer–Lambert holds and log extinction is a straight line in λ
    over 400–700 nm (J. Food Technol. 1968, doi:10.1111/j.1365-2621.1968.tb01472.x; Linner
    1970), with hue indices 3 to 7.5 for caramels and beers."""
    per_nm = hue_index / 1000.0  # decades of absorbance per nm

    def absorption(nm):
        return math.log(10.0) * a_ref * 10.0 ** (per_nm * (ref_nm - nm)) / 0.01

    return absorption


# Honey. Its grade is the Pfund scale: mm along the grader's amber glass wedge where the honey
# matches it (0 colourless to 140 black). Spectrophotometers read it from the absorbance at
# 635 nm in a 1 cm cell: mm Pfund = −38.70 + 371.39 × A635 (the relation used across the
# honey-colour literature, with the USDA grade table, e.g. Hanna Instruments' HI96785 notes).
# The intercept is what a colourless sample reads (A635 = 0.104 at 0 mm: the cell, scattering),
# so the honey's own colour absorbance at 635 nm is mm / 371.39.
PFUND_PER_ABSORBANCE = 371.39
# That absorbance is taken as the honey's own per cm. The relation is often quoted for a 50 %
# (w/v) solution, which would make pure honey 2.84 times darker (1420 g/L against 500 g/L):
# then light amber honey renders red in a 5 mm puddle (hue 13°, measured) and black in a 3 cm
# block, which honey is not; read as honey's own, light amber absorbs 1.9 per cm at 420 nm,
# where Lyle's Golden Syrup, sold as honey's look-alike, absorbs 1.4–2.6 (see GOLDEN_SYRUP).
HONEY_ABSORBANCE_SCALE = 1.0
# Below 635 nm honey's absorbance rises steeply toward the blue: its colour is the brown of
# Maillard and caramel pigments, so its spectrum is given the caramel form with a mid hue index.
HONEY_LINNER_HUE = 5.0
# USDA grades (U.S. Standards for Grades of Extracted Honey; Pfund mm): water white ≤ 8, extra
# white ≤ 17, white ≤ 34, extra light amber ≤ 50, light amber ≤ 85, amber ≤ 114, dark amber
# above. Each preset sits mid-range, dark amber at 130 mm (the grader's scale ends at 140),
# except light amber, the default honey: 59 mm, the mean of the light amber honeys in Hanna
# Instruments' table of monofloral averages (thyme 52, dandelion 54, eucalyptus 58, sunflower
# 61, strawberry tree 70). Mid-range, 68 mm, absorbs 17% more red and left 0.9% of
# tests/blender/test_render.py's baked puddle near-black (59 mm: 0.4%), at its rim.
HONEY_GRADES = {
    "WATER_WHITE": ("Water white", 4.0),
    "EXTRA_WHITE": ("Extra white", 13.0),
    "WHITE": ("White", 26.0),
    "EXTRA_LIGHT_AMBER": ("Extra light amber", 42.0),
    "LIGHT_AMBER": ("Light amber", 59.0),
    "AMBER": ("Amber", 100.0),
    "DARK_AMBER": ("Dark amber", 130.0),
}


def honey_absorption(pfund_mm, hue_index=HONEY_LINNER_HUE):
    """Absorption spectrum (per metre) of honey of the given Pfund grade."""
    a635 = pfund_mm / PFUND_PER_ABSORBANCE * HONEY_ABSORBANCE_SCALE
    return linner_absorption(a635, 635.0, hue_index)


def icumsa_absorbance(icumsa_units, brix, density_kg_m3):
    """Decadic absorbance per cm at 420 nm of a sugar syrup of the given ICUMSA colour: IU is
    1000 × A420 per cm per g/mL of dissolved solids (ICUMSA method GS2/3-9)."""
    solids_g_per_ml = brix / 100.0 * density_kg_m3 / 1000.0
    return icumsa_units / 1000.0 * solids_g_per_ml


# Lyle's Golden Syrup (Tate & Lyle product specification N1000, 2014: colour 1,200–2,200 IU,
# 82.5–83.0 °Brix), mid-range; 1410 kg/m³ for 83 °Brix sugar syrup. Its colour is caramel, so
# the caramel form with a mid hue index.
GOLDEN_SYRUP = (1700.0, 82.75, 1410.0)
# Caramel (sugar cooked to amber, no cream): golden syrup's caramel colourants, twice as strong.
# The level is an assumption (no measured absorbance of culinary caramel was found); the form
# is the caramel one, with golden syrup's hue index.
CARAMEL_STRENGTH = 2.0
CARAMEL_LINNER_HUE = 5.0


def golden_syrup_absorption():
    return linner_absorption(icumsa_absorbance(*GOLDEN_SYRUP), 420.0, 5.0)


def caramel_absorption():
    a420 = CARAMEL_STRENGTH * icumsa_absorbance(*GOLDEN_SYRUP)
    return linner_absorption(a420, 420.0, CARAMEL_LINNER_HUE)


def reference_colour(absorption, reference_depth=0.01):
    """The add-on's liquid colour for a spectrum: the fitted RGB model's light through
    `reference_depth` (the material reads its per-channel absorption back from it)."""
    return transmission_through(fit_absorption(absorption), reference_depth)


def glassy_preset_colours():
    """Every glassy preset's colour (light through 1 cm), by preset key, from its spectrum:
    what material_presets.py and src/scene/presets.rs hold, to 4 significant digits."""
    spectra = {"HONEY": honey_absorption(HONEY_GRADES["LIGHT_AMBER"][1])}
    for grade, (_, pfund_mm) in HONEY_GRADES.items():
        if grade != "LIGHT_AMBER":  # light amber is the default honey, "HONEY"
            spectra[f"HONEY_{grade}"] = honey_absorption(pfund_mm)
    spectra["GOLDEN_SYRUP"] = golden_syrup_absorption()
    spectra["CARAMEL"] = caramel_absorption()
    return {
        key: tuple(float(f"{c:.4g}") for c in reference_colour(spectrum))
        for key, spectrum in spectra.items()
    }
