"""A short `gloop demo honey-drop` cache, made once per session through gloop_core: the demo's
scene (`demo_scene_json`) cut to a few frames and baked in a child process exactly as
`gloop demo honey-drop --frames 1..N` bakes it (scene.gloop, manifest, particles, surfaces)."""

import hashlib
import json
import os
import shutil

FRAMES = 3
BALL_CENTRE = (0.0, 0.0, 0.12)  # src/demos/honey_drop.rs
BALL_RADIUS = 0.035


def bake_honey_drop(addon, folder):
    import gloop_core

    scene = json.loads(gloop_core.demo_scene_json("honey-drop"))
    scene["settings"]["frame_start"] = 1
    scene["settings"]["frame_end"] = FRAMES
    os.makedirs(folder, exist_ok=True)
    scene_path = os.path.join(os.path.dirname(folder), "honey_drop_scene.json")
    with open(scene_path, "w", encoding="utf-8") as f:
        json.dump(scene, f)
    job = addon.bake_runner.BakeJob(scene_path, folder, options={"surface": True})
    job.wait()
    state, message = job.outcome()
    assert state == "finished", message
    return folder


def copy_cache(source, target):
    shutil.copytree(source, target)
    return str(target)


def file_hashes(folder, prefix):
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith(prefix) and name.endswith(".ply"):
            with open(os.path.join(folder, name), "rb") as f:
                out[name] = hashlib.sha256(f.read()).hexdigest()
    return out
