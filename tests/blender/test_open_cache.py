"""Open Cache on real Blender: a `gloop demo honey-drop` cache plays back with its ball, rigid
and deforming obstacles move as baked, and bad folders give one clear message."""

import json
import os

import bpy
import cache_fixtures
import numpy as np
import pytest
from cache_fixtures import BALL_CENTRE, BALL_RADIUS, FRAMES


@pytest.fixture(scope="session")
def honey_drop_cache(addon, tmp_path_factory):
    return cache_fixtures.bake_honey_drop(addon, str(tmp_path_factory.mktemp("demo") / "cache"))


@pytest.fixture
def cache_copy(honey_drop_cache, tmp_path):
    return cache_fixtures.copy_cache(honey_drop_cache, tmp_path / "opened")


def _positions(ob):
    mesh = ob.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    return co.reshape(-1, 3)


def _world_vertices(ob, scene):
    ob_eval = ob.evaluated_get(bpy.context.evaluated_depsgraph_get())
    mesh = ob_eval.to_mesh()
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    ob_eval.to_mesh_clear()
    m = np.array(ob.matrix_world)
    co = co.reshape(-1, 3)
    return co @ m[:3, :3].T + m[:3, 3]


def _open(directory):
    return bpy.ops.gloop.open_cache(directory=str(directory))


def test_open_cache_plays_back_the_honey_drop_demo_with_its_ball(empty_scene, cache_copy):
    scene = empty_scene
    assert _open(cache_copy) == {"FINISHED"}
    assert (scene.frame_start, scene.frame_end) == (1, FRAMES)
    assert scene.render.fps == 24
    assert os.path.samefile(bpy.path.abspath(scene.gloop.cache_dir), cache_copy)
    liquid = scene.gloop.liquid_object
    assert liquid is not None and liquid.name in scene.objects

    shown = {}
    for frame in (1, FRAMES):
        scene.frame_set(frame)
        shown[frame] = _positions(liquid)
        assert len(shown[frame]) > 1000
    assert len(shown[1]) != len(shown[FRAMES]) or not np.allclose(shown[1], shown[FRAMES])
    # The honey drop starts above the ball: its lowest point 3 cm over the ball's top.
    assert shown[1][:, 2].min() > BALL_CENTRE[2] + BALL_RADIUS + 0.02

    ball = bpy.data.objects.get("ball")
    assert ball is not None and ball.type == "MESH" and ball.name in scene.objects
    assert ball.gloop.type == "OBSTACLE"
    assert ball.gloop.solid_name == "steel"
    assert ball.gloop.stickiness == pytest.approx(12.0)
    assert ball.active_material.name == "Gloop Solid (steel)"
    world = _world_vertices(ball, scene)
    centre = world.mean(axis=0)
    assert np.allclose(centre, BALL_CENTRE, atol=1e-3), centre
    radii = np.linalg.norm(world - centre, axis=1)
    assert radii.max() == pytest.approx(BALL_RADIUS, rel=0.02)
    assert "Opened" in scene.gloop.status_text


def test_opening_again_replaces_the_obstacles(empty_scene, cache_copy):
    assert _open(cache_copy) == {"FINISHED"}
    assert _open(cache_copy) == {"FINISHED"}
    balls = [ob for ob in bpy.data.objects if ob.name.startswith("ball")]
    assert [ob.name for ob in balls] == ["ball"]


def _rewrite_scene(cache, change):
    """Replaces the cache's scene.gloop by a scene.json with `change` applied to the ball."""
    import gloop_core

    scene = json.loads(gloop_core.scene_json(os.path.join(cache, "scene.gloop")))
    ball = next(o for o in scene["objects"] if o["name"] == "ball")
    change(ball)
    os.remove(os.path.join(cache, "scene.gloop"))
    with open(os.path.join(cache, "scene.json"), "w", encoding="utf-8") as f:
        json.dump(scene, f)


def _translation(x, y, z):
    return [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, x, y, z, 1]  # column-major


def test_rigid_obstacles_are_keyframed_per_frame(empty_scene, cache_copy):
    path = [(0.0, 0.0, 0.12), (0.01, 0.0, 0.12), (0.03, 0.0, 0.11)]

    def rigid(ball):
        ball["motion"] = {"rigid": {"first_frame": 1, "matrices": [_translation(*p) for p in path]}}

    _rewrite_scene(cache_copy, rigid)
    scene = empty_scene
    assert _open(cache_copy) == {"FINISHED"}
    ball = bpy.data.objects["ball"]
    for frame, expected in enumerate(path, start=1):
        scene.frame_set(frame)
        assert np.allclose(ball.matrix_world.translation, expected, atol=1e-5), frame


def test_deforming_obstacles_follow_their_frames_through_shape_keys(empty_scene, cache_copy):
    def deforming(ball):
        vertices = np.array(ball["mesh"]["vertices"])
        frames = [vertices * s + [0.0, 0.0, 0.12] for s in (1.0, 1.1, 0.9)]
        ball["motion"] = {
            "deforming": {"first_frame": 1, "positions": [f.tolist() for f in frames]}
        }

    _rewrite_scene(cache_copy, deforming)
    scene = empty_scene
    assert _open(cache_copy) == {"FINISHED"}
    ball = bpy.data.objects["ball"]
    for frame, scale in ((1, 1.0), (2, 1.1), (3, 0.9)):
        scene.frame_set(frame)
        world = _world_vertices(ball, scene)
        radius = np.linalg.norm(world - [0.0, 0.0, 0.12], axis=1).max()
        assert radius == pytest.approx(BALL_RADIUS * scale, rel=1e-3), frame


# Bad input: one clear message (the operator's report, and the panel's status line), never a
# traceback; a missing or unreadable scene file still opens the liquid.


def _refused(scene, directory, *words):
    with pytest.raises(RuntimeError) as e:
        _open(directory)
    message = str(e.value)
    assert "Traceback" not in message
    for word in words:
        assert word in message, message
        assert word in scene.gloop.status_text, scene.gloop.status_text
    assert scene.gloop.liquid_object is None


def _colours(ob):
    colour = np.empty(len(ob.data.vertices) * 4, dtype=np.float32)
    ob.data.attributes["gloop_colour"].data.foreach_get("color", colour)
    return colour.reshape(-1, 4)[:, :3]


def test_a_cache_with_colours_per_particle_opens_as_before(empty_scene, cache_copy, tmp_path):
    """Caches written before colours were stored once per material (42 bytes a particle)
    show the same particles, in the same colours, as today's."""
    old = cache_fixtures.copy_cache(cache_copy, tmp_path / "old")
    for folder in (cache_copy, old):  # particles only: the files under test are shown
        for name in os.listdir(folder):
            if name.startswith("surface_"):
                os.remove(os.path.join(folder, name))
    for frame in range(1, FRAMES + 1):
        path = os.path.join(old, f"particles_{frame:05d}.ply")
        today = os.path.getsize(path)
        cache_fixtures.with_colours_per_particle(path)
        assert os.path.getsize(path) > today * 1.3  # 42 bytes a particle against 30
    scene = empty_scene
    shown = {}
    for folder in (cache_copy, old):
        assert _open(folder) == {"FINISHED"}
        scene.frame_set(FRAMES)
        liquid = scene.gloop.liquid_object
        assert liquid.modifiers["Gloop Points"].show_render
        shown[folder] = (_positions(liquid), _colours(liquid))
    (pos, colour), (old_pos, old_colour) = shown[cache_copy], shown[old]
    assert len(pos) > 1000 and np.array_equal(pos, old_pos)
    assert np.array_equal(colour, old_colour)
    assert np.allclose(colour, colour[0]) and colour[0][0] > colour[0][2]  # honey, amber


def test_a_folder_that_is_not_a_cache_is_refused(empty_scene, tmp_path):
    (tmp_path / "notes.txt").write_text("not a cache")
    _refused(empty_scene, tmp_path, "not a Gloop cache folder", "manifest.json")
    _refused(empty_scene, tmp_path / "missing", "is not a folder")


def test_a_cache_from_another_gloop_version_is_refused(empty_scene, cache_copy):
    path = os.path.join(cache_copy, "manifest.json")
    with open(path, encoding="utf-8") as f:
        manifest = json.load(f)
    manifest["format_version"] = 99
    manifest["gloop_version"] = "9.0.0"
    with open(path, "w", encoding="utf-8") as f:
        json.dump(manifest, f)
    _refused(empty_scene, cache_copy, "manifest.json", "Gloop 9.0.0", "format 99", "newer")


def test_a_corrupt_manifest_is_refused(empty_scene, cache_copy):
    with open(os.path.join(cache_copy, "manifest.json"), "w", encoding="utf-8") as f:
        f.write('{"format_version": 1, "frame_st')
    _refused(empty_scene, cache_copy, "manifest.json", "cannot be read")


def test_a_missing_scene_file_still_opens_the_liquid(empty_scene, cache_copy):
    os.remove(os.path.join(cache_copy, "scene.gloop"))
    scene = empty_scene
    assert _open(cache_copy) == {"FINISHED"}
    assert scene.gloop.liquid_object is not None
    scene.frame_set(2)
    assert len(scene.gloop.liquid_object.data.vertices) > 1000
    assert "ball" not in bpy.data.objects
    assert "Obstacles could not be made" in scene.gloop.status_text
    assert "no scene file" in scene.gloop.status_text


def test_a_corrupt_scene_file_names_it_and_still_opens_the_liquid(empty_scene, cache_copy):
    path = os.path.join(cache_copy, "scene.gloop")
    with open(path, "rb") as f:
        head = f.read(200)
    with open(path, "wb") as f:
        f.write(head)  # truncated
    scene = empty_scene
    assert _open(cache_copy) == {"FINISHED"}
    assert scene.gloop.liquid_object is not None
    text = scene.gloop.status_text
    assert "Obstacles could not be made" in text and "scene.gloop" in text, text
    assert "truncated" in text, text


def _liquid_material(scene):
    return scene.gloop.liquid_object.data.materials[0]


def test_the_opened_liquid_renders_as_its_scene_file_says(empty_scene, cache_copy):
    import gloop_core

    scene = empty_scene
    assert _open(cache_copy) == {"FINISHED"}
    assert _liquid_material(scene).name == "Gloop Glassy"  # the demo's honey
    honey = json.loads(gloop_core.scene_json(os.path.join(cache_copy, "scene.gloop")))
    assert tuple(scene.gloop.opened_colour) == pytest.approx(
        honey["materials"]["liquids"][0]["colour"]
    )

    # The same cache as if its liquid were paint: opened in a new file, it renders opaque.
    honey["materials"]["liquids"][0]["look"] = "opaque"
    os.remove(os.path.join(cache_copy, "scene.gloop"))
    with open(os.path.join(cache_copy, "scene.json"), "w", encoding="utf-8") as f:
        json.dump(honey, f)
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    assert _open(cache_copy) == {"FINISHED"}
    assert _liquid_material(scene).name == "Gloop Opaque"


def test_opened_obstacles_shade_smooth_but_keep_their_sharp_edges(empty_scene, cache_copy):
    """Shaded flat, the ball's facets showed through the glassy honey as a hexagonal
    highlight (issue 41): the ball is smooth, the plate's rims stay sharp."""
    assert _open(cache_copy) == {"FINISHED"}
    ball = bpy.data.objects["ball"].data
    smooth = np.empty(len(ball.polygons), dtype=bool)
    ball.polygons.foreach_get("use_smooth", smooth)
    assert smooth.all()
    sharp = np.empty(len(ball.edges), dtype=bool)
    ball.edges.foreach_get("use_edge_sharp", sharp)
    assert not sharp.any()
    plate = next(ob.data for ob in bpy.data.objects if ob.name.startswith("plate"))
    sharp = np.empty(len(plate.edges), dtype=bool)
    plate.edges.foreach_get("use_edge_sharp", sharp)
    assert sharp.sum() >= 12  # the box's twelve rims (each maybe split along its faces)
