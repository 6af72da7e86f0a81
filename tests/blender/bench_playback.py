"""Benchmark: time to show a cached ~300k-triangle surface frame in Blender (PLY read through
gloop_core + mesh rewrite + depsgraph update), median over 50 frames scrubbed in order.

    timeout 600 /work/venv-bpy/bin/python tests/blender/bench_playback.py [--frames 50]
        [--prefetch N]

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


def quartiles(samples_ms):
    q = statistics.quantiles(samples_ms, n=4)
    return f"median {statistics.median(samples_ms):.1f} ms (IQR {q[0]:.1f}–{q[2]:.1f})"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--frames", type=int, default=50)
    parser.add_argument(
        "--prefetch", type=int, default=None, help="frames to read ahead (default: the add-on's)"
    )
    args = parser.parse_args()
    addon, cleanup = harness.enable_extension()
    if args.prefetch is not None:
        addon.playback.PREFETCH_AHEAD = args.prefetch
    import gloop_core

    cache_dir = tempfile.mkdtemp(prefix="gloop_bench_")
    triangles, vertices = write_frames(cache_dir, args.frames)
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, args.frames
    scene.gloop.cache_dir = cache_dir
    addon.playback.ensure_liquid_object(scene)

    scene.frame_set(args.frames)  # warm-up: first allocation, page cache
    frame_set_ms, handler_ms, read_ms = [], [], []
    for f in range(1, args.frames + 1):
        t0 = time.perf_counter()
        scene.frame_set(f)
        frame_set_ms.append((time.perf_counter() - t0) * 1e3)
    assert len(scene.gloop.liquid_object.data.polygons) == triangles
    for f in range(1, args.frames + 1):
        t0 = time.perf_counter()
        addon.playback.load_frame(scene, f)
        handler_ms.append((time.perf_counter() - t0) * 1e3)
    addon.playback.STATE.shutdown()
    for f in range(1, args.frames + 1):
        t0 = time.perf_counter()
        gloop_core.read_surface(os.path.join(cache_dir, f"surface_{f:05d}.ply"))
        read_ms.append((time.perf_counter() - t0) * 1e3)

    prefetch = f"{addon.playback.PREFETCH_AHEAD} frames ahead"
    print(
        f"Blender {bpy.app.version_string}, {triangles:,} triangles, {vertices:,} vertices, "
        f"prefetch {prefetch}"
    )
    print(f"frame_set (handler + depsgraph): {quartiles(frame_set_ms)}")
    print(f"handler alone (read + mesh rewrite): {quartiles(handler_ms)}")
    print(f"gloop_core.read_surface alone: {quartiles(read_ms)}")
    cleanup()
    for name in os.listdir(cache_dir):
        os.remove(os.path.join(cache_dir, name))
    os.rmdir(cache_dir)
    sys.stdout.flush()
    os._exit(0)  # the bpy 4.5 exit hang (BLENDER_NOTES §5)


if __name__ == "__main__":
    main()
