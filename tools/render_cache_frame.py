"""Renders one frame of a Gloop cache with Cycles, opened the way an artist would (Open Cache,
the add-on's own liquid material and Liquid Render Settings), under a sky and a small sun
whose highlight shows how smoothly the surface shades. Made for the honey-drop demo's ball
(issue 41: its highlight came out hexagonal); the camera looks at `--target`.

Run from the repository root after building the wheel (`python blender_addon/build.py --zig
--skip-zip`):

    /work/main/.venv/bin/python tools/render_cache_frame.py --cache DIR --frame 50 \
        --out /tmp/drop50.png [--samples 64] [--size 640 480] [--distance 0.22]
"""

import argparse
import math
import os
import sys
import tempfile

# Isolated user resources, as in the tests: the script never touches a real Blender setup.
os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="gloop_blender_user_"))

import bpy
from mathutils import Vector

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "blender"))

import harness  # after sys.path: both live beside the tests
import render_support


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", required=True, help="a cache folder (Open Cache opens it)")
    parser.add_argument("--frame", type=int, default=50)
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--size", type=int, nargs=2, default=(640, 480))
    parser.add_argument("--out", required=True)
    parser.add_argument(
        "--target", type=float, nargs=3, default=(0.0, 0.0, 0.12), help="where the camera looks"
    )
    parser.add_argument("--distance", type=float, default=0.22, help="camera distance, m")
    parser.add_argument("--lens", type=float, default=60.0, help="focal length, mm")
    parser.add_argument("--hide", nargs="*", default=[], help="objects left out of the render")
    return parser.parse_args()


def light_and_camera(scene, target, distance, lens):
    render_support.sky_and_sun(scene, (0.75, 0.82, 0.95), 5.0)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    cam.data.lens = lens
    scene.collection.objects.link(cam)
    tilt = math.radians(70.0)
    target = Vector(target)
    cam.location = target + Vector((0.0, -distance * math.sin(tilt), distance * math.cos(tilt)))
    cam.rotation_euler = (target - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam


def main():
    args = arguments()
    _addon, cleanup = harness.enable_extension()
    try:
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        assert bpy.ops.gloop.open_cache(directory=os.path.abspath(args.cache)) == {"FINISHED"}
        scene.frame_set(args.frame)
        light_and_camera(scene, args.target, args.distance, args.lens)
        for name in args.hide:
            bpy.data.objects[name].hide_render = True
        render = scene.render
        render.engine = "CYCLES"
        if bpy.ops.gloop.liquid_render_settings.poll():  # only when Cycles' bounces fall short
            bpy.ops.gloop.liquid_render_settings()
        scene.cycles.device = "CPU"
        scene.cycles.samples = args.samples
        render.resolution_x, render.resolution_y = args.size
        render.resolution_percentage = 100
        render.image_settings.file_format = "PNG"
        render.image_settings.color_mode = "RGB"
        render.filepath = os.path.abspath(args.out)
        bpy.ops.render.render(write_still=True)
        print(f"wrote {render.filepath}")
    finally:
        cleanup()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # bpy 4.5 can hang at exit (BLENDER_NOTES §5)
