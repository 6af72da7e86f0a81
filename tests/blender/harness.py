"""Enables the Gloop extension from the source folder inside the `bpy` module (BLENDER_NOTES
§5): a local extension repository whose folder holds a `gloop` link to `blender_addon/`.
Enabling installs the wheels listed in the manifest (`python blender_addon/build.py
--skip-zip` builds them)."""

import os
import sys
import tempfile

import bpy

REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADDON_DIR = os.path.join(REPO_DIR, "blender_addon")
MODULE = "bl_ext.gloop_dev.gloop"


def _raise(e):
    raise e


def enable_extension():
    """Returns (add-on module, cleanup function)."""
    import addon_utils  # a Blender module: importable only once bpy is loaded

    repo_dir = tempfile.mkdtemp(prefix="gloop_repo_")
    os.symlink(ADDON_DIR, os.path.join(repo_dir, "gloop"))
    repos = bpy.context.preferences.extensions.repos
    repo = repos.new(name="gloop_dev", module="gloop_dev", custom_directory=repo_dir, source="USER")
    addon_utils.enable(MODULE, default_set=True, handle_error=_raise)

    def cleanup():
        addon_utils.disable(MODULE, default_set=True)
        repos.remove(repo)

    return sys.modules[MODULE], cleanup


def render_coverage(scene, camera_location, look_at, folder, resolution=(64, 48)):
    """Renders the current frame with Cycles (CPU, 16 samples, no denoising, transparent film)
    and returns the fraction of pixels that something covers (alpha > 0.5)."""
    import numpy as np
    from mathutils import Vector

    cam = bpy.data.objects.new("Test Camera", bpy.data.cameras.new("Test Camera"))
    scene.collection.objects.link(cam)
    cam.location = camera_location
    direction = Vector(look_at) - Vector(camera_location)
    cam.rotation_euler = direction.to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam
    render = scene.render
    render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = 16
    scene.cycles.use_denoising = False
    render.film_transparent = True
    render.resolution_x, render.resolution_y = resolution
    render.resolution_percentage = 100
    render.image_settings.file_format = "PNG"
    render.image_settings.color_mode = "RGBA"
    render.filepath = os.path.join(str(folder), "render.png")
    bpy.ops.render.render(write_still=True)
    image = bpy.data.images.load(render.filepath)
    pixels = np.empty(image.size[0] * image.size[1] * 4, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    bpy.data.images.remove(image)
    return float((pixels.reshape(-1, 4)[:, 3] > 0.5).mean())
