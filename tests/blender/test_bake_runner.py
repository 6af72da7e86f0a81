"""Bake bookkeeping that needs no solver: progress text, Free Bake, status of a dead child."""

import json
import os

import bpy


def test_progress_text_and_fraction(addon):
    runner = addon.bake_runner
    status = {
        "state": "running",
        "frame": 12,
        "frames_done": 12,
        "frames_total": 48,
        "liquid_particles": 51234,
        "eta_s": 125.0,
    }
    assert runner.progress_text(status) == "Frame 12 (12/48), 51,234 particles, ETA 2:05"
    assert runner.progress_fraction(status) == 0.25
    assert runner.progress_text(None) == "Starting…"
    # With the substeps the last frame took, and the frames that wanted more than the cap.
    status.update(substeps=38, substeps_capped_frames=0)
    assert runner.progress_text(status) == (
        "Frame 12 (12/48), 51,234 particles, 38 substeps, ETA 2:05"
    )
    status.update(substeps=64, substeps_capped_frames=2)
    assert runner.progress_text(status) == (
        "Frame 12 (12/48), 51,234 particles, 64 substeps, 2 frames at Max Substeps, ETA 2:05"
    )
    # And the bound that set them.
    status.update(substeps=3, substeps_capped_frames=0, substeps_set_by="stretch")
    assert runner.progress_text(status) == (
        "Frame 12 (12/48), 51,234 particles, 3 substeps (stretch), ETA 2:05"
    )


def test_squeeze_warning_only_when_frames_stopped_short(addon):
    runner = addon.bake_runner
    assert runner.squeeze_warning(None) == ""
    assert runner.squeeze_warning({"capped_frames": 0, "worst_compression": 0.0}) == ""
    # A status.json written before the figures existed.
    assert runner.squeeze_warning({"state": "finished", "frames_done": 3}) == ""
    warning = runner.squeeze_warning({"capped_frames": 2, "worst_compression": 0.284})
    assert warning == "2 frames left the liquid up to 28% squeezed: raise Density Passes"
    one = runner.squeeze_warning({"capped_frames": 1, "worst_compression": 0.031})
    assert one.startswith("1 frame left the liquid up to 3% squeezed")


def test_free_bake_deletes_only_bake_files(addon, empty_scene):
    scene = empty_scene
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    os.makedirs(cache)
    ours = [
        "particles_00001.ply",
        "surface_00001.ply",
        "manifest.json",
        "status.json",
        "scene.gloop",
        "scene.json",
        "bake.log",
        "particles_00002.ply.tmp",
    ]
    for name in ours + ["my_notes.txt"]:
        with open(os.path.join(cache, name), "w") as f:
            f.write("x")
    assert bpy.ops.gloop.free_bake() == {"FINISHED"}
    assert os.listdir(cache) == ["my_notes.txt"]
    os.remove(os.path.join(cache, "my_notes.txt"))
    bpy.ops.gloop.free_bake()
    assert not os.path.exists(cache)  # an emptied folder goes too


def test_status_is_read_even_while_being_replaced(addon, tmp_path):
    runner = addon.bake_runner
    assert runner.read_status(str(tmp_path)) is None
    (tmp_path / "status.json").write_text('{"state": "runn')  # never happens: atomic writes
    assert runner.read_status(str(tmp_path)) is None
    (tmp_path / "status.json").write_text(json.dumps({"state": "finished"}))
    assert runner.read_status(str(tmp_path)) == {"state": "finished"}
