"""The estimate's model of a liquid object spreading into a puddle (`spreading`): Huppert's
viscous gravity current, and what the Bake panel's cache estimate makes of it."""

import bpy
import numpy as np
import pytest

HONEY = {"density": 1420.0, "viscosity": 19.0, "gravity": 9.81}


def test_the_puddle_spreads_as_a_viscous_gravity_current(addon):
    radius = addon.spreading.puddle_radius
    r1 = radius(1.0, 1.25e-4, **HONEY)
    # R ∝ (V³ t / μ)^(1/8): 256 times the time or 2^(8/3) times the volume double it, a
    # viscosity 256 times larger halves it.
    assert radius(256.0, 1.25e-4, **HONEY) == pytest.approx(2.0 * r1)
    assert radius(1.0, 1.25e-4 * 2.0 ** (8 / 3), **HONEY) == pytest.approx(2.0 * r1)
    thick = dict(HONEY, viscosity=256 * 19.0)
    assert radius(1.0, 1.25e-4, **thick) == pytest.approx(0.5 * r1)
    # 125 mL of honey a second after it started: 6.1 cm (Huppert's 0.894 (ρgV³t/3μ)^(1/8)).
    assert r1 == pytest.approx(0.0611, abs=5e-4)
    assert radius(-0.1, 1.25e-4, **HONEY) == 0.0


def test_the_shape_is_the_objects_until_the_puddle_outgrows_it(addon):
    spreading = addon.spreading
    cube = 6 * 0.05**2  # a 5 cm cube's faces, each level or upright: 1 edge per cube face
    seconds = np.arange(30) / 24.0
    landed = spreading.landing_time(0.05, 9.81)  # 0.10 s
    shapes = spreading.shapes(seconds, cube, 0.05**3, gap=0.05, **HONEY)
    falling = seconds <= landed
    assert (shapes.vertex_area[falling] == cube).all() and not shapes.puddle[falling].any()
    assert shapes.puddle[-1] and np.all(np.diff(shapes.vertex_area) >= 0.0)
    # A second after landing: bottom and lumpy top πR² each, the top's slope 2.857 V/R.
    r = spreading.puddle_radius(seconds[-1] - landed, 0.05**3, **HONEY)
    top_and_bottom = (1.0 + spreading.EDGES_PER_FLOWED_TOP) * np.pi * r**2
    assert shapes.vertex_area[-1] == pytest.approx(top_and_bottom + 2.857 * 0.05**3 / r, rel=1e-3)
    assert 1.8 * cube < shapes.vertex_area[-1] < 2.6 * cube
    # Nothing below it, or no gravity: it stays as it is.
    for kept in (
        spreading.shapes(seconds, cube, 0.05**3, gap=None, **HONEY),
        spreading.shapes(seconds, cube, 0.05**3, gap=0.05, **dict(HONEY, gravity=0.0)),
    ):
        assert (kept.vertex_area == cube).all() and not kept.puddle.any()


def test_a_cube_over_a_floor_is_estimated_to_spread(addon, empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 30
    # Undecimated: the surface the spreading model gives, not decimation's shares of it.
    scene.gloop.surface_max_error = 0.0
    bpy.ops.mesh.primitive_cube_add(size=0.05, location=(0.0, 0.0, 0.1))
    honey = bpy.context.object
    honey.gloop.type = "LIQUID"
    assert addon.estimate.vertex_area(honey) == pytest.approx(6 * 0.05**2)
    alone = addon.estimate.estimate(scene, [honey], (1, 30), radius=0.002)
    bpy.ops.mesh.primitive_plane_add(size=0.3, location=(0.0, 0.0, 0.025))
    floor = bpy.context.object
    floor.gloop.type = "OBSTACLE"
    assert addon.estimate.gap_below(honey, [honey, floor], 0.002) == pytest.approx(0.05)
    spread = addon.estimate.estimate(scene, [honey, floor], (1, 30), radius=0.002)
    # The cache per frame grows with the surface (particles alike), and so does the memory.
    assert spread.cache_bytes > 1.5 * alone.cache_bytes
    assert spread.ram_bytes > alone.ram_bytes
    # A floor beside the cube is not under it.
    floor.location.x = 0.5
    bpy.context.view_layer.update()
    assert addon.estimate.gap_below(honey, [honey, floor], 0.002) is None


def test_a_liquid_object_without_vertices_spreads_nowhere(addon, empty_scene):
    scene = empty_scene
    honey = bpy.data.objects.new("Empty Honey", bpy.data.meshes.new("Empty Honey"))
    scene.collection.objects.link(honey)
    honey.gloop.type = "LIQUID"
    assert addon.estimate.gap_below(honey, [honey], 0.002) is None
    e = addon.estimate.estimate(scene, [honey], (1, 30), radius=0.002)
    assert (e.liquid, e.cache_bytes) == (0, 0)
