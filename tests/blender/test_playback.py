"""Playback from a cache written in the TEAM_BRIEF layout: surfaces, particle fallback, bad
frames, save/reload and a Cycles render."""

import json
import os

import bpy
import harness
import numpy as np
import plyfiles
import pytest

SURFACE_FRAMES = (1, 2, 3)
PARTICLE_FRAMES = (4, 5)
AMBER = (0.80, 0.42, 0.05)


def write_cache(cache_dir):
    """Frames 1–3: a sphere surface sinking 0.1 per frame; frames 4–5: particles only."""
    os.makedirs(cache_dir, exist_ok=True)
    for f in SURFACE_FRAMES:
        pos, tris, normals = plyfiles.uv_sphere((0.0, 0.0, 1.0 - 0.1 * f), 0.3, 12, 24)
        n = len(pos)
        plyfiles.write_surface(
            os.path.join(cache_dir, f"surface_{f:05d}.ply"),
            pos,
            tris,
            normals,
            np.tile(AMBER, (n, 1)),
            np.tile((0.0, 0.0, -2.4), (n, 1)),
        )
    rng = np.random.default_rng(7)
    for f in PARTICLE_FRAMES:
        pos = rng.uniform(-0.2, 0.2, (500, 3)) + (0.0, 0.0, 0.5)
        path = os.path.join(cache_dir, f"particles_{f:05d}.ply")
        if f == PARTICLE_FRAMES[0]:  # colour per particle, as caches before issue 41
            plyfiles.write_particles(path, f, pos, np.zeros_like(pos), np.tile(AMBER, (500, 1)))
        else:  # colour per material, as Gloop writes them now
            zero = np.zeros(500, dtype=np.uint16)
            plyfiles.write_particles_by_material(path, f, pos, pos * 0, zero, {0: AMBER})


@pytest.fixture
def cached_scene(addon, empty_scene, tmp_path):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 5
    write_cache(bpy.path.abspath(scene.gloop.cache_dir))
    liquid = addon.playback.ensure_liquid_object(scene)
    return scene, liquid


def vertices(ob):
    co = np.empty(len(ob.data.vertices) * 3, dtype=np.float32)
    ob.data.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def test_frame_set_shows_the_cached_surface_and_it_changes(cached_scene):
    scene, liquid = cached_scene
    scene.frame_set(1)
    first = vertices(liquid)
    # 12 rings × 24 segments: two caps of 24 triangles, 10 bands of 48.
    assert len(liquid.data.polygons) == 2 * 24 + 10 * 48
    assert first[:, 2].mean() == pytest.approx(0.9, abs=1e-3)
    scene.frame_set(2)
    second = vertices(liquid)
    assert second[:, 2].mean() == pytest.approx(0.8, abs=1e-3)
    # Attributes for shading and motion blur.
    velocity = np.empty(len(second) * 3, dtype=np.float32)
    liquid.data.attributes["velocity"].data.foreach_get("vector", velocity)
    assert velocity.reshape(-1, 3)[:, 2] == pytest.approx(-2.4)
    colour = np.empty(len(second) * 4, dtype=np.float32)
    liquid.data.attributes["gloop_colour"].data.foreach_get("color", colour)
    assert colour.reshape(-1, 4)[0, :3] == pytest.approx(AMBER, abs=1e-6)
    if bpy.app.version >= (4, 5, 0):
        assert liquid.data.has_custom_normals
    # The mesh is valid: nothing for Blender to repair.
    assert not liquid.data.validate(verbose=False)
    assert liquid.modifiers["Gloop Points"].show_render is False


def test_particle_fallback_renders_as_points(cached_scene):
    scene, liquid = cached_scene
    manifest = {
        "frame_start": 1,
        "frame_end": 5,
        "last_complete_frame": 5,
        "particle_radius": 0.0125,
    }
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    with open(os.path.join(cache, "manifest.json"), "w") as f:
        json.dump(manifest, f)
    scene.frame_set(4)
    radius = liquid.modifiers["Gloop Points"].node_group.nodes["Mesh to Points"].inputs["Radius"]
    assert radius.default_value == pytest.approx(0.0125)  # as baked, not the current setting
    assert len(liquid.data.vertices) == 500 and len(liquid.data.polygons) == 0
    assert liquid.modifiers["Gloop Points"].show_viewport
    evaluated = liquid.evaluated_get(bpy.context.evaluated_depsgraph_get())
    # Mesh to Points turns the 500 vertices into a point cloud of the particle radius.
    geometry = evaluated.evaluated_geometry() if hasattr(evaluated, "evaluated_geometry") else None
    if geometry is not None:
        assert geometry.pointcloud is not None and len(geometry.pointcloud.points) == 500


def test_particles_show_their_colour_stored_per_particle_or_per_material(cached_scene):
    scene, liquid = cached_scene
    for frame in PARTICLE_FRAMES:
        scene.frame_set(frame)
        assert len(liquid.data.vertices) == 500
        colour = np.empty(500 * 4, dtype=np.float32)
        liquid.data.attributes["gloop_colour"].data.foreach_get("color", colour)
        assert np.allclose(colour.reshape(-1, 4)[:, :3], AMBER, atol=1e-6), frame


def test_playback_creates_no_datablocks(cached_scene):
    scene, _liquid = cached_scene
    meshes = len(bpy.data.meshes)
    for f in (1, 2, 3, 4, 5, 1):
        scene.frame_set(f)
    assert len(bpy.data.meshes) == meshes


def test_missing_frame_inside_the_bake_is_a_warning(cached_scene):
    scene, liquid = cached_scene
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    with open(os.path.join(cache, "manifest.json"), "w") as f:
        json.dump({"frame_start": 1, "frame_end": 9, "last_complete_frame": 7}, f)
    scene.frame_set(7)  # the manifest says frame 7 is baked, but its file is gone
    assert len(liquid.data.vertices) == 0 and "Frame 7 is missing" in scene.gloop.playback_warning
    scene.frame_set(8)  # not baked yet: empty, and nothing to warn about
    assert len(liquid.data.vertices) == 0 and scene.gloop.playback_warning == ""


def test_corrupt_frame_gives_an_empty_mesh_and_a_warning(cached_scene):
    scene, liquid = cached_scene
    path = os.path.join(bpy.path.abspath(scene.gloop.cache_dir), "surface_00002.ply")
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    scene.frame_set(1)
    assert scene.gloop.playback_warning == ""
    scene.frame_set(2)
    assert len(liquid.data.vertices) == 0
    assert "Frame 2" in scene.gloop.playback_warning
    assert "surface_00002.ply" in scene.gloop.playback_warning
    assert "truncated" in scene.gloop.playback_warning
    scene.frame_set(3)  # the next good frame clears it
    assert scene.gloop.playback_warning == "" and len(liquid.data.vertices) > 0


def test_edit_mode_is_left_alone(cached_scene):
    scene, liquid = cached_scene
    scene.frame_set(1)
    bpy.context.view_layer.objects.active = liquid
    bpy.ops.object.mode_set(mode="EDIT")
    try:
        scene.frame_set(4)  # would swap the mesh under the edit-mode BMesh
    finally:
        bpy.ops.object.mode_set(mode="OBJECT")
    assert len(liquid.data.polygons) > 0


def test_save_and_reload_keep_settings_and_cache_link(cached_scene, tmp_path):
    scene, _liquid = cached_scene
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    blend = str(tmp_path / "honey.blend")
    scene.gloop.particle_radius = 0.0123
    scene.gloop.substeps = 7
    bpy.ops.mesh.primitive_cube_add()
    bpy.context.object.name = "Spoon"
    bpy.context.object.gloop.type = "OBSTACLE"
    bpy.context.object.gloop.solid_preset = "GLASS"
    bpy.ops.wm.save_as_mainfile(filepath=blend)
    scene.gloop.cache_dir = "//" + os.path.relpath(cache, str(tmp_path))
    bpy.ops.wm.save_as_mainfile(filepath=blend)

    assert len(scene.gloop.liquid_object.data.vertices) > 0  # shown again after saving
    bpy.ops.wm.read_homefile(use_empty=True)
    bpy.ops.wm.open_mainfile(filepath=blend)
    scene = bpy.context.scene
    assert scene.gloop.particle_radius == pytest.approx(0.0123)
    assert scene.gloop.substeps == 7
    assert bpy.path.abspath(scene.gloop.cache_dir).rstrip("/") == cache.rstrip("/")
    assert bpy.data.objects["Spoon"].gloop.solid_preset == "GLASS"
    assert bpy.data.objects["Spoon"].gloop.friction == pytest.approx(0.05)
    liquid = scene.gloop.liquid_object
    assert liquid is not None and liquid.name == "Gloop Liquid"
    # Saved empty (the cache holds it) and reloaded from the cache on load.
    assert len(liquid.data.vertices) > 0
    scene.frame_set(3)  # the persistent handler survived the load
    assert vertices(liquid)[:, 2].mean() == pytest.approx(0.7, abs=1e-3)


def test_cycles_render_shows_the_liquid(cached_scene, tmp_path):
    scene, _liquid = cached_scene
    scene.frame_set(1)
    covered = harness.render_coverage(scene, (0.0, -3.0, 0.9), (0.0, 0.0, 0.9), tmp_path)
    # The sphere (radius 0.3 at 3 m, 50 mm lens) covers roughly 7 % of the frame; the empty
    # scene around it is transparent.
    assert 0.02 < covered < 0.3, covered
    assert scene.render.use_lock_interface  # turned on for safe GUI renders


def test_prefetched_frames_rewritten_on_disk_are_read_again(addon, cached_scene, monkeypatch):
    scene, liquid = cached_scene
    monkeypatch.setattr(addon.playback, "PREFETCH_AHEAD", 2)  # on whatever core count
    scene.frame_set(1)  # reads frames 2 and 3 ahead
    assert len(addon.playback.STATE._pending) == 2
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    pos, tris, normals = plyfiles.uv_sphere((0.0, 0.0, 5.0), 0.3, 12, 24)
    path = os.path.join(cache, "surface_00002.ply")
    n = len(pos)
    plyfiles.write_surface(path, pos, tris, normals, np.zeros((n, 3)), np.zeros((n, 3)))
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    scene.frame_set(2)
    assert vertices(liquid)[:, 2].mean() == pytest.approx(5.0, abs=1e-3)


def test_todays_surface_files_shade_smooth_without_stored_normals(addon, empty_scene):
    """Since issue 33 surface files carry no normals: Blender's own smooth shading of the
    triangles must give the sphere's normals, and the sRGB colours must come back linear."""
    scene = empty_scene
    cache_dir = bpy.path.abspath(scene.gloop.cache_dir)
    os.makedirs(cache_dir)
    centre = np.float32([0.0, 0.0, 1.0])
    pos, tris, radial = plyfiles.uv_sphere(centre, 0.3, 24, 48)
    n = len(pos)
    plyfiles.write_slim_surface(
        os.path.join(cache_dir, "surface_00001.ply"),
        pos,
        tris,
        np.tile(AMBER, (n, 1)),
        np.zeros((n, 3)),
    )
    liquid = addon.playback.ensure_liquid_object(scene)
    scene.frame_set(1)
    mesh = liquid.data
    assert len(mesh.polygons) == len(tris) and not mesh.has_custom_normals
    smooth = np.empty(len(mesh.polygons), dtype=bool)
    mesh.polygons.foreach_get("use_smooth", smooth)
    assert smooth.all()
    normals = np.empty(n * 3, dtype=np.float32)
    mesh.vertex_normals.foreach_get("vector", normals)
    cos = np.einsum("ij,ij->i", normals.reshape(-1, 3), radial)
    assert np.degrees(np.arccos(np.clip(cos, -1, 1))).max() < 2.0
    colour = np.empty(n * 4, dtype=np.float32)
    mesh.attributes["gloop_colour"].data.foreach_get("color", colour)
    assert np.allclose(colour.reshape(-1, 4)[:, :3], AMBER, rtol=0.02, atol=0)
    assert not mesh.validate(verbose=False)
