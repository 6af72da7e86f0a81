"""An artist's first hour (issue 34): a scene set up with everything at its defaults bakes."""

import json
import os
import time

import bpy
import pytest

# Only the timeline is shortened (Blender's default is 250 frames): the Gloop settings stay
# untouched. Six frames take the drop down onto the board.
FRAMES = (1, 6)


def honey_sphere(radius=0.03, location=(0.0, 0.0, 0.1), name="Honey"):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=radius, location=location)
    ob = bpy.context.object
    ob.name = name
    ob.gloop.type = "LIQUID"
    return ob


def wooden_plane(size=0.4, name="Board", **kwargs):
    bpy.ops.mesh.primitive_plane_add(size=size, **kwargs)
    ob = bpy.context.object
    ob.name = name
    ob.gloop.type = "OBSTACLE"
    ob.gloop.solid_preset = "WOOD"
    return ob


def test_the_default_sphere_over_a_plane_bakes_untouched(addon, empty_scene):
    import gloop_core  # installed by enabling the extension

    scene = empty_scene
    scene.frame_start, scene.frame_end = FRAMES
    honey_sphere()
    wooden_plane()
    objects = addon.export.gloop_objects(scene)
    automatic = addon.resolution.automatic(objects)
    assert automatic.object_name == "Honey"
    liquid, solid = addon.estimate.estimate(scene, objects, FRAMES)[:2]

    started = time.monotonic()
    assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
    took = time.monotonic() - started

    cache = bpy.path.abspath(scene.gloop.cache_dir)
    with open(os.path.join(cache, "scene.json")) as f:
        radius = json.load(f)["settings"]["particle_radius"]
    assert radius == pytest.approx(automatic.radius)
    last = gloop_core.read_particles(os.path.join(cache, f"particles_{FRAMES[1]:05d}.ply"))
    print(
        f"automatic radius {radius * 1e3:.3f} mm, estimated {liquid:,} liquid + "
        f"{solid:,} object particles, baked {last['count']:,}, {took:.1f} s"
    )
    assert last["count"] >= 2000
    scene.frame_set(FRAMES[1])
    assert len(scene.gloop.liquid_object.data.polygons) > 0  # the surface mesh


def test_automatic_resolution_gives_way_to_a_radius_set_by_hand(addon, empty_scene):
    scene = empty_scene
    honey_sphere()
    objects = addon.export.gloop_objects(scene)
    assert scene.gloop.use_auto_radius
    automatic = addon.resolution.particle_radius(scene, objects)
    assert automatic < 0.003  # millimetres for a 3 cm drop, not the 2 cm default
    scene.gloop.particle_radius = 0.005
    assert not scene.gloop.use_auto_radius
    assert addon.resolution.particle_radius(scene, objects) == pytest.approx(0.005)
    scene.gloop.use_auto_radius = True
    assert addon.resolution.particle_radius(scene, objects) == pytest.approx(automatic)


def test_a_file_from_before_automatic_resolution_keeps_its_radius(addon, empty_scene, tmp_path):
    scene = empty_scene
    honey_sphere()
    scene.gloop.particle_radius = 0.005
    scene.gloop.property_unset("use_auto_radius")  # as saved by an older Gloop
    blend = str(tmp_path / "older.blend")
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    bpy.ops.wm.open_mainfile(filepath=blend)
    scene = bpy.context.scene
    assert not scene.gloop.use_auto_radius
    objects = addon.export.gloop_objects(scene)
    assert addon.resolution.particle_radius(scene, objects) == pytest.approx(0.005)
