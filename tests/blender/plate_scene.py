"""A liquid on a white plate under a neutral sun and sky, rendered small with Cycles, and the
colour of the liquid's pixels as an artist sees them (Standard view transform).

No bake: the liquid is a simple mesh (a puddle, a thread, a block) carrying the add-on's own
material and the per-vertex colour attribute the add-on's meshes carry.
"""

import colorsys
import math
import os

import bpy
import numpy as np
import render_support

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESOLUTION = (96, 72)
SAMPLES = 24
PLATE_TOP = 0.0


def neutral_light_and_camera(scene, distance=0.14, tilt_degrees=35.0):
    """A white sky (uniform, strength 0.3) and a white sun (2 W/m², 55° high): a white plate shows at about 0.85, not clipped; a camera looking down."""
    world = bpy.data.worlds.new("Neutral Sky")
    scene.world = world
    if world.node_tree is None:  # before 5.0 new worlds start without nodes
        world.use_nodes = True
    background = next(n for n in world.node_tree.nodes if n.type == "BACKGROUND")
    background.inputs["Color"].default_value = (1.0, 1.0, 1.0, 1.0)
    background.inputs["Strength"].default_value = 0.3
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 2.0
    sun.data.color = (1.0, 1.0, 1.0)
    sun.data.angle = math.radians(5.0)
    sun.rotation_euler = (math.radians(35.0), 0.0, math.radians(40.0))
    scene.collection.objects.link(sun)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    cam.data.lens = 50.0
    scene.collection.objects.link(cam)
    tilt = math.radians(tilt_degrees)
    cam.location = (0.0, -distance * math.sin(tilt), distance * math.cos(tilt))
    cam.rotation_euler = (tilt, 0.0, 0.0)
    scene.camera = cam
    scene.view_settings.view_transform = "Standard"
    scene.view_settings.look = "None"
    scene.view_settings.exposure = 0.0
    scene.view_settings.gamma = 1.0


def white_plate(scene, radius=0.08):
    """A white ceramic-like plate: diffuse albedo 0.8, a little gloss. Its top is at z = 0."""
    bpy.ops.mesh.primitive_cylinder_add(
        radius=radius, depth=0.005, location=(0.0, 0.0, PLATE_TOP - 0.0025), vertices=64
    )
    plate = bpy.context.object
    plate.name = "Plate"
    mat = bpy.data.materials.new("White Plate")
    if mat.node_tree is None:
        mat.use_nodes = True
    bsdf = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = (0.8, 0.8, 0.8, 1.0)
    bsdf.inputs["Roughness"].default_value = 0.4
    plate.data.materials.append(mat)
    return plate


def give_liquid_colour(ob, colour):
    """The per-vertex colour attribute the add-on's liquid meshes carry (the skin tint)."""
    attribute = ob.data.attributes.get("gloop_colour") or ob.data.attributes.new(
        "gloop_colour", "FLOAT_COLOR", "POINT"
    )
    attribute.data.foreach_set("color", [*colour, 1.0] * len(ob.data.vertices))


def puddle(material, colour, depth=0.005, radius=0.025, x=0.0, y=0.0):
    """A flat round puddle `depth` deep standing on the plate (its base 0.05 mm inside it, so
    Cycles never sees two coincident faces), edges rounded by a bevel."""
    bpy.ops.mesh.primitive_cylinder_add(
        radius=radius, depth=depth, location=(x, y, PLATE_TOP + depth / 2 - 5e-5), vertices=64
    )
    ob = bpy.context.object
    ob.name = "Puddle"
    bevel = ob.modifiers.new("Round", "BEVEL")
    bevel.width = depth * 0.45
    bevel.segments = 4
    bevel.limit_method = "ANGLE"
    bpy.ops.object.shade_smooth()
    give_liquid_colour(ob, colour)
    ob.data.materials.append(material)
    return ob


def render_linear(scene, path, resolution=RESOLUTION, samples=SAMPLES):
    """Renders the current frame with Cycles to a float EXR; returns its (h, w, 4) pixels."""
    return render_support.render_linear(scene, path, resolution, samples)


def silhouette(scene, liquid, folder, resolution=RESOLUTION):
    """Pixels the liquid covers: a render of only the liquid as white emission on black."""
    return render_support.silhouette(scene, liquid, folder, resolution)


def to_display(linear):
    """Linear Rec.709 → the sRGB-encoded values the Standard view transform shows."""
    x = np.clip(linear[..., :3], 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1.0 / 2.4) - 0.055)


def hue_and_value(pixels, inside):
    """Median hue (degrees) and median HSV value of the displayed pixels inside the mask."""
    shown = to_display(pixels)[inside]
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in shown])
    hues = hsv[:, 0] * 360.0
    hues = np.where(hues > 300.0, hues - 360.0, hues)  # a red just below 0° is red, not pink
    return float(np.median(hues)), float(np.median(hsv[:, 2]))
