"""Bake asks before replacing a bake, and nobody writes into a cache folder another process
holds: the panel says "in use by …" and Bake, Resume and Free refuse, naming the holder."""

import json
import os
import socket
import subprocess
import time

import bpy
import pytest


def small_honey(scene, frame_end=2):
    scene.frame_start, scene.frame_end = 1, frame_end
    scene.gloop.particle_radius = 0.01
    bpy.ops.mesh.primitive_uv_sphere_add(
        radius=0.05, location=(0.0, 0.0, 0.2), segments=16, ring_count=8
    )
    ball = bpy.context.object
    ball.name = "Honey"
    ball.gloop.type = "LIQUID"
    ball.gloop.liquid_preset = "HONEY"


def cache_of(scene):
    return bpy.path.abspath(scene.gloop.cache_dir)


def frame_files(cache):
    """The baked frame files with their bytes."""
    out = {}
    for name in sorted(os.listdir(cache)):
        if name.endswith(".ply"):
            with open(os.path.join(cache, name), "rb") as f:
                out[name] = f.read()
    return out


def test_bake_replaces_a_finished_bake_only_with_consent(addon, empty_scene):
    scene = empty_scene
    small_honey(scene)
    cache = cache_of(scene)
    assert addon.bake_runner.existing_bake(cache) == ""
    assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
    first = frame_files(cache)
    assert addon.bake_runner.existing_bake(cache) == "a finished bake (frames 1–2)"

    # From a script (EXEC_DEFAULT, as the confirm dialog cannot be shown): refused, untouched.
    scene.frame_end = 3
    with pytest.raises(RuntimeError, match=r"holds a finished bake \(frames 1–2\).*replace=True"):
        bpy.ops.gloop.bake()
    assert frame_files(cache) == first
    with open(os.path.join(cache, "manifest.json")) as f:
        assert json.load(f)["frame_end"] == 2

    # Resume never asks: it continues the bake it finds (here to the later frame_end).
    assert bpy.ops.gloop.bake_resume() == {"FINISHED"}, scene.gloop.status_text
    assert sorted(frame_files(cache)) == sorted(
        [f"{kind}_{f:05d}.ply" for kind in ("particles", "surface") for f in (1, 2, 3)]
    )

    # With consent the bake is done again from the start: a changed scene, new frames.
    bpy.data.objects["Honey"].location.z = 0.25
    assert bpy.ops.gloop.bake(replace=True) == {"FINISHED"}, scene.gloop.status_text
    replaced = frame_files(cache)
    assert len(replaced) == 6
    assert replaced["particles_00001.ply"] != first["particles_00001.ply"]
    assert not os.path.exists(os.path.join(cache, "replaced_bake"))


def test_an_unfinished_bake_is_described_as_such(addon, tmp_path):
    cache = str(tmp_path)
    manifest = {"frame_start": 1, "frame_end": 250, "last_complete_frame": 40}
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert addon.bake_runner.existing_bake(cache) == ""  # no frame file: nothing to lose
    (tmp_path / "particles_00001.ply").write_bytes(b"x")
    assert addon.bake_runner.existing_bake(cache) == "an unfinished bake (frames 1–40 of 1–250)"
    (tmp_path / "manifest.json").write_text("{")
    assert addon.bake_runner.existing_bake(cache) == "baked frames"


class RecordingLayout:
    """Stands in for `UILayout` when drawing a panel headless: records labels and which
    sub-layouts were disabled, and accepts any other call."""

    def __init__(self, log, parent=None):
        self.__dict__.update(log=log, parent=parent, attrs={})

    def __getattr__(self, name):
        def call(*args, **kwargs):
            child = RecordingLayout(self.log, parent=self)
            self.log.append((name, args, kwargs, child))
            return child

        return call

    def __setattr__(self, name, value):
        self.attrs[name] = value

    def enabled_here(self):
        node = self
        while node is not None:
            if node.attrs.get("enabled", True) is False:
                return False
            node = node.parent
        return True


def draw_bake_panel(addon, context):
    """Draws the Gloop Bake panel into a `RecordingLayout`; returns its log."""
    panel_class = addon.panels.PHYSICS_PT_gloop_bake
    log = []

    class Panel:
        layout = RecordingLayout(log)

        def __getattr__(self, name):
            return getattr(panel_class, name)

    panel_class.draw(Panel(), context)
    return log


def labels(log):
    return [kwargs.get("text", "") for name, _args, kwargs, _child in log if name == "label"]


def button_enabled(log, idname):
    for name, args, _kwargs, child in log:
        if name == "operator" and args and args[0] == idname:
            return child.parent.enabled_here()
    raise AssertionError(f"no {idname} button in the panel")


def write_lock(cache, pid):
    """A cache lock as the core writes it (`src/cache/lock.rs`), naming process `pid` here."""
    os.makedirs(cache, exist_ok=True)
    holder = {
        "pid": pid,
        "host": socket.gethostname(),
        "command": "bake",
        "since_unix_s": int(time.time()),
    }
    with open(os.path.join(cache, "gloop.lock"), "w") as f:
        json.dump(holder, f)


def test_a_folder_in_use_by_another_process_is_shown_and_left_alone(addon, empty_scene):
    scene = empty_scene
    small_honey(scene)
    cache = cache_of(scene)
    assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
    log = draw_bake_panel(addon, bpy.context)
    assert not any("In use by" in text for text in labels(log))
    assert button_enabled(log, "gloop.bake") and button_enabled(log, "gloop.free_bake")

    other = subprocess.Popen(["sleep", "60"])  # a live process that is not this one
    try:
        write_lock(cache, other.pid)
        # The previous redraw's answer ("free") may be kept for up to a second.
        addon.cache_lock.forget()
        before = frame_files(cache)
        log = draw_bake_panel(addon, bpy.context)
        shown = " ".join(labels(log))
        assert f"In use by gloop bake (pid {other.pid} on host {socket.gethostname()}" in shown
        for button in ("gloop.bake", "gloop.bake_resume", "gloop.free_bake"):
            assert not button_enabled(log, button), button

        said = f"in use by gloop bake \\(pid {other.pid}"
        with pytest.raises(RuntimeError, match=said):
            bpy.ops.gloop.bake(replace=True)
        with pytest.raises(RuntimeError, match=said):
            bpy.ops.gloop.bake_resume()
        with pytest.raises(RuntimeError, match=said):
            bpy.ops.gloop.free_bake()
        # A bake job started anyway does not touch the holder's files (cancel, status, log).
        open(os.path.join(cache, "cancel"), "w").close()
        with pytest.raises(addon.bake_runner.CacheInUse, match=said):
            addon.bake_runner.BakeJob(os.path.join(cache, "scene.json"), cache)
        assert os.path.exists(os.path.join(cache, "cancel"))
        assert os.path.exists(os.path.join(cache, "status.json"))
        assert frame_files(cache) == before
        addon.cache_lock.forget()
        asked = time.monotonic()
        assert addon.cache_lock.in_use_by(cache, now=asked) != ""
    finally:
        other.kill()
        other.wait()
    os.remove(os.path.join(cache, "cancel"))

    # Its holder gone, the lock is stale: free again once the kept answer expires.
    assert addon.cache_lock.in_use_by(cache, now=asked + 0.5) != ""  # kept for a second
    assert addon.cache_lock.in_use_by(cache, now=asked + 1.5) == ""
    log = draw_bake_panel(addon, bpy.context)
    assert button_enabled(log, "gloop.bake")
    scene.frame_end += 1  # a finished bake has nothing to resume
    assert bpy.ops.gloop.bake_resume() == {"FINISHED"}, scene.gloop.status_text


def test_the_bake_clears_an_earlier_cancel_but_keeps_one_made_while_it_starts(addon, empty_scene):
    import gloop_core

    scene = empty_scene
    small_honey(scene, frame_end=3)
    cache = cache_of(scene)
    scene_path = addon.export.export_scene(scene, bpy.context.evaluated_depsgraph_get(), cache)
    cancel = os.path.join(cache, "cancel")
    # Left by a bake cancelled a minute ago: removed once the new bake holds the lock.
    open(cancel, "w").close()
    os.utime(cancel, (time.time() - 60, time.time() - 60))
    done = gloop_core.bake(scene_path, cache, surface=False, started_at=time.time())
    assert done["outcome"] == "finished" and done["last_frame"] == 3
    assert not os.path.exists(cancel)
    # Made after the bake was started (the user pressed Cancel during start-up): it stops it.
    started = time.time() - 5
    open(cancel, "w").close()
    done = gloop_core.bake(scene_path, cache, surface=False, overwrite=True, started_at=started)
    assert done["outcome"] == "cancelled" and done["last_frame"] == 1
