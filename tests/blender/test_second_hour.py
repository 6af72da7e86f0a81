"""The artist's second hour (issue 43) on real Blender: the Bake panel after Open Cache, an
emitter's end frame, and what Resume says when it has nothing to do."""

import json
import os

import bpy
import cache_fixtures
import pytest
from test_bake_consent import button_enabled, draw_bake_panel, labels


@pytest.fixture(scope="module")
def honey_drop_cache(addon, tmp_path_factory):
    return cache_fixtures.bake_honey_drop(addon, str(tmp_path_factory.mktemp("demo") / "cache"))


def _alerts(log):
    """Labels drawn in a red (alert) layout."""
    out = []
    for name, _args, kwargs, child in log:
        node, red = child.parent, False
        while node is not None:
            red = red or node.attrs.get("alert", False) is True
            node = node.parent
        if name == "label" and red:
            out.append(kwargs.get("text", ""))
    return out


def test_after_open_cache_the_panel_describes_the_cache(addon, empty_scene, honey_drop_cache):
    scene = empty_scene
    scene.render.engine = "CYCLES"
    assert bpy.ops.gloop.open_cache(directory=honey_drop_cache) == {"FINISHED"}
    log = draw_bake_panel(addon, bpy.context)
    rows = labels(log)
    print("\n".join(rows))
    assert _alerts(log) == [], _alerts(log)
    assert not any("has no liquid" in r for r in rows), rows
    assert "Opened cache 'cache'" in rows
    # The demo's radius is 1 mm (src/demos/honey_drop.rs), not the add-on's 20 mm default.
    assert "Particle radius 1.00 mm, 24 fps" in rows, rows
    frames = cache_fixtures.FRAMES
    assert f"Frames 1–{frames}, all baked" in rows, rows
    count = next(r for r in rows if r.endswith(f"particles at frame {frames}"))
    assert int(count.split()[0].replace(",", "")) > 1000
    assert any("on disk" in r and f"{frames} surface meshes" in r for r in rows), rows
    # Glassy honey: the render settings are offered; a new bake needs a liquid first.
    ops = [args[0] for name, args, _kw, _c in log if name == "operator" and args]
    assert "gloop.liquid_render_settings" in ops, ops
    assert not button_enabled(log, "gloop.bake")
    assert button_enabled(log, "gloop.open_cache")
    # The points draw at the bake's radius.
    assert scene.gloop.particle_radius == pytest.approx(0.001)


def test_a_new_emitter_emits_until_the_bake_ends(addon, empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 250
    bpy.ops.mesh.primitive_circle_add(radius=0.004, fill_type="NGON", location=(0, 0, 0.06))
    nozzle = bpy.context.object
    nozzle.gloop.type = "EMITTER"
    assert nozzle.gloop.emit_until_end
    import gloop_core

    assert addon.emission.exported(nozzle.gloop)["frame_end"] == gloop_core.MAX_FRAME
    # The estimate pours for the whole bake: twice the frames, about twice the liquid.
    half = addon.estimate.particles_of(nozzle, 0.0005, 24.0, (1, 125))[0]
    whole = addon.estimate.particles_of(nozzle, 0.0005, 24.0, (1, 250))[0]
    assert whole == pytest.approx(2 * half, rel=0.02)
    # Setting an End by hand stops it there.
    nozzle.gloop.emit_frame_end = 40
    assert not nozzle.gloop.emit_until_end
    assert addon.emission.exported(nozzle.gloop)["frame_end"] == 40


def test_resume_of_a_finished_bake_says_there_is_nothing_to_resume(addon, empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 2
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.05)
    bpy.context.object.gloop.type = "LIQUID"
    scene.gloop.particle_radius = 0.01
    assert bpy.ops.gloop.bake() == {"FINISHED"}
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    with open(os.path.join(cache, "manifest.json"), encoding="utf-8") as f:
        before = json.load(f)
    assert bpy.ops.gloop.bake_resume() == {"CANCELLED"}
    said = scene.gloop.status_text
    assert said.startswith("Nothing to resume: the bake is finished (frames 1–2)"), said
    with open(os.path.join(cache, "manifest.json"), encoding="utf-8") as f:
        assert json.load(f) == before
    # Extended, it resumes.
    scene.frame_end = 3
    assert bpy.ops.gloop.bake_resume() == {"FINISHED"}, scene.gloop.status_text
    with open(os.path.join(cache, "manifest.json"), encoding="utf-8") as f:
        assert json.load(f)["last_complete_frame"] == 3


def test_resume_after_an_edit_names_the_change(addon, empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 2
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.05)
    sphere = bpy.context.object
    sphere.name = "Cube"
    sphere.gloop.type = "LIQUID"
    scene.gloop.particle_radius = 0.01
    assert bpy.ops.gloop.bake() == {"FINISHED"}
    scene.frame_end = 4
    sphere.gloop.viscosity *= 2.0
    with pytest.raises(RuntimeError) as raised:
        bpy.ops.gloop.bake_resume()
    name = sphere.gloop.liquid_name
    said = (
        f"The scene changed since this bake (viscosity of '{name}' (on 'Cube')). Resume needs "
        "the same settings; Bake replaces the cache"
    )
    assert said in str(raised.value), str(raised.value)
    assert scene.gloop.status_text == said


def test_an_unsaved_files_cache_moves_beside_the_blend_when_saved(addon, empty_scene, tmp_path):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 2
    scene.gloop.cache_dir = "//gloop_cache"  # the default, as in a new file
    bpy.ops.mesh.primitive_cube_add(size=0.05, location=(0.0, 0.0, 0.1))
    assert bpy.ops.gloop.quick_honey() == {"FINISHED"}
    temporary = bpy.path.abspath(scene.gloop.cache_dir)
    assert os.path.isabs(temporary) and scene.gloop.temporary_cache == temporary
    scene.gloop.particle_radius = 0.005  # a quick bake
    assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
    # A folder of that name is already beside the .blend: the next free name is taken.
    (tmp_path / "gloop_cache").mkdir()
    blend = tmp_path / "shot.blend"
    bpy.ops.wm.save_as_mainfile(filepath=str(blend))
    assert scene.gloop.cache_dir == "//gloop_cache_2"
    assert scene.gloop.temporary_cache == ""
    assert scene.gloop.status_text == "Cache moved beside the .blend: //gloop_cache_2"
    assert not os.path.exists(temporary)
    moved = tmp_path / "gloop_cache_2"
    assert (moved / "manifest.json").is_file() and (moved / "particles_00002.ply").is_file()
    # The saved file points at the moved folder, and plays it back from there.
    bpy.ops.wm.open_mainfile(filepath=str(blend))
    scene = bpy.context.scene
    assert scene.gloop.cache_dir == "//gloop_cache_2"
    scene.frame_set(2)
    assert len(scene.gloop.liquid_object.data.vertices) > 0
