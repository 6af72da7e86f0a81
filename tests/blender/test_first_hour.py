"""An artist's first hour (issue 34): a scene set up with everything at its defaults bakes; the
panel names, before Bake, whatever would make the bake fail; a bake error says "failed" once;
emitters stay out of renders once baked."""

import json
import os
import statistics
import time

import bpy
import harness
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


def problems(addon, scene):
    return addon.preflight.preflight(scene).problems


def test_the_default_sphere_over_a_plane_bakes_untouched(addon, empty_scene):
    import gloop_core  # installed by enabling the extension

    scene = empty_scene
    scene.frame_start, scene.frame_end = FRAMES
    honey_sphere()
    wooden_plane()
    figures = addon.preflight.preflight(scene)
    assert figures.problems == []
    assert figures.automatic.object_name == "Honey"

    started = time.monotonic()
    assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
    took = time.monotonic() - started

    cache = bpy.path.abspath(scene.gloop.cache_dir)
    with open(os.path.join(cache, "scene.json")) as f:
        radius = json.load(f)["settings"]["particle_radius"]
    assert radius == pytest.approx(figures.radius)
    last = gloop_core.read_particles(os.path.join(cache, f"particles_{FRAMES[1]:05d}.ply"))
    print(
        f"automatic radius {radius * 1e3:.3f} mm, estimated {figures.estimate.liquid:,} liquid + "
        f"{figures.estimate.solid:,} object particles, baked {last['count']:,}, {took:.1f} s"
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


def test_a_liquid_too_small_for_the_radius_is_named_before_bake(addon, empty_scene):
    import gloop_core  # installed by enabling the extension

    scene = empty_scene
    # A ball of radius 1.5 cm at r = 2 cm holds a fifth of a particle's (4 cm)³: no particle,
    # wherever it sits (the fill holds round(V / (2r)³) of them).
    honey_sphere(radius=0.015, location=(0.0, 0.0, 0.12))
    wooden_plane()
    scene.gloop.particle_radius = 0.02
    found = problems(addon, scene)
    assert len(found) == 1 and "'Honey'" in found[0] and "too small" in found[0], found
    # The bake refuses it too, before a bake process starts, naming it.
    with pytest.raises(RuntimeError, match="'Honey'.*too small"):
        bpy.ops.gloop.bake()
    assert not os.path.exists(os.path.join(bpy.path.abspath(scene.gloop.cache_dir), "bake.log"))
    # Scaled ×2 it holds 1.7 particles' volume, so two: no complaint from either side.
    bpy.data.objects["Honey"].scale = (2.0, 2.0, 2.0)
    bpy.context.view_layer.update()  # as before a redraw: matrix_world follows the scale
    assert problems(addon, scene) == []
    path = addon.export.export_scene(
        scene, bpy.context.evaluated_depsgraph_get(), bpy.path.abspath(scene.gloop.cache_dir)
    )
    gloop_core.validate_scene(path)


def test_an_open_liquid_mesh_is_named_before_bake(addon, empty_scene):
    scene = empty_scene
    bpy.ops.mesh.primitive_plane_add(size=0.2, location=(0.0, 0.0, 0.1))
    sheet = bpy.context.object
    sheet.name = "Open Sheet"
    sheet.gloop.type = "LIQUID"
    found = problems(addon, scene)
    assert any("'Open Sheet'" in p and "open" in p for p in found), found
    # Solidified, the mesh the bake gets is closed: the panel leaves it to the bake to judge.
    sheet.modifiers.new("Solidify", "SOLIDIFY")
    assert problems(addon, scene) == []


def test_no_liquid_is_named_before_bake(addon, empty_scene):
    scene = empty_scene
    wooden_plane()
    assert problems(addon, scene) == [
        f"Scene '{scene.name}' has no liquid: mark an object as Liquid or Emitter"
    ]


def test_over_the_cap_names_the_object_that_needs_most(addon, empty_scene):
    scene = empty_scene
    honey_sphere()
    wooden_plane(size=2.0)
    scene.gloop.max_particles = 10_000
    (found,) = problems(addon, scene)
    assert "Automatic Resolution (set by 'Honey')" in found and "most in 'Board'" in found
    assert "Max Particles (10,000)" in found


def test_the_panel_figures_stay_cheap_with_a_100k_vertex_obstacle(addon, empty_scene):
    scene = empty_scene
    honey_sphere()
    bpy.ops.mesh.primitive_grid_add(x_subdivisions=316, y_subdivisions=316, size=0.4)
    grid = bpy.context.object
    grid.gloop.type = "OBSTACLE"
    assert len(grid.data.vertices) >= 100_000
    addon.preflight.preflight(scene)  # the first draw measures the meshes
    times = []
    for _ in range(20):
        started = time.perf_counter()
        addon.preflight.preflight(scene)
        times.append(time.perf_counter() - started)
    print(f"panel figures: median {statistics.median(times) * 1e3:.2f} ms per redraw")
    assert statistics.median(times) < 0.010


def test_a_bake_error_is_said_once(addon, empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 2
    honey_sphere(radius=0.05)
    scene.gloop.particle_radius = 0.01
    assert bpy.ops.gloop.bake() == {"FINISHED"}
    # A changed scene cannot resume the old bake: Resume says what changed, once, in the
    # panel's words, and starts no bake.
    scene.gloop.substeps = 3
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.gloop.bake_resume()
    report = str(raised.value)
    said = "The scene changed since this bake (substeps). Resume needs the same settings"
    assert said in report, report
    assert report.count("changed since") == 1, report
    assert scene.gloop.status_text.startswith(said), scene.gloop.status_text
    # Without the cache's scene file only the bake process can tell: it fails, said once.
    os.remove(os.path.join(bpy.path.abspath(scene.gloop.cache_dir), "scene.gloop"))
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.gloop.bake_resume()
    report = str(raised.value)
    assert "Gloop bake failed: " in report and "cannot resume" in report, report
    assert report.lower().count("failed") == 1, report
    assert scene.gloop.status_text.lower().count("failed") == 1, scene.gloop.status_text


def test_emitters_stay_out_of_renders_once_baked(addon, empty_scene, tmp_path):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 2
    scene.gloop.particle_radius = 0.01
    bpy.ops.mesh.primitive_cube_add(size=0.1)
    nozzle = bpy.context.object
    nozzle.name = "Nozzle"
    nozzle.gloop.type = "EMITTER"
    # A particle (8 mL at r = 1 cm) a frame: a bake that would emit nothing is refused.
    nozzle.gloop.emit_flow = 200.0
    seen = {"camera_location": (0.0, -0.3, 0.0), "look_at": (0.0, 0.0, 0.0)}
    shown = harness.render_coverage(scene, folder=tmp_path, resolution=(32, 32), **seen)
    assert shown > 0.2  # the nozzle fills the middle of the frame

    assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
    assert nozzle.hide_render and nozzle.display_type == "WIRE"
    # Only the nozzle is looked at: the liquid it pours is not this test's subject.
    scene.gloop.liquid_object.hide_render = True
    hidden = harness.render_coverage(scene, folder=tmp_path, resolution=(32, 32), **seen)
    assert hidden == 0.0
