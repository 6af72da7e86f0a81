"""Absorption spectra → Cycles' RGB absorption (blender_addon/spectral.py), and the preset
tables that hold its results (blender_addon/material_presets.py, src/scene/presets.rs)."""

import colorsys
import math
import os
import re
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, "blender_addon"))

import material_presets  # plain modules: no bpy, no add-on package
import spectral

DEPTHS = (0.001, 0.005, 0.01, 0.03)  # a thread, a thin and a thick puddle, a jar-like block


def shown_hue(rgb):
    """Hue in degrees of a linear colour as the Standard view transform shows it."""
    encoded = [
        12.92 * c if c <= 0.0031308 else 1.055 * c ** (1 / 2.4) - 0.055
        for c in (min(max(c, 0.0), 1.0) for c in rgb)
    ]
    return colorsys.rgb_to_hsv(*encoded)[0] * 360.0


def luminance(rgb):
    return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]


def test_a_clear_liquid_lets_white_through():
    assert spectral.transmitted_rgb(lambda nm: 0.0, 0.03) == pytest.approx((1, 1, 1), abs=1e-12)


@pytest.mark.parametrize("per_metre", [10.0, 100.0])
def test_a_flat_spectrum_gives_grey_and_equal_coefficients(per_metre):
    for depth in DEPTHS:
        rgb = spectral.transmitted_rgb(lambda nm: per_metre, depth)
        assert rgb == pytest.approx([math.exp(-per_metre * depth)] * 3, rel=1e-6), rgb
    assert spectral.fit_absorption(lambda nm: per_metre) == pytest.approx([per_metre] * 3)


def test_a_liquid_that_absorbs_blue_is_yellow():
    blue_absorber = spectral.transmitted_rgb(lambda nm: 300.0 if nm < 500 else 0.0, 0.01)
    assert blue_absorber[0] > 0.95 and blue_absorber[1] > 0.8 and blue_absorber[2] < 0.2


def test_honey_absorbs_at_635_nm_what_its_pfund_grade_says():
    # mm Pfund = −38.70 + 371.39 × A635; the intercept is a colourless sample's reading.
    per_metre = spectral.honey_absorption(68.0)(635)
    assert per_metre * 0.01 / math.log(10.0) == pytest.approx(68.0 / 371.39)
    # Toward the blue it rises steeply: ten times as much 200 nm lower at hue index 5.
    ratio = spectral.honey_absorption(68.0)(435) / per_metre
    assert ratio == pytest.approx(10.0)


def test_darker_grades_are_darker_and_redder_at_every_depth():
    grades = list(spectral.HONEY_GRADES.values())
    # Through 2 cm (a 5 mm puddle on a plate: down, then up and out at a slant, as rendered)
    # and 3 cm. Through 1 cm or less the displayed hue has plateaus where blue's fall offsets
    # green's (extra light amber 39.8°, light amber 39.9° through 1 cm).
    for depth in (0.02, 0.03):
        seen = [spectral.transmitted_rgb(spectral.honey_absorption(mm), depth) for _, mm in grades]
        for (name, _), lighter, darker in zip(grades[1:], seen, seen[1:]):
            assert luminance(darker) < luminance(lighter), (name, depth)
            assert shown_hue(darker) < shown_hue(lighter), (name, depth)


def test_light_amber_honey_is_golden_in_a_puddle_and_red_brown_in_a_jar():
    honey = spectral.honey_absorption(spectral.HONEY_GRADES["LIGHT_AMBER"][1])
    assert 35 < shown_hue(spectral.transmitted_rgb(honey, 0.001)) < 50  # a pale yellow thread
    assert 28 < shown_hue(spectral.transmitted_rgb(honey, 0.01)) < 45  # a 5 mm puddle, in and out
    jar = spectral.transmitted_rgb(honey, 0.03)
    assert shown_hue(jar) < 25 and luminance(jar) < 0.1  # measured 22°, luminance 0.097


@pytest.mark.parametrize(
    "name",
    [*spectral.HONEY_GRADES, "GOLDEN_SYRUP", "CARAMEL"],
)
def test_the_fitted_rgb_absorption_matches_the_spectrum_from_a_thread_to_a_jar(name):
    if name in spectral.HONEY_GRADES:
        absorption = spectral.honey_absorption(spectral.HONEY_GRADES[name][1])
    else:
        absorption = getattr(spectral, f"{name.lower()}_absorption")()
    sigma = spectral.fit_absorption(absorption)
    for depth in DEPTHS:
        exact = spectral.transmitted_rgb(absorption, depth)
        fitted = spectral.transmission_through(sigma, depth)
        # Measured: at most 0.056 on any channel (light amber's green at 5 mm) — a channel
        # mixes wavelengths that fade at different rates, which one coefficient cannot follow.
        assert max(abs(a - b) for a, b in zip(exact, fitted)) < 0.06, (depth, exact, fitted)
        if luminance(exact) > 0.01:
            assert abs(shown_hue(exact) - shown_hue(fitted)) < 4.0, (depth, exact, fitted)


def test_golden_syrup_follows_its_specification_and_sits_beside_light_amber_honey():
    # Lyle's Golden Syrup: 1,200–2,200 IU at 83 °Brix, i.e. 1.4–2.6 absorbance per cm at 420 nm.
    low = spectral.icumsa_absorbance(1200.0, 82.75, 1410.0)
    high = spectral.icumsa_absorbance(2200.0, 82.75, 1410.0)
    assert 1.35 < low < 1.45 and 2.5 < high < 2.65
    syrup = spectral.golden_syrup_absorption()(420) * 0.01 / math.log(10.0)
    light_amber = spectral.HONEY_GRADES["LIGHT_AMBER"][1]
    honey = spectral.honey_absorption(light_amber)(420) * 0.01 / math.log(10.0)
    assert low < syrup < high and low < honey < high


def test_the_preset_tables_hold_the_colours_the_spectra_give():
    """tools/liquid_colours.py prints these; a change of source must reach both tables."""
    computed = spectral.glassy_preset_colours()
    for key, colour in computed.items():
        assert material_presets.LIQUIDS[key][3] == pytest.approx(colour, rel=1e-6), key
    with open(os.path.join(REPO, "src", "scene", "presets.rs"), encoding="utf-8") as f:
        rust = f.read()
    for rust_name, key in (("honey", "HONEY"), ("golden syrup", "GOLDEN_SYRUP")):
        match = re.search(rf'liquid\("{rust_name}", [^\[]*\[([^\]]*)\]', rust)
        values = [float(v) for v in match.group(1).split(",")]
        assert values == pytest.approx(computed[key], rel=1e-6), rust_name
    chocolate = re.search(r'liquid\("chocolate", [^\[]*\[([^\]]*)\]', rust).group(1)
    assert [float(v) for v in chocolate.split(",")] == pytest.approx(
        material_presets.LIQUIDS["CHOCOLATE"][3]
    )
