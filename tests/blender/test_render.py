"""Honey renders without black patches at the settings the Bake panel recommends.

A small honey blob is baked onto a board through the operators, as an artist would, and the
settled puddle is rendered small with Cycles. The puddle's silhouette comes from a second
render in which only the liquid is visible, as white emission on black: no guessing from
colours. Pixels are read from linear EXR files, so "near-black" is linear luminance < 0.02.
"""

import math

import bpy
import pytest
import render_support

RESOLUTION = (160, 120)
SAMPLES = 16
NEAR_BLACK = 0.02  # linear luminance
FRAMES = (1, 12)


def honey_puddle_scene(scene, particle_radius=0.001, height=0.012):
    """A squat honey blob (4 cm across, `height` tall) on a board, to settle into a puddle."""
    scene.frame_start, scene.frame_end = FRAMES
    scene.render.fps = 24
    scene.gloop.particle_radius = particle_radius
    scene.gloop.domain_margin = 0.03
    bpy.ops.mesh.primitive_uv_sphere_add(
        radius=0.02, location=(0.0, 0.0, height / 2 + 0.0005), segments=24, ring_count=12
    )
    blob = bpy.context.object
    blob.name = "Honey"
    blob.scale.z = height / 0.04
    blob.gloop.type = "LIQUID"
    blob.gloop.liquid_preset = "HONEY"
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, -0.005))
    board = bpy.context.object
    board.name = "Board"
    board.scale = (0.1, 0.1, 0.01)
    board.gloop.type = "OBSTACLE"
    board.gloop.solid_preset = "CERAMIC"
    return scene


def light_and_camera(scene):
    """A soft sky plus a sun, and a camera looking down at the puddle at 40°."""
    world = bpy.data.worlds.new("Sky")
    scene.world = world
    if world.node_tree is None:  # before 5.0 new worlds start without nodes
        world.use_nodes = True
    background = next(n for n in world.node_tree.nodes if n.type == "BACKGROUND")
    background.inputs["Color"].default_value = (0.6, 0.7, 0.9, 1.0)
    background.inputs["Strength"].default_value = 1.0
    sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", "SUN"))
    sun.data.energy = 3.0
    sun.data.angle = math.radians(5.0)
    sun.rotation_euler = (math.radians(35.0), 0.0, math.radians(30.0))
    scene.collection.objects.link(sun)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    cam.data.lens = 50.0
    scene.collection.objects.link(cam)
    distance, tilt = 0.16, math.radians(50.0)
    cam.location = (0.0, -distance * math.sin(tilt), distance * math.cos(tilt))
    cam.rotation_euler = (tilt, 0.0, 0.0)
    scene.camera = cam


def render_linear(scene, path, resolution=RESOLUTION, samples=SAMPLES):
    """Renders the current frame with Cycles to a float EXR; returns its (h, w, 4) pixels."""
    return render_support.render_linear(scene, path, resolution, samples)


def silhouette(scene, liquid, folder, resolution=RESOLUTION):
    return render_support.silhouette(scene, liquid, folder, resolution)


def near_black_fraction(pixels, inside):
    return float((render_support.luminance(pixels)[inside] < NEAR_BLACK).mean())


def cycles_settings(scene):
    """Every Cycles and render setting, to tell what an operator or a bake changed."""
    out = {}
    for owner in (scene.cycles, scene.render):
        for prop in owner.bl_rna.properties:
            if prop.type not in {"POINTER", "COLLECTION"} and prop.identifier != "rna_type":
                value = getattr(owner, prop.identifier)
                out[f"{owner.bl_rna.identifier}.{prop.identifier}"] = (
                    tuple(value)
                    if hasattr(value, "__len__") and not isinstance(value, str)
                    else value
                )
    return out


# Blender's "Direct Light" light-path preset (presets/cycles/integrator/Direct_Light.py): the
# kind of fast setting under which glassy liquid runs out of bounces.
DIRECT_LIGHT = {
    "max_bounces": 8,
    "diffuse_bounces": 0,
    "glossy_bounces": 1,
    "transmission_bounces": 2,
    "caustics_reflective": False,
    "caustics_refractive": False,
}


@pytest.fixture
def settled_honey(empty_scene):
    scene = honey_puddle_scene(empty_scene)
    scene.render.engine = "CYCLES"
    before = cycles_settings(scene)
    assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
    # A bake sets Lock Interface (rendering while meshes swap needs it) and nothing else.
    changed = {k for k, v in cycles_settings(scene).items() if before[k] != v}
    assert changed <= {"RenderSettings.use_lock_interface"}, changed
    scene.frame_set(FRAMES[1])
    light_and_camera(scene)
    return scene


def test_settled_honey_has_no_black_patches_at_the_recommended_settings(settled_honey, tmp_path):
    scene = settled_honey
    liquid = scene.gloop.liquid_object
    inside = silhouette(scene, liquid, tmp_path)
    assert inside.sum() > 1000, inside.sum()  # the puddle fills a good part of the frame

    assert bpy.ops.gloop.liquid_render_settings() == {"FINISHED"}
    recommended = near_black_fraction(render_linear(scene, tmp_path / "honey.exr"), inside)
    print(f"near-black at the recommended settings: {recommended:.4f}")
    assert recommended <= 0.01, recommended

    # Blender's Direct Light preset once showed black patches here (light trapped in the thin
    # air film between the puddle's base and the board); with the contact face inside the
    # board (issue 41) it shows none either: 0.2% measured, printed here, not asserted.
    for name, value in DIRECT_LIGHT.items():
        setattr(scene.cycles, name, value)
    low = near_black_fraction(render_linear(scene, tmp_path / "low.exr"), inside)
    print(f"near-black at the Direct Light preset: {low:.4f}")


def add_honey(scene):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.02, location=(0.0, 0.0, 0.03))
    honey = bpy.context.object
    honey.gloop.type = "LIQUID"
    honey.gloop.liquid_preset = "HONEY"
    scene.render.engine = "CYCLES"
    return honey


def test_the_panel_flags_the_settings_until_the_operator_raises_them(addon, empty_scene):
    scene = empty_scene
    add_honey(scene)
    flagged = addon.render_settings.shortfalls(scene)  # what the Bake panel draws from
    # Cycles' defaults: 4 glossy bounces (internal reflections) and 12 in all are too few.
    assert {name for name, _, _ in flagged} == {"glossy_bounces", "max_bounces"}, flagged
    assert bpy.ops.gloop.liquid_render_settings.poll()
    before = cycles_settings(scene)
    assert bpy.ops.gloop.liquid_render_settings() == {"FINISHED"}
    after = cycles_settings(scene)
    changed = {k: (before[k], v) for k, v in after.items() if before[k] != v}
    assert changed == {
        "CyclesRenderSettings.glossy_bounces": (4, 8),
        "CyclesRenderSettings.max_bounces": (12, 16),
    }
    assert addon.render_settings.shortfalls(scene) == []
    assert not bpy.ops.gloop.liquid_render_settings.poll()


def test_the_operator_only_raises_and_only_glassy_cycles_scenes_are_flagged(addon, empty_scene):
    scene = empty_scene
    honey = add_honey(scene)
    scene.cycles.glossy_bounces = 64  # the artist's own, higher: kept
    assert bpy.ops.gloop.liquid_render_settings() == {"FINISHED"}
    assert (scene.cycles.glossy_bounces, scene.cycles.max_bounces) == (64, 16)
    scene.cycles.max_bounces = 2
    honey.gloop.look = "OPAQUE"  # paint has no inside to run out of bounces in
    assert addon.render_settings.shortfalls(scene) == []
    honey.gloop.look = "GLASSY"
    scene.render.engine = "BLENDER_WORKBENCH"  # Cycles' bounces do not apply
    assert addon.render_settings.shortfalls(scene) == []
