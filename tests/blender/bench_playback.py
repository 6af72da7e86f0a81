"""Benchmark: time to show a cached ~300k-triangle surface frame in Blender (PLY read through
gloop_core + mesh rewrite + depsgraph update), median over 50 frames scrubbed in order.

    timeout 600 /work/venv-bpy/bin/python tests/blender/bench_playback.py [--frames 50]
        [--prefetch N] [--cache DIR]

With `--cache DIR`, a baked cache's own surface files instead of the synthetic sphere: its
`--frames` largest frames (by file size), scrubbed in frame order (issue 33: the honey-drop
demo's largest frames, today's cache against the slimmed one).

Prints the median and quartiles of (a) `scene.frame_set(f)` as a whole, (b) the handler's
work alone (`playback.load_frame`), (c) `gloop_core.read_surface` alone. Goal (issue 5):
frame_set ≤ 40 ms on Blender 4.5 on the 2-core test machine.
"""

import argparse
import os
import statistics
import sys
import tempfile
import time

import bpy
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness
import plyfiles

RINGS, SEGMENTS = 301, 500  # 2·500 + 2·500·299 = 300,000 triangles


def write_frames(cache_dir, frames):
    pos, tris, normals = plyfiles.uv_sphere((0.0, 0.0, 0.0), 0.3, RINGS, SEGMENTS)
    n = len(pos)
    colours = np.tile((0.8, 0.42, 0.05), (n, 1))
    rng = np.random.default_rng(1)
    for f in range(1, frames + 1):
        wobble = pos * (1.0 + 0.02 * rng.standard_normal((n, 1))).astype(np.float32)
        plyfiles.write_surface(
            os.path.join(cache_dir, f"surface_{f:05d}.ply"),
            wobble,
            tris,
            normals,
            colours,
            np.zeros_like(pos),
        )
    return len(tris), n


def largest_frames(cache_dir, count):
    """The numbers of the `count` largest surface files of a cache, in frame order."""
    sizes = {}
    for name in os.listdir(cache_dir):
        if name.startswith("surface_") and name.endswith(".ply"):
            sizes[int(name[len("surface_") : -len(".ply")])] = os.path.getsize(
                os.path.join(cache_dir, name)
            )
    frames = sorted(sorted(sizes, key=lambda f: -sizes[f])[:count])
    if not frames:
        sys.exit(f"no surface files in {cache_dir}")
    return frames


def quartiles(samples_ms):
    q = statistics.quantiles(samples_ms, n=4)
    return f"median {statistics.median(samples_ms):.1f} ms (IQR {q[0]:.1f}–{q[2]:.1f})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument(
        "--prefetch", type=int, default=None, help="frames to read ahead (default: the add-on's)"
    )
    parser.add_argument("--cache", help="a baked cache folder to scrub instead of a sphere")
    args = parser.parse_args()
    addon, cleanup = harness.enable_extension()
    if args.prefetch is not None:
        addon.playback.PREFETCH_AHEAD = args.prefetch
    import gloop_core

    if args.cache:
        cache_dir = os.path.abspath(args.cache)
        frames = largest_frames(cache_dir, args.frames)
    else:
        cache_dir = tempfile.mkdtemp(prefix="gloop_bench_")
        triangles, vertices = write_frames(cache_dir, args.frames)
        frames = list(range(1, args.frames + 1))
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = frames[0], frames[-1]
    scene.gloop.cache_dir = cache_dir
    addon.playback.ensure_liquid_object(scene)

    scene.frame_set(frames[-1])  # warm-up: first allocation, page cache
    frame_set_ms, handler_ms, read_ms = [], [], []
    shown = []
    for f in frames:
        t0 = time.perf_counter()
        scene.frame_set(f)
        frame_set_ms.append((time.perf_counter() - t0) * 1e3)
        mesh = scene.gloop.liquid_object.data
        shown.append((len(mesh.polygons), len(mesh.vertices)))
    if args.cache:
        triangles, vertices = max(shown)
    assert max(shown)[0] == triangles
    for f in frames:
        t0 = time.perf_counter()
        addon.playback.load_frame(scene, f)
        handler_ms.append((time.perf_counter() - t0) * 1e3)
    addon.playback.STATE.shutdown()
    for f in frames:
        t0 = time.perf_counter()
        gloop_core.read_surface(os.path.join(cache_dir, f"surface_{f:05d}.ply"))
        read_ms.append((time.perf_counter() - t0) * 1e3)

    prefetch = f"{addon.playback.PREFETCH_AHEAD} frames ahead"
    source = f"{len(frames)} frames of {cache_dir}, largest" if args.cache else "sphere,"
    print(
        f"Blender {bpy.app.version_string}, {source} {triangles:,} triangles, "
        f"{vertices:,} vertices, prefetch {prefetch}"
    )
    print(f"frame_set (handler + depsgraph): {quartiles(frame_set_ms)}")
    print(f"handler alone (read + mesh rewrite): {quartiles(handler_ms)}")
    print(f"gloop_core.read_surface alone: {quartiles(read_ms)}")
    cleanup()
    if not args.cache:
        for name in os.listdir(cache_dir):
            os.remove(os.path.join(cache_dir, name))
        os.rmdir(cache_dir)
    sys.stdout.flush()
    os._exit(0)  # the bpy 4.5 exit hang (BLENDER_NOTES §5)


if __name__ == "__main__":
    main()
