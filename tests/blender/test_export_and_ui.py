"""The extension in real Blender: registration, settings, presets, estimate, scene export."""

import json
import os

import bpy
import numpy as np
import pytest


def add_liquid_sphere(location=(0.0, 0.0, 1.0), radius=0.3):
    bpy.ops.mesh.primitive_uv_sphere_add(
        radius=radius, location=location, segments=16, ring_count=8
    )
    ob = bpy.context.object
    ob.name = "Honey Ball"
    ob.gloop.type = "LIQUID"
    ob.gloop.liquid_preset = "HONEY"
    return ob


def add_obstacle_cube(location=(0.0, 0.0, 0.0), size=1.0):
    bpy.ops.mesh.primitive_cube_add(size=size, location=location)
    ob = bpy.context.object
    ob.name = "Table"
    ob.gloop.type = "OBSTACLE"
    ob.gloop.solid_preset = "WOOD"
    return ob


def test_extension_loads_the_bundled_core(addon):
    import gloop_core

    assert gloop_core.version() == "0.1.0"
    # The wheel from the manifest, installed into the extensions' shared site-packages.
    assert "extensions" in gloop_core.__file__, gloop_core.__file__
    for op in ("bake", "bake_resume", "bake_cancel", "free_bake"):
        assert hasattr(bpy.ops.gloop, op)
    assert hasattr(bpy.types, "PHYSICS_PT_gloop_bake")


def test_presets_fill_physical_values_and_edits_become_custom(empty_scene):
    ob = add_liquid_sphere()
    ob.gloop.liquid_preset = "PAINT_BLUE"
    assert ob.gloop.density == pytest.approx(1300.0)
    assert ob.gloop.viscosity == pytest.approx(2.0)
    assert ob.gloop.miscible
    assert ob.gloop.look == "OPAQUE"
    ob.gloop.viscosity = 3.5
    assert ob.gloop.liquid_preset == "CUSTOM"
    assert ob.gloop.viscosity == pytest.approx(3.5)
    cube = add_obstacle_cube()
    cube.gloop.solid_preset = "FABRIC"
    assert cube.gloop.friction == pytest.approx(0.9)


def test_estimate_follows_the_radius(addon, empty_scene):
    add_liquid_sphere(radius=0.5)
    estimate, export = addon.estimate, addon.export
    scene = empty_scene
    objects = export.gloop_objects(scene)
    scene.gloop.particle_radius = 0.02
    coarse = estimate.estimate(scene, objects, export.frame_range(scene)).liquid
    scene.gloop.particle_radius = 0.01
    fine = estimate.estimate(scene, objects, export.frame_range(scene)).liquid
    # A 16×8 UV sphere holds a bit less than 4/3 π r³; halving the radius gives 8× the count.
    sphere_volume = 4.0 / 3.0 * np.pi * 0.5**3
    assert 0.8 * sphere_volume / 0.04**3 < coarse < sphere_volume / 0.04**3
    assert fine == pytest.approx(8 * coarse, rel=0.01)


def test_export_classifies_motion_and_round_trips_through_rust(addon, empty_scene, tmp_path):
    import gloop_core

    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 5
    ball = add_liquid_sphere(location=(0.2, -0.1, 1.0))
    table = add_obstacle_cube(location=(0.0, 0.0, 0.0))
    # A spinning, rising paddle (rigid) and a waving sheet (deforming).
    bpy.ops.mesh.primitive_cube_add(size=0.2, location=(1.0, 0.0, 0.5))
    paddle = bpy.context.object
    paddle.name = "Paddle"
    paddle.gloop.type = "OBSTACLE"
    paddle.keyframe_insert("location", frame=1)
    paddle.location.z = 0.9
    paddle.keyframe_insert("location", frame=5)
    bpy.ops.mesh.primitive_grid_add(
        x_subdivisions=4, y_subdivisions=4, size=0.5, location=(-1.0, 0.0, 0.5)
    )
    sheet = bpy.context.object
    sheet.name = "Sheet"
    sheet.gloop.type = "OBSTACLE"
    wave = sheet.modifiers.new("Wave", "WAVE")
    wave.height = 0.1

    bpy.ops.mesh.primitive_ico_sphere_add(radius=0.1, location=(0.0, 1.0, 1.5))
    nozzle = bpy.context.object
    nozzle.name = "Nozzle"
    nozzle.gloop.type = "EMITTER"
    nozzle.gloop.liquid_preset = "PAINT_RED"
    nozzle.gloop.emit_flow, nozzle.gloop.emit_frame_end = 12.5, 3
    # The pass cap defaults to the solver's (src/scene/settings.rs) and travels as set.
    defaults = type(scene.gloop).bl_rna.properties
    assert defaults["max_density_iterations"].default == 100
    scene.gloop.max_density_iterations = 250
    # So does the substep cap (src/scene/settings.rs default_max_substeps).
    assert defaults["max_substeps"].default == 64
    scene.gloop.substeps, scene.gloop.max_substeps = 3, 40

    path = addon.export.export_scene(
        scene, bpy.context.evaluated_depsgraph_get(), str(tmp_path / "cache")
    )
    with open(path) as f:
        data = json.load(f)
    motions = {o["name"]: next(iter(o["motion"])) for o in data["objects"]}
    assert motions == {
        "Nozzle": "static",
        "Honey Ball": "static",
        "Table": "static",
        "Paddle": "rigid",
        "Sheet": "deforming",
    }
    assert scene.frame_current == 1  # export restores the frame
    liquids = {m["name"]: m for m in data["materials"]["liquids"]}
    assert liquids["honey"]["viscosity"] == pytest.approx(19.0)
    assert liquids["paint_red"]["miscible"] is True
    emitter = next(o for o in data["objects"] if o["name"] == "Nozzle")
    # Set by flow (the default): the speed is left for the bake to derive from the mesh.
    assert emitter["role"]["emission"]["flow"] == pytest.approx(12.5e-6)
    assert emitter["role"]["emission"]["speed"] is None
    assert data["materials"]["solids"][0]["name"] == "wood"
    # A new scene bakes with the solver's default viscosity model, in physical units.
    assert data["settings"]["viscosity_model"] == "implicit"
    assert data["settings"]["max_density_iterations"] == 250
    assert (data["settings"]["substeps"], data["settings"]["max_substeps"]) == (3, 40)

    # Rust reads the JSON and computes world bounds from mesh + motion: they must match
    # Blender's, which proves Mat4 travels column-major and the triangulation is complete.
    summary = gloop_core.validate_scene(path)
    rust = {o["name"]: o for o in summary["objects"]}
    for ob in (ball, table, paddle):
        scene.frame_set(1)
        world = np.array([ob.matrix_world @ v.co for v in ob.data.vertices])
        assert rust[ob.name]["bounds_min"] == pytest.approx(world.min(axis=0), abs=1e-5)
        assert rust[ob.name]["bounds_max"] == pytest.approx(world.max(axis=0), abs=1e-5)
    assert rust["Honey Ball"]["triangles"] == 16 * 8 * 2 - 2 * 16
    # What the emission panel shows is what the bake derives from the exported mesh.
    area = addon.estimate.volume_and_area(nozzle)[1]
    flow, speed, per_second = addon.emission.resolve(
        nozzle.gloop, area, data["settings"]["particle_radius"]
    )
    assert rust["Nozzle"]["flow"] == pytest.approx(flow, rel=1e-5)
    assert rust["Nozzle"]["speed"] == pytest.approx(speed, rel=1e-3)
    assert rust["Nozzle"]["particles_per_second"] == pytest.approx(per_second, rel=1e-5)
    assert summary["frame_start"] == 1 and summary["frame_end"] == 5


def test_bad_input_gives_an_error_naming_the_object(addon, empty_scene):
    scene = empty_scene
    bpy.ops.mesh.primitive_plane_add(size=1.0, location=(0, 0, 1))
    plane = bpy.context.object
    plane.name = "Open Sheet"
    plane.gloop.type = "LIQUID"  # a liquid must be closed
    scene.gloop.cache_dir = os.path.join(bpy.app.tempdir or "/tmp", "gloop_bad_input")
    with pytest.raises(RuntimeError, match="Open Sheet"):
        bpy.ops.gloop.bake()


def test_max_substeps_below_substeps_is_refused_naming_it(addon, empty_scene, tmp_path):
    import gloop_core

    scene = empty_scene
    add_liquid_sphere(location=(0.0, 0.0, 1.0))
    scene.gloop.substeps, scene.gloop.max_substeps = 8, 6
    path = addon.export.export_scene(
        scene, bpy.context.evaluated_depsgraph_get(), str(tmp_path / "cache")
    )
    # gloop_core.GloopCoreError, the core's error for bad input.
    with pytest.raises(Exception, match=r"max_substeps \(6\)"):
        gloop_core.validate_scene(path)


def test_no_liquid_is_reported(addon, empty_scene):
    add_obstacle_cube()
    with pytest.raises(RuntimeError, match="has no liquid: mark an object as Liquid or Emitter"):
        bpy.ops.gloop.bake()


def test_user_liquid_preset_saves_and_restores_values(empty_scene):
    ob = add_liquid_sphere()
    ob.gloop.liquid_preset = "CUSTOM"
    ob.gloop.liquid_name = "maple_syrup"
    ob.gloop.density, ob.gloop.viscosity = 1330.0, 0.15
    assert bpy.ops.gloop.liquid_preset_add(name="Maple Syrup") == {"FINISHED"}
    folder = bpy.utils.user_resource("SCRIPTS", path="presets/gloop/liquid")
    assert os.listdir(folder) == ["Maple_Syrup.py"]
    path = os.path.join(folder, "Maple_Syrup.py")
    assert os.environ["BLENDER_USER_RESOURCES"] in path  # isolated from the real config
    ob.gloop.liquid_preset = "HONEY"
    assert ob.gloop.viscosity == pytest.approx(19.0)
    bpy.ops.script.execute_preset(filepath=path, menu_idname="GLOOP_PT_liquid_presets")
    assert ob.gloop.liquid_name == "maple_syrup"
    assert ob.gloop.viscosity == pytest.approx(0.15)
    assert ob.gloop.density == pytest.approx(1330.0)


def test_decimation_starts_at_the_meshers_default_and_reaches_bake_and_remesh(addon, empty_scene):
    import gloop_core

    s = empty_scene.gloop
    assert s.surface_max_error == pytest.approx(gloop_core.SURFACE_DEFAULTS["max_error"])
    s.surface_max_error = 0.05
    assert addon.operators.bake_options(empty_scene)["max_error"] == pytest.approx(0.05)
    assert addon.remesh.remesh_options(empty_scene)["max_error"] == pytest.approx(0.05)
    # Decimation thins what the cache estimate expects to be written, not what is meshed.
    s.surface_max_error = 0.0
    whole = addon.estimate.decimation_kept(addon.estimate.KEPT_OF_LIQUID_OBJECT, 0.0)
    thinned = addon.estimate.decimation_kept(addon.estimate.KEPT_OF_LIQUID_OBJECT, 0.02)
    assert whole == 1.0 and thinned == pytest.approx(addon.estimate.KEPT_OF_LIQUID_OBJECT)
