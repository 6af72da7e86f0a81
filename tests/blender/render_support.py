"""Rendering with Cycles and measuring what it shows, shared by the render tests and the look
book (tools/lookbook.py).

One render gives both what is measured and what is shown: the Render Result is saved as a
linear float EXR (read back for the figures) and as the PNG an artist would see (the scene's
view transform applied). The liquid's pixels come from a second, cheap render in which only
the liquid is visible, as white emission on black: no guessing from colours.
"""

import colorsys
import math
import os

import bpy
import numpy as np

# A pixel is near-black when every linear channel is below this (issue 41's look-book rule).
NEAR_BLACK_CHANNEL = 0.03


def cycles_cpu(scene, resolution, samples, denoise=False, seed=0):
    render = scene.render
    render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = denoise
    scene.cycles.seed = seed  # the same noise every run, so figures compare
    render.resolution_x, render.resolution_y = resolution
    render.resolution_percentage = 100


def _read_pixels(path):
    image = bpy.data.images.load(path)
    w, h = image.size
    pixels = np.empty(w * h * 4, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    bpy.data.images.remove(image)
    return pixels.reshape(h, w, 4)


def render_linear(scene, path, resolution, samples, png_path=None, denoise=False, seed=0):
    """Renders the current frame; returns its linear (h, w, 4) pixels (saved as a float EXR at
    `path`). With `png_path` the same render is also saved there as the artist sees it."""
    cycles_cpu(scene, resolution, samples, denoise, seed)
    settings = scene.render.image_settings
    bpy.ops.render.render()
    result = bpy.data.images["Render Result"]
    settings.file_format = "OPEN_EXR"
    settings.color_depth = "32"
    result.save_render(filepath=str(path), scene=scene)
    if png_path is not None:
        settings.file_format = "PNG"
        settings.color_mode = "RGB"
        settings.color_depth = "8"
        settings.compression = 100
        result.save_render(filepath=str(png_path), scene=scene)
    return _read_pixels(str(path))


def read_png(path):
    """Display-referred (h, w, 3) values 0..1 of a PNG as saved, bottom row first."""
    image = bpy.data.images.load(str(path))
    image.colorspace_settings.name = "Non-Color"  # the stored values, untransformed
    w, h = image.size
    pixels = np.empty(w * h * 4, dtype=np.float32)
    image.pixels.foreach_get(pixels)
    bpy.data.images.remove(image)
    return pixels.reshape(h, w, 4)[..., :3]


def silhouette(scene, liquid, folder, resolution):
    """Pixels the liquid covers: a render of only the liquid as white emission on black."""
    hidden = {ob.name: ob.hide_render for ob in scene.objects}
    for ob in scene.objects:
        ob.hide_render = ob != liquid
    mask = bpy.data.materials.new("Gloop Mask")
    if mask.node_tree is None:
        mask.use_nodes = True
    nodes = mask.node_tree.nodes
    for node in list(nodes):
        if node.type != "OUTPUT_MATERIAL":
            nodes.remove(node)
    emission = nodes.new("ShaderNodeEmission")
    output = next(n for n in nodes if n.type == "OUTPUT_MATERIAL")
    mask.node_tree.links.new(emission.outputs[0], output.inputs["Surface"])
    view_layer = bpy.context.view_layer
    world, scene.world = scene.world, None
    view_layer.material_override = mask
    try:
        pixels = render_linear(scene, os.path.join(str(folder), "mask.exr"), resolution, 4)
    finally:
        view_layer.material_override = None
        scene.world = world
        for ob in scene.objects:
            ob.hide_render = hidden[ob.name]
        bpy.data.materials.remove(mask)
    return pixels[..., 0] > 0.5


def luminance(pixels):
    return pixels[..., :3] @ np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)


def near_black_fraction(pixels, inside):
    """Share of the liquid's pixels whose every linear channel is below NEAR_BLACK_CHANNEL."""
    dark = np.all(pixels[..., :3] < NEAR_BLACK_CHANNEL, axis=-1)
    return float(dark[inside].mean()) if inside.any() else 0.0


def median_hsv(display, inside):
    """Median hue (degrees), saturation and value of the liquid's displayed pixels."""
    if not inside.any():
        return float("nan"), float("nan"), float("nan")
    rgb = display[inside]
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in rgb])
    # Hues of amber sit near 0/360 only for reds: unwrap around 0 so a median of reds is red.
    hue = hsv[:, 0] * 360.0
    hue = np.where(hue > 300.0, hue - 360.0, hue)
    return float(np.median(hue)), float(np.median(hsv[:, 1])), float(np.median(hsv[:, 2]))


def compare_renders(a, b, inside):
    """Figures of two displayed renders (h, w, 3) of the same shot: the mean absolute difference
    over all pixels and channels in 1/255 and the same over the liquid's pixels (`inside`).
    Specks are tests/blender/specks.py's."""
    difference = np.abs(a[..., :3] - b[..., :3])
    return {
        "mean_difference_255": float(255.0 * difference.mean()),
        "liquid_mean_difference_255": float(255.0 * difference[inside].mean())
        if inside.any()
        else 0.0,
        "liquid_pixels": int(inside.sum()),
    }


def write_png(display, path):
    """Saves display-referred (h, w, 3) values 0..1, bottom row first, as an 8-bit PNG."""
    h, w = display.shape[:2]
    image = bpy.data.images.new("Gloop Diff", w, h, alpha=False)
    image.colorspace_settings.name = "Non-Color"
    rgba = np.ones((h, w, 4), dtype=np.float32)
    rgba[..., :3] = display[..., :3]
    image.pixels.foreach_set(rgba.ravel())
    image.filepath_raw = str(path)
    image.file_format = "PNG"
    image.save()
    bpy.data.images.remove(image)


def sky_and_sun(scene, sky_colour, sun_energy):
    """A uniform sky of `sky_colour` (strength 0.8) and a small sun (3°) in front of and above
    the camera's left, as the look book and the render tools light their shots: the sun's
    reflection on a coated ball is a small spot whose outline shows every wobble of the
    shading normals."""
    world = bpy.data.worlds.new("Sky")
    scene.world = world
    if world.node_tree is None:
        world.use_nodes = True
    background = next(n for n in world.node_tree.nodes if n.type == "BACKGROUND")
    background.inputs["Color"].default_value = (*sky_colour, 1.0)
    background.inputs["Strength"].default_value = 0.8
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = sun_energy
    sun.data.angle = math.radians(3.0)
    sun.rotation_euler = (math.radians(40.0), 0.0, math.radians(-35.0))
    scene.collection.objects.link(sun)
