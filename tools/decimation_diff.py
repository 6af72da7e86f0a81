"""Decimated against undecimated: a demo frame meshed both ways by `gloop mesh`, each rendered
with Cycles as the look book shows it (same shot, camera, lights, material and Liquid Render
Settings), and the two renders compared (issue 41: mean difference at most 1/255, no specks).

For each shot it writes, under `--out`: `<shot>-decimated.png`, `<shot>-undecimated.png`, a
difference image `<shot>-diff.png` (|a - b| of the displayed values, times 8) and prints the
figures of `render_support.compare_renders` (mean difference in 1/255, specks: connected
groups of liquid pixels whose displayed value differs by more than 0.1).

Run from the repository root after `cargo build --release` and building the wheel:

    /work/main/.venv/bin/python tools/decimation_diff.py --cache /work/cache/honey-drop \
        --shots drop-50,drop-150 [--max-error 0.02] [--samples 64] [--size 640 400]

The particle cache is only read: its files are copied to `--work` and meshed there.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="gloop_blender_user_"))

import bpy
import numpy as np
from mathutils import Vector

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "blender"))
sys.path.insert(0, os.path.join(REPO, "tools"))

import harness  # after sys.path: both live beside the tests
import lookbook
import render_support


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", required=True, help="a particle cache of the shots' demo")
    parser.add_argument("--shots", default="drop-50,drop-150")
    parser.add_argument("--out", default=os.path.join(tempfile.gettempdir(), "gloop_decimation"))
    parser.add_argument("--work", default=None, help="where the meshed copies go")
    parser.add_argument("--gloop", default=os.path.join(REPO, "target", "release", "gloop"))
    parser.add_argument("--max-error", type=float, default=0.02)
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--size", type=int, nargs=2, default=(640, 400))
    parser.add_argument("--no-denoise", action="store_true")
    parser.add_argument("--keep-meshes", action="store_true", help="reuse meshed copies")
    parser.add_argument(
        "--noise",
        action="store_true",
        help="also compare the undecimated render with one of another seed (the noise floor)",
    )
    args = parser.parse_args()
    args.shots = [s for s in args.shots.split(",") if s]
    for s in args.shots:
        if not isinstance(lookbook.SHOTS.get(s), lookbook.DemoShot):
            parser.error(f"{s} is not a demo shot of the look book")
    args.work = args.work or os.path.join(args.out, "caches")
    return args


def meshed_copy(args, name, frame, max_error):
    """A copy of the particle cache with `frame` meshed at `max_error`."""
    folder = os.path.join(args.work, name)
    surface = lookbook.surface_file(folder, frame)
    if not (args.keep_meshes and os.path.exists(surface)):
        if not os.path.isdir(folder):
            shutil.copytree(args.cache, folder)
            for root, _dirs, files in os.walk(folder):
                for f in files:
                    os.chmod(os.path.join(root, f), 0o644)
        frames = f"{frame}..{frame}"
        command = [args.gloop, "mesh", folder, "--frames", frames, "--max-error", str(max_error)]
        subprocess.run(command, check=True)
    return folder


def render(args, cache, shot, png, tmp, seed=0):
    """The look book's shot of `cache`: (linear pixels, displayed pixels, liquid mask)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    assert bpy.ops.gloop.open_cache(directory=cache) == {"FINISHED"}
    scene.frame_set(shot.frame)
    liquid = scene.gloop.liquid_object
    lo, hi = lookbook.liquid_bounds(liquid)
    target = Vector(shot.view.target) if shot.view.target else (lo + hi) / 2.0
    lookbook.light_and_camera(scene, shot.view, target)
    scene.render.engine = "CYCLES"
    if bpy.ops.gloop.liquid_render_settings.poll():
        bpy.ops.gloop.liquid_render_settings()
    size = tuple(args.size)
    inside = render_support.silhouette(scene, liquid, tmp, size)
    exr = os.path.join(tmp, "shot.exr")
    denoise = not args.no_denoise
    render_support.render_linear(
        scene, exr, size, args.samples, png_path=png, denoise=denoise, seed=seed
    )
    return render_support.read_png(png), inside


def main():
    args = arguments()
    os.makedirs(args.out, exist_ok=True)
    _addon, cleanup = harness.enable_extension()
    results = []
    try:
        for name in args.shots:
            shot = lookbook.SHOTS[name]
            shown = {}
            for variant, max_error in [("decimated", args.max_error), ("undecimated", 0.0)]:
                cache = meshed_copy(args, variant, shot.frame, max_error)
                png = os.path.join(args.out, f"{name}-{variant}.png")
                with tempfile.TemporaryDirectory(prefix="gloop_decimation_") as tmp:
                    shown[variant] = render(args, cache, shot, png, tmp)
            (a, inside_a), (b, inside_b) = shown["decimated"], shown["undecimated"]
            figures = render_support.compare_renders(a, b, inside_a | inside_b)
            figures["shot"] = name
            diff = np.clip(8.0 * np.abs(a - b), 0.0, 1.0)
            render_support.write_png(diff, os.path.join(args.out, f"{name}-diff.png"))
            print(json.dumps(figures), flush=True)
            results.append(figures)
            if args.noise:
                cache = meshed_copy(args, "undecimated", shot.frame, 0.0)
                png = os.path.join(args.out, f"{name}-undecimated-seed1.png")
                with tempfile.TemporaryDirectory(prefix="gloop_decimation_") as tmp:
                    c, inside_c = render(args, cache, shot, png, tmp, seed=1)
                noise = render_support.compare_renders(c, b, inside_c | inside_b)
                noise["shot"] = f"{name} noise (undecimated, seeds 1 and 0)"
                print(json.dumps(noise), flush=True)
                results.append(noise)
    finally:
        cleanup()
    with open(os.path.join(args.out, "figures.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # bpy 4.5 can hang at exit (BLENDER_NOTES §5)
