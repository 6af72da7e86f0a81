"""Renders a still (by default docs/quick_honey.png): a cube made honey with one click of Quick
Honey, baked and rendered with Cycles, the way the README's "In Blender" section tells an artist to do it.

Everything Gloop-side is left as Quick Honey sets it (Automatic Resolution, its domain and
wooden floor); the script only adds what any render needs: a sky, a sun, a camera, a wood
colour for the floor, and Gloop's own Liquid Render Settings. Run it from the repository root
after building the wheel (`python blender_addon/build.py --zig --skip-zip`):

    /work/main/.venv/bin/python tools/render_quick_honey.py [--frame 8] [--samples 64]
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

CUBE = 0.06  # m: a 6 cm cube of honey, a little turned, its bottom 6 cm over the floor


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frame", type=int, default=8, help="frame to bake up to and render")
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--size", type=int, nargs=2, default=(640, 400))
    parser.add_argument("--out", default=os.path.join(REPO, "docs", "quick_honey.png"))
    parser.add_argument("--cache", default=None, help="cache folder (default: a temporary one)")
    parser.add_argument(
        "--reuse", action="store_true", help="render from the cache's earlier bake, no new bake"
    )
    parser.add_argument("--distance", type=float, default=0.40, help="camera distance, m")
    return parser.parse_args()


def honey_cube():
    bpy.ops.mesh.primitive_cube_add(size=CUBE, location=(0.0, 0.0, 2.0 * CUBE))
    cube = bpy.context.object
    cube.name = "Honey"
    cube.rotation_euler = (math.radians(12.0), math.radians(-8.0), math.radians(30.0))
    return cube


def wood_colour(floor):
    material = bpy.data.materials.new("Wood")
    if material.node_tree is None:  # before 5.0 new materials start without nodes
        material.use_nodes = True
    bsdf = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = (0.62, 0.47, 0.32, 1.0)  # pale wood
    bsdf.inputs["Roughness"].default_value = 0.45
    floor.data.materials.append(material)


def light_and_camera(scene, target, distance):
    render_support.sky_and_sun(scene, (0.75, 0.82, 0.95), 5.0)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    cam.data.lens = 60.0
    scene.collection.objects.link(cam)
    tilt = math.radians(46.0)
    cam.location = (0.0, -distance * math.sin(tilt), target[2] + distance * math.cos(tilt))
    cam.rotation_euler = (tilt, 0.0, 0.0)
    scene.camera = cam


def main():
    args = arguments()
    addon, cleanup = harness.enable_extension()
    try:
        bpy.ops.wm.read_homefile(use_empty=True)
        scene = bpy.context.scene
        scene.frame_start, scene.frame_end = 1, args.frame
        scene.gloop.cache_dir = args.cache or tempfile.mkdtemp(prefix="gloop_quick_honey_")
        honey_cube()
        assert bpy.ops.gloop.quick_honey() == {"FINISHED"}
        floor = bpy.data.objects["Gloop Floor"]
        wood_colour(floor)
        if args.reuse:
            addon.playback.ensure_liquid_object(scene)
        else:
            assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
        scene.frame_set(args.frame)
        light_and_camera(scene, floor.location + Vector((0.0, 0.0, CUBE / 4.0)), args.distance)
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
        render.image_settings.compression = 100
        render.filepath = os.path.abspath(args.out)
        bpy.ops.render.render(write_still=True)
        print(f"wrote {render.filepath} (cache {bpy.path.abspath(scene.gloop.cache_dir)})")
    finally:
        cleanup()


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # bpy 4.5 can hang at exit (BLENDER_NOTES §5)
