"""Re-mesh on real Blender: new surface settings change the mesh without re-simulating
(particle files byte-identical), in a child process that can be cancelled; and the stats line
a bake leaves in status.json, the bake log and the panel."""

import json
import os
import socket
import subprocess
import time

import bpy
import cache_fixtures
import numpy as np
import pytest
from cache_fixtures import FRAMES


@pytest.fixture(scope="session")
def honey_drop_cache(addon, tmp_path_factory):
    return cache_fixtures.bake_honey_drop(addon, str(tmp_path_factory.mktemp("demo") / "cache"))


@pytest.fixture
def opened(empty_scene, honey_drop_cache, tmp_path):
    cache = cache_fixtures.copy_cache(honey_drop_cache, tmp_path / "opened")
    assert bpy.ops.gloop.open_cache(directory=cache) == {"FINISHED"}
    return empty_scene, cache


def _surface_vertices(scene):
    mesh = scene.gloop.liquid_object.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def test_remesh_changes_the_mesh_and_leaves_the_particles_byte_identical(opened):
    scene, cache = opened
    particles_before = cache_fixtures.file_hashes(cache, "particles_")
    surfaces_before = cache_fixtures.file_hashes(cache, "surface_")
    assert len(particles_before) == FRAMES and len(surfaces_before) == FRAMES
    scene.frame_set(2)
    # Whole meshes, to compare cube sizes: decimated, either keeps what its error bound needs.
    scene.gloop.surface_max_error = 0.0
    assert bpy.ops.gloop.remesh() == {"FINISHED"}
    surfaces_whole = cache_fixtures.file_hashes(cache, "surface_")
    assert all(surfaces_whole[n] != surfaces_before[n] for n in surfaces_before)
    before = _surface_vertices(scene)  # the operator reloads the frame shown

    scene.gloop.surface_resolution = 1.0
    scene.gloop.surface_smoothness = 0.0
    assert bpy.ops.gloop.remesh() == {"FINISHED"}

    assert cache_fixtures.file_hashes(cache, "particles_") == particles_before
    surfaces_after = cache_fixtures.file_hashes(cache, "surface_")
    assert all(surfaces_after[n] != surfaces_whole[n] for n in surfaces_whole)
    after = _surface_vertices(scene)
    assert len(after) < 0.6 * len(before), (len(before), len(after))  # 2× coarser cubes
    with open(os.path.join(cache, "manifest.json"), encoding="utf-8") as f:
        surface = json.load(f)["surface"]
    assert (surface["resolution"], surface["smoothness"]) == (1.0, 0.0)
    assert scene.gloop.status_text == f"Re-meshed {FRAMES} frames"
    # The last frame's stats line, with its triangle count.
    assert scene.gloop.stats_text.startswith(f"Frame {FRAMES}: ")
    assert "triangles" in scene.gloop.stats_text


def test_remesh_cancelled_before_it_starts_keeps_everything(addon, opened):
    remesh = addon.remesh

    _scene, cache = opened
    before = cache_fixtures.file_hashes(cache, "")
    job = remesh.RemeshJob(cache, {"surface_resolution": 1.0, "surface_smoothness": 0.0})
    job.cancel()  # before the child has read its first particle file
    job.wait()
    state, message = job.outcome()
    assert state == "cancelled", message
    assert cache_fixtures.file_hashes(cache, "") == before
    with open(os.path.join(cache, "manifest.json"), encoding="utf-8") as f:
        assert json.load(f)["surface"]["resolution"] == 0.5  # kept until a re-mesh finishes


def test_remesh_refuses_out_of_range_settings_naming_the_field(addon, opened):
    remesh = addon.remesh

    _scene, cache = opened
    before = cache_fixtures.file_hashes(cache, "surface_")
    job = remesh.RemeshJob(cache, {"surface_resolution": float("nan")})
    job.wait()
    state, message = job.outcome()
    assert state == "failed"
    assert "'resolution'" in message and "0.2" in message, message
    assert cache_fixtures.file_hashes(cache, "surface_") == before


def test_remesh_sits_in_the_surface_sub_panel_of_the_bake_panel(addon):
    panel = bpy.types.PHYSICS_PT_gloop_surface
    assert panel.bl_parent_id == "PHYSICS_PT_gloop_bake"
    assert bpy.ops.gloop.remesh.idname() == "GLOOP_OT_remesh"


def test_remesh_of_a_folder_without_a_bake_says_so(empty_scene, tmp_path):
    empty_scene.gloop.cache_dir = str(tmp_path)
    with pytest.raises(RuntimeError, match="Nothing to re-mesh"):
        bpy.ops.gloop.remesh()


def test_the_stats_line_after_a_short_bake(honey_drop_cache, addon):
    with open(os.path.join(honey_drop_cache, "status.json"), encoding="utf-8") as f:
        status = json.load(f)
    line = status["last_frame_stats"]
    assert line["frame"] == FRAMES
    assert line["liquid_particles"] > 9000
    assert line["substeps"] >= 4  # the demo's minimum
    # A real surface: thousands of triangles (9,740 at frame 2, decimated by default).
    assert line["triangles"] > 5000
    assert 0.0 < line["seconds"] < 120.0
    text = addon.bake_runner.stats_text(status)
    assert text.startswith(f"Frame {FRAMES}: ") and text.endswith(" triangles"), text
    # The bake log has one stats line per frame, the initial frame's without substeps.
    with open(os.path.join(honey_drop_cache, "bake.log"), encoding="utf-8") as f:
        log = [line for line in f if line.startswith("frame ")]
    assert [entry.split(":")[0] for entry in log] == [f"frame {f}" for f in range(1, FRAMES + 1)]
    assert "substeps" not in log[0] and "substeps" in log[-1]
    assert all(entry.rstrip().endswith("triangles") for entry in log)


def test_the_stats_line_shows_in_the_panel_after_an_operator_bake(empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 3
    scene.gloop.particle_radius = 0.01
    scene.gloop.use_auto_radius = False
    scene.gloop.substeps = 2
    scene.gloop.moves = 3
    scene.gloop.domain_margin = 0.2
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.08, location=(0.0, 0.0, 0.35))
    bpy.context.object.gloop.type = "LIQUID"
    bpy.ops.mesh.primitive_cube_add(size=0.4)
    bpy.context.object.gloop.type = "OBSTACLE"
    assert bpy.ops.gloop.bake() == {"FINISHED"}
    text = scene.gloop.stats_text
    assert text.startswith("Frame 3: ") and "substeps" in text and "triangles" in text, text


def _frame_file_stamps(cache):
    """Every frame file's (sha256, inode, mtime): a rewrite shows even with the same bytes."""
    hashes = cache_fixtures.file_hashes(cache, "")
    out = {}
    for name, digest in hashes.items():
        st = os.stat(os.path.join(cache, name))
        out[name] = (digest, st.st_ino, st.st_mtime_ns)
    return out


def _manifest(cache):
    with open(os.path.join(cache, "manifest.json"), encoding="utf-8") as f:
        return json.load(f)


def test_a_remesh_records_each_surface_so_a_resume_redoes_nothing(addon, opened):
    """gloop_core.mesh (through the operator's child process) records every surface it
    rewrites; a resume then checks every record, repairs nothing and writes no frame file."""
    import gloop_core

    scene, cache = opened
    # A cancel file an earlier run left: the child clears it once it holds the lock.
    stale = os.path.join(cache, "cancel")
    open(stale, "w").close()
    os.utime(stale, (time.time() - 60, time.time() - 60))
    scene.gloop.surface_resolution = 1.0
    assert bpy.ops.gloop.remesh() == {"FINISHED"}, scene.gloop.status_text
    assert not os.path.exists(stale)

    frames = _manifest(cache)["frames"]
    for frame in range(1, FRAMES + 1):
        record = frames[str(frame)]["surface"]
        path = os.path.join(cache, f"surface_{frame:05d}.ply")
        assert record["size"] == os.path.getsize(path), frame
    before, records = _frame_file_stamps(cache), frames
    time.sleep(0.02)

    summary = gloop_core.bake(os.path.join(cache, "scene.gloop"), cache, resume=True)
    assert summary["outcome"] == "finished"
    assert summary["repairs"] == []
    assert summary["last_frame"] == FRAMES
    assert _frame_file_stamps(cache) == before
    assert _manifest(cache)["frames"] == records


def _remesh_button_enabled(remesh):
    """Draws the Surface sub-panel headless: is its Re-mesh button enabled?"""
    from test_bake_consent import RecordingLayout, button_enabled

    log = []

    class Panel:
        layout = RecordingLayout(log)

    remesh.PHYSICS_PT_gloop_surface.draw(Panel(), bpy.context)
    return button_enabled(log, "gloop.remesh")


def test_remesh_refuses_a_folder_in_use_and_leaves_its_files(addon, opened):
    _scene, cache = opened
    addon.cache_lock.forget()
    assert _remesh_button_enabled(addon.remesh)
    other = subprocess.Popen(["sleep", "60"])  # a live process that is not this one
    try:
        holder = {
            "pid": other.pid,
            "host": socket.gethostname(),
            "command": "bake",
            "since_unix_s": int(time.time()),
        }
        with open(os.path.join(cache, "gloop.lock"), "w") as f:
            json.dump(holder, f)
        open(os.path.join(cache, "cancel"), "w").close()
        before = cache_fixtures.file_hashes(cache, "")
        status = os.stat(os.path.join(cache, "status.json")).st_mtime_ns
        # Greyed like Bake (the Bake panel above says who holds the folder).
        addon.cache_lock.forget()
        assert not _remesh_button_enabled(addon.remesh)
        with pytest.raises(RuntimeError, match=f"in use by gloop bake \\(pid {other.pid}"):
            bpy.ops.gloop.remesh()
        with pytest.raises(addon.bake_runner.CacheInUse):
            addon.remesh.RemeshJob(cache, {"surface_resolution": 1.0})
        assert addon.remesh.running_job() is None
        # The holder's request and status are not the re-mesh's to touch.
        assert os.path.exists(os.path.join(cache, "cancel"))
        assert os.stat(os.path.join(cache, "status.json")).st_mtime_ns == status
        assert cache_fixtures.file_hashes(cache, "") == before
    finally:
        other.kill()
        other.wait()
