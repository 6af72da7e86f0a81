"""Prints the glassy liquid presets' colours from their absorption spectra (the light the
fitted RGB absorption lets through 1 cm; see blender_addon/spectral.py), to paste into
blender_addon/material_presets.py and src/scene/presets.rs:

    /work/main/.venv/bin/python tools/liquid_colours.py

tests/blender/test_spectral.py checks that both tables still match.
"""

import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "blender_addon"))

import spectral  # a plain module: no bpy, no add-on package


def main():
    for key, colour in spectral.glassy_preset_colours().items():
        print(f"{key:28s} ({', '.join(f'{c:.4g}' for c in colour)})")


if __name__ == "__main__":
    main()
