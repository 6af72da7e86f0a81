"""Honey renders golden: a 5 mm puddle on a white plate under a neutral sun and sky, with the
add-on's glassy material, for the default honey (light amber) and each USDA colour grade.

No bake: the puddle is a bevelled disc carrying the add-on's material (see plate_scene.py).
Hue is read from the pixels as the Standard view transform shows them (AgX, Blender's
default, measured within 4° of it on these puddles).
"""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import plate_scene

sys.path.insert(0, os.path.join(plate_scene.REPO, "blender_addon"))

import spectral  # a plain module: no bpy, no add-on package

GOLDEN = (28.0, 45.0)  # degrees: retail honey in a puddle on a white plate reads golden amber
GRADES = [
    "HONEY_WATER_WHITE",
    "HONEY_EXTRA_WHITE",
    "HONEY_WHITE",
    "HONEY_EXTRA_LIGHT_AMBER",
    "HONEY",  # light amber, the default
    "HONEY_AMBER",
    "HONEY_DARK_AMBER",
]


@pytest.fixture
def plate(addon, empty_scene, tmp_path):
    """(render(colour) → (median hue, median value)) for a 5 mm puddle on a white plate."""
    scene = empty_scene
    plate_scene.neutral_light_and_camera(scene)
    plate_scene.white_plate(scene)
    material = addon.shading.liquid_material("GLASSY", addon.material_presets.LIQUIDS["HONEY"][3])
    puddle = plate_scene.puddle(material, addon.material_presets.LIQUIDS["HONEY"][3], depth=0.005)
    inside = plate_scene.silhouette(scene, puddle, tmp_path)
    assert inside.sum() > 1000, inside.sum()  # the puddle fills a good part of the frame

    def render(colour, name):
        # The material follows the liquid's colour as the add-on updates it (nobody edited it).
        assert addon.shading.liquid_material("GLASSY", colour) == material
        plate_scene.give_liquid_colour(puddle, colour)
        pixels = plate_scene.render_linear(scene, tmp_path / f"{name}.exr")
        hue, value = plate_scene.hue_and_value(pixels, inside)
        print(f"{name}: hue {hue:.1f}°, value {value:.3f}")
        return hue, value

    return render


def test_a_honey_puddle_on_a_white_plate_is_golden(addon, plate):
    hue, _ = plate(addon.material_presets.LIQUIDS["HONEY"][3], "light_amber")
    assert GOLDEN[0] <= hue <= GOLDEN[1], hue  # measured 35.4°


def test_each_darker_grade_is_redder_and_darker(addon, plate):
    seen = [plate(addon.material_presets.LIQUIDS[key][3], key) for key in GRADES]
    for key, (lighter_hue, lighter_value), (hue, value) in zip(GRADES[1:], seen, seen[1:]):
        assert hue < lighter_hue and value < lighter_value, (key, seen)


def test_the_test_can_fail_on_a_spectrum_read_too_dark(plate):
    """Read as a 50 % (w/v) solution's, the Pfund relation makes pure honey 2.84 times as dark:
    that light amber renders red (measured 12.8°), and this test's measure says so. (Gloop's
    colour before the spectra, (0.80, 0.42, 0.05), measured 36.5° here: golden in a 5 mm
    puddle; its red came with depth, where its green died 3.9 times as fast as its red against
    the spectrum's 3.0.)"""
    literal = spectral.linner_absorption(
        spectral.HONEY_GRADES["LIGHT_AMBER"][1] / spectral.PFUND_PER_ABSORBANCE * 1420.0 / 500.0,
        635.0,
        spectral.HONEY_LINNER_HUE,
    )
    hue, _ = plate(spectral.reference_colour(literal), "literal_dilution")
    assert hue < GOLDEN[0], hue
