"""The Bake panel's estimates against what the bake makes (issue 34: within 20%): particles,
the bake process's peak memory, and the cache per frame with its surface meshes.

Each scene is exported by the add-on and baked by `gloop_core.bake` in a child Python, as the
Bake button does; the child reports its own peak resident memory (`ru_maxrss`)."""

import glob
import json
import os
import subprocess
import sys

import bpy
import pytest

TOLERANCE = 0.20

# The peak from VmHWM, not `ru_maxrss`: Linux keeps `ru_maxrss` across `execve`, so a child
# forked from Blender would report Blender's own size.
CHILD = """
import json, sys
import gloop_core
gloop_core.bake(sys.argv[1], sys.argv[2], **json.loads(sys.argv[3]))
with open("/proc/self/status") as f:
    print(next(int(l.split()[1]) * 1024 for l in f if l.startswith("VmHWM:")))
"""


def mark(ob, kind, **settings):
    ob.gloop.type = kind
    for name, value in settings.items():
        setattr(ob.gloop, name, value)
    return ob


def add(primitive, name, **kwargs):
    getattr(bpy.ops.mesh, f"primitive_{primitive}_add")(**kwargs)
    ob = bpy.context.object
    ob.name = name
    return ob


def drop_over_board(scene):
    """The first-hour scene: a 3 cm honey sphere over a 40 cm board (two triangles)."""
    scene.frame_start, scene.frame_end = 1, 6
    mark(add("uv_sphere", "Honey", radius=0.03, location=(0, 0, 0.1)), "LIQUID")
    mark(add("plane", "Board", size=0.4), "OBSTACLE", solid_preset="WOOD")


def cube_onto_ball(scene):
    """A honey cube falling onto a finely tessellated ball: a curved obstacle of small
    triangles, the case an area rule got most wrong the other way."""
    scene.frame_start, scene.frame_end = 1, 4
    mark(add("cube", "Honey", size=0.04, location=(0, 0, 0.09)), "LIQUID")
    ball = add("ico_sphere", "Ball", radius=0.04, subdivisions=5)
    mark(ball, "OBSTACLE", solid_preset="STEEL")


def pour(scene, radius=0.005, height=0.06, flow=5.0, frames=24):
    """A 1 cm nozzle pouring 5 mL/s onto a board: the liquid grows from nothing."""
    scene.frame_start, scene.frame_end = 1, frames
    nozzle = add("circle", "Nozzle", radius=radius, fill_type="NGON", location=(0, 0, height))
    nozzle.rotation_euler = (3.14159265, 0.0, 0.0)  # facing down
    mark(nozzle, "EMITTER", emit_mode="FLOW_SPEED", emit_flow=flow, emit_speed=0.1)
    mark(add("plane", "Board", size=0.2), "OBSTACLE", solid_preset="WOOD")


def bake_in_child(addon, scene, cache):
    """(peak resident bytes, status) of a bake of `scene` into `cache`, as the Bake button
    runs it."""
    path = addon.export.export_scene(scene, bpy.context.evaluated_depsgraph_get(), cache)
    options = addon.operators.bake_options(scene)
    env = dict(os.environ, PYTHONPATH=addon.bake_runner.module_search_path())
    done = subprocess.run(
        [sys.executable, "-c", CHILD, path, cache, json.dumps(options)],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    with open(os.path.join(cache, "status.json"), encoding="utf-8") as f:
        status = json.load(f)
    return int(done.stdout.split()[-1]), status


def mean_frame_bytes(cache):
    frames = sorted(glob.glob(os.path.join(cache, "particles_*.ply")))
    total = sum(os.path.getsize(p) for p in frames)
    total += sum(os.path.getsize(p) for p in glob.glob(os.path.join(cache, "surface_*.ply")))
    return total / len(frames)


def within(estimated, made):
    return abs(estimated - made) <= TOLERANCE * made


def quick_honey_cube(scene):
    """Quick Honey on a 5 cm cube over 30 frames: it falls onto the floor Quick Honey lays
    and spreads into a puddle, its surface growing 2.4 times (`spreading`)."""
    scene.frame_start, scene.frame_end = 1, 30
    add("cube", "Honey", size=0.05, location=(0, 0, 0.1))
    assert bpy.ops.gloop.quick_honey() == {"FINISHED"}


def pour_high(scene):
    pour(scene, height=0.15)


def pour_wide(scene):
    pour(scene, radius=0.008, flow=15.0, frames=36)


CASES = [
    (build, max_error)
    for build in (drop_over_board, cube_onto_ball, quick_honey_cube, pour, pour_high, pour_wide)
    for max_error in (0.0, 0.02)
]


@pytest.mark.parametrize(
    ("build", "max_error"),
    [
        pytest.param(
            build, max_error, id=f"{build.__name__}-{'decimated' if max_error else 'whole'}"
        )
        for build, max_error in CASES
    ],
)
def test_the_estimates_are_within_a_fifth_of_the_bake(addon, empty_scene, build, max_error):
    import gloop_core  # installed by enabling the extension

    scene = empty_scene
    build(scene)
    scene.gloop.surface_max_error = max_error
    addon.obstacle_count.forget()  # an earlier case's board is counted afresh
    assert not addon.preflight.preflight(scene).estimate.exact  # counting on the worker
    addon.obstacle_count.wait()
    e = addon.preflight.preflight(scene).estimate
    assert e.exact
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    peak, status = bake_in_child(addon, scene, cache)
    last = gloop_core.read_particles(os.path.join(cache, f"particles_{scene.frame_end:05d}.ply"))
    cache_bytes = mean_frame_bytes(cache)
    surface_bytes = sum(os.path.getsize(p) for p in glob.glob(os.path.join(cache, "surface_*.ply")))
    print(
        f"\n{build.__name__} max_error {max_error}: surface {surface_bytes:,} bytes, liquid {e.liquid:,} / {last['count']:,}, objects {e.solid:,} / "
        f"{status['object_particles']:,}, RAM {e.ram_bytes / 2**20:.0f} / {peak / 2**20:.0f} "
        f"MB, cache per frame {e.cache_bytes / 1e3:.0f} / {cache_bytes / 1e3:.0f} KB, "
        f"bake {e.seconds:.1f} / {status['elapsed_s']:.1f} s (rough, not checked: a timed test "
        "on a shared machine proves nothing)"
    )
    assert within(e.liquid, last["count"]), (e.liquid, last["count"])
    assert within(e.solid, status["object_particles"]), (e.solid, status["object_particles"])
    assert within(e.ram_bytes, peak), (e.ram_bytes, peak)
    assert within(e.cache_bytes, cache_bytes), (e.cache_bytes, cache_bytes)
