"""A short `gloop demo honey-drop` cache, made once per session through gloop_core: the demo's
scene (`demo_scene_json`) cut to a few frames and baked in a child process exactly as
`gloop demo honey-drop --frames 1..N` bakes it (scene.gloop, manifest, particles, surfaces)."""

import hashlib
import json
import os
import re
import shutil

import numpy as np

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


def with_colours_per_particle(particle_file):
    """Rewrites a particle file as caches were written before issue 41 stored colours once per
    material: `float red green blue` after `material`, 42 bytes a particle, no
    `gloop material_colour` comments."""
    with open(particle_file, "rb") as f:
        data = f.read()
    end = data.index(b"end_header\n") + len(b"end_header\n")
    header, payload = data[:end].decode("ascii"), data[end:]
    colours = {
        int(m): [float(c) for c in rgb.split()]
        for m, rgb in re.findall(r"comment gloop material_colour (\d+) (.*)\n", header)
    }
    assert colours, "already colour per particle"
    new = np.dtype([("xyzv", "<f4", 6), ("material", "<u2"), ("density_step", "<f4")])
    old = np.dtype([("xyzv", "<f4", 6), ("material", "<u2"), ("rgb", "<f4", 3), ("step", "<f4")])
    records = np.frombuffer(payload, dtype=new)
    out = np.zeros(len(records), dtype=old)
    out["xyzv"], out["material"], out["step"] = (
        records["xyzv"],
        records["material"],
        records["density_step"],
    )
    out["rgb"] = [colours[m] for m in records["material"]]
    header = re.sub(r"comment gloop material_colour .*\n", "", header).replace(
        "property ushort material\n",
        "property ushort material\nproperty float red\nproperty float green\nproperty float blue\n",
    )
    with open(particle_file, "wb") as f:
        f.write(header.encode("ascii") + out.tobytes())
