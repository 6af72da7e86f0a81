"""Bake through the operator on real Blender: a honey sphere dropping onto a cube.

Needs the solver (`Simulation`) to be implemented: the bake runs `gloop_core.bake` in a child
process exactly as an artist's click does.
"""

import json
import os
import signal
import time

import bpy
import harness
import numpy as np
import pytest

FRAMES = (1, 6)


@pytest.fixture
def honey_scene(empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = FRAMES
    scene.gloop.particle_radius = 0.01
    scene.gloop.substeps = 2
    scene.gloop.moves = 3
    scene.gloop.domain_margin = 0.2
    bpy.ops.mesh.primitive_uv_sphere_add(
        radius=0.08, location=(0.0, 0.0, 0.35), segments=16, ring_count=8
    )
    ball = bpy.context.object
    ball.name = "Honey"
    ball.gloop.type = "LIQUID"
    ball.gloop.liquid_preset = "HONEY"
    bpy.ops.mesh.primitive_cube_add(size=0.4, location=(0.0, 0.0, 0.0))
    cube = bpy.context.object
    cube.name = "Block"
    cube.gloop.type = "OBSTACLE"
    cube.gloop.solid_preset = "WOOD"
    return scene


def cache_files(scene):
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    return cache, sorted(n for n in os.listdir(cache) if n.startswith("particles_"))


def liquid_positions(scene):
    mesh = scene.gloop.liquid_object.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def test_bake_through_the_operator_fills_the_cache_and_plays_back(honey_scene):
    scene = honey_scene
    assert bpy.ops.gloop.bake() == {"FINISHED"}
    cache, frames = cache_files(scene)
    assert frames == [f"particles_{f:05d}.ply" for f in range(FRAMES[0], FRAMES[1] + 1)]
    with open(os.path.join(cache, "status.json")) as f:
        status = json.load(f)
    assert status["state"] == "finished" and status["frames_done"] == 6
    # The substeps the last frame took: at least the scene's 2, at most its cap.
    assert 2 <= status["substeps"] <= scene.gloop.max_substeps
    assert status["substeps_capped_frames"] == 0
    with open(os.path.join(cache, "manifest.json")) as f:
        manifest = json.load(f)
    assert manifest["last_complete_frame"] == FRAMES[1]
    assert scene.gloop.status_text.startswith("Baked")
    # The honey settles within the pass cap: nothing squeezed to warn about.
    assert status["capped_frames"] == 0 and scene.gloop.bake_warning == ""
    source = bpy.data.objects["Honey"]
    assert source.hide_render and source.display_type == "WIRE"  # the cache shows the liquid

    surfaces = sorted(n for n in os.listdir(cache) if n.startswith("surface_"))
    assert surfaces == [f"surface_{f:05d}.ply" for f in range(FRAMES[0], FRAMES[1] + 1)]

    scene.frame_set(1)
    start = liquid_positions(scene)
    assert len(scene.gloop.liquid_object.data.polygons) > 100  # the meshed surface
    scene.frame_set(6)
    end = liquid_positions(scene)
    assert len(start) > 100 and len(end) > 100
    # The honey falls under gravity between the frames.
    assert end[:, 2].mean() < start[:, 2].mean() - 0.01


def test_a_classic_honey_bake_says_it_is_thinner_than_asked(honey_scene):
    scene = honey_scene
    scene.frame_end = 2
    scene.gloop.viscosity_model = "classic"
    assert bpy.ops.gloop.bake() == {"FINISHED"}
    # Said when the bake starts and kept in the panel when it ends.
    assert scene.gloop.bake_warning.startswith(
        "The classic viscosity model gives liquid 'honey' only"
    ), scene.gloop.bake_warning
    scene.gloop.viscosity_model = "implicit"
    assert bpy.ops.gloop.bake(replace=True) == {"FINISHED"}
    assert scene.gloop.bake_warning == ""


@pytest.mark.parametrize("surface", [True, False], ids=["surface", "particles"])
def test_baked_liquid_renders_in_cycles(honey_scene, tmp_path, surface):
    scene = honey_scene
    scene.gloop.mesh_surface = surface
    assert bpy.ops.gloop.bake() == {"FINISHED"}
    shown = scene.gloop.liquid_object.data
    assert (len(shown.polygons) > 0) == surface  # particles show as points
    for ob in scene.objects:
        ob.hide_render = ob != scene.gloop.liquid_object  # only the liquid may cover pixels
    scene.frame_set(6)
    covered = harness.render_coverage(scene, (0.0, -1.2, 0.3), (0.0, 0.0, 0.25), tmp_path)
    assert covered > 0.01, covered


def test_cancel_keeps_frames_and_resume_finishes(addon, honey_scene):
    scene = honey_scene
    scene.frame_end = 40
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    scene_path = addon.export.export_scene(scene, depsgraph, cache)
    job = addon.bake_runner.BakeJob(scene_path, cache)
    deadline = time.monotonic() + 120
    while job.poll() and (job.status or {}).get("frames_done", 0) < 2:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    job.cancel()
    job.wait()
    state, _ = job.outcome()
    assert state == "cancelled"
    _, kept = cache_files(scene)
    assert 2 <= len(kept) < 40

    assert bpy.ops.gloop.bake_resume() == {"FINISHED"}
    _, frames = cache_files(scene)
    assert len(frames) == 40


def test_a_killed_bake_never_takes_blender_down(addon, honey_scene):
    scene = honey_scene
    scene.frame_end = 40
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    scene_path = addon.export.export_scene(scene, bpy.context.evaluated_depsgraph_get(), cache)
    job = addon.bake_runner.BakeJob(scene_path, cache)
    deadline = time.monotonic() + 120
    while job.poll() and (job.status or {}).get("frames_done", 0) < 1:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    os.kill(job.process.pid, signal.SIGKILL)  # what an out-of-memory kill looks like
    job.wait()
    state, message = job.outcome()
    assert state == "failed" and "-9" in message
    # Blender is fine, and the finished frames still play.
    _, kept = cache_files(scene)
    assert kept
    addon.playback.ensure_liquid_object(scene)
    scene.frame_set(1)
    assert len(liquid_positions(scene)) > 100
