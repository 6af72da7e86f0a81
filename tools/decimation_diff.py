"""Decimated against undecimated: a demo frame meshed both ways by `gloop mesh`, each rendered
with Cycles as the look book shows it (same shot, camera, lights, material and Liquid Render
Settings), and the two renders compared (issue 41: mean difference at most 1/255, no specks).

Each mesh is rendered with seeds 0 and 1. Specks are tests/blender/specks.py's: the decimated
and undecimated renders of seed 0 compared against the noise between the undecimated ones.
For each shot it writes, under `--out`: the renders `<shot>-<variant>-seed<n>.png` (and .npz,
which `--keep-renders` measures again), `<shot>-diff.png` (|decimated - undecimated|, seed 0,
times 8), `<shot>-noise.png` (the same for the undecimated seeds 0 and 1), `<shot>-groups.png`
(per differing group, enlarged 4x: decimated, undecimated, undecimated seed 1, difference) and
prints, per shot (also in figures.json):
- `mean_difference_255`, `liquid_mean_difference_255`: the mean difference in 1/255, whole
  picture and the liquid's pixels (render_support.compare_renders);
- `specks`, `patches`: the differing groups of at most and over specks.SPECK_PIXELS pixels,
  and `groups`, each described (rows count from the bottom, as Blender stores images);
- `specks_seed1`, `patches_seed1`: the same for the renders of seed 1 (a speck of the mesh
  shows again);
- `null_specks`, `null_patches`: the null: the undecimated renders of seeds 1 and 0 judged by
  the same measure (the floor then from the decimated seeds): what noise alone would count;
- `step_only_groups`: groups differing by more than specks.SPECK_STEP, with no noise floor and
  no shift tolerance (the measure before).

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
import specks


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
        "--keep-renders", action="store_true", help="measure the renders of an earlier run"
    )
    args = parser.parse_args()
    args.shots = [s for s in args.shots.split(",") if s]
    for s in args.shots:
        if not isinstance(lookbook.SHOTS.get(s), lookbook.DemoShot):
            parser.error(f"{s} is not a demo shot of the look book")
    args.work = args.work or os.path.join(args.out, "caches")
    return args


# The (variant, frame) meshed by this run: the second seed's render reuses the mesh.
MESHED = set()


def meshed_copy(args, name, frame, max_error):
    """A copy of the particle cache with `frame` meshed at `max_error`."""
    folder = os.path.join(args.work, name)
    surface = lookbook.surface_file(folder, frame)
    done = (args.keep_meshes or (name, frame) in MESHED) and os.path.exists(surface)
    if not done:
        if not os.path.isdir(folder):
            shutil.copytree(args.cache, folder)
            for root, _dirs, files in os.walk(folder):
                for f in files:
                    os.chmod(os.path.join(root, f), 0o644)
        frames = f"{frame}..{frame}"
        command = [args.gloop, "mesh", folder, "--frames", frames, "--max-error", str(max_error)]
        subprocess.run(command, check=True)
        MESHED.add((name, frame))
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


def rendered(args, name, shot, variant, max_error, seed):
    """The shot of the frame meshed at `max_error`, rendered with `seed`: (displayed pixels,
    liquid mask), kept as `<shot>-<variant>-seed<seed>.npz` so that `--keep-renders` measures
    again without rendering."""
    stem = os.path.join(args.out, f"{name}-{variant}-seed{seed}")
    if args.keep_renders and os.path.exists(stem + ".npz"):
        kept = np.load(stem + ".npz")
        return kept["display"], kept["inside"]
    cache = meshed_copy(args, variant, shot.frame, max_error)
    with tempfile.TemporaryDirectory(prefix="gloop_decimation_") as tmp:
        display, inside = render(args, cache, shot, stem + ".png", tmp, seed=seed)
    np.savez_compressed(stem + ".npz", display=display, inside=inside)
    return display, inside


def counted(groups):
    return {"count": len(groups), "pixels": int(sum(g["pixels"] for g in groups))}


def measure(args, name, shown):
    """The figures of one shot (see the module's notes), and its difference image and crops."""
    (dec0, in_dec0), (dec1, in_dec1) = shown["decimated", 0], shown["decimated", 1]
    (und0, in_und0), (und1, in_und1) = shown["undecimated", 0], shown["undecimated", 1]
    inside = in_dec0 | in_und0
    figures = {"shot": name, **render_support.compare_renders(dec0, und0, inside)}
    floor = specks.noise_floor(und0, und1)
    found, patches = specks.specks_and_patches(dec0, und0, floor, inside)
    figures["specks"] = counted(found)
    figures["patches"] = counted(patches)
    figures["groups"] = found + patches
    # The same measure on the other seed: a speck of the mesh is there again.
    again, again_patches = specks.specks_and_patches(dec1, und1, floor, in_dec1 | in_und1)
    figures["specks_seed1"] = counted(again)
    figures["patches_seed1"] = counted(again_patches)
    # The null: two renders of ONE mesh (the undecimated), other seeds, judged against the
    # decimated mesh's own noise. Any speck here is noise the measure failed to see as noise.
    null_floor = specks.noise_floor(dec0, dec1)
    null, null_patches = specks.specks_and_patches(und1, und0, null_floor, in_und0 | in_und1)
    figures["null_specks"] = counted(null)
    figures["null_patches"] = counted(null_patches)
    # The step alone (the measure before the noise floor), for comparison.
    step = specks.connected_groups(
        (specks.channel_difference(dec0, und0) > specks.SPECK_STEP) & inside
    )
    figures["step_only_groups"] = len(step)
    diff = np.clip(8.0 * np.abs(dec0 - und0), 0.0, 1.0)
    render_support.write_png(diff, os.path.join(args.out, f"{name}-diff.png"))
    noise = np.clip(8.0 * np.abs(und1 - und0), 0.0, 1.0)
    render_support.write_png(noise, os.path.join(args.out, f"{name}-noise.png"))
    if figures["groups"]:
        sheet = crops(figures["groups"], [dec0, und0, und1, diff])
        render_support.write_png(sheet, os.path.join(args.out, f"{name}-groups.png"))
    return figures


CROP = 24  # half the side of a crop around a group, in pixels
ZOOM = 4


def crops(groups, images):
    """One row per group (at most 12): the crop around it from each of `images`, enlarged."""
    rows = []
    for group in groups[:12]:
        r, c = (round(v) for v in group["row_col"])
        tiles = []
        for image in images:
            h, w = image.shape[:2]
            r0, c0 = min(max(r - CROP, 0), h - 2 * CROP), min(max(c - CROP, 0), w - 2 * CROP)
            tile = image[r0 : r0 + 2 * CROP, c0 : c0 + 2 * CROP, :3]
            tile = np.repeat(np.repeat(tile, ZOOM, axis=0), ZOOM, axis=1)
            tiles.append(np.pad(tile, ((2, 2), (2, 2), (0, 0)), constant_values=1.0))
        rows.append(np.concatenate(tiles, axis=1))
    return np.concatenate(rows[::-1], axis=0)  # bottom row first: the first group on top


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
                for seed in (0, 1):
                    shown[variant, seed] = rendered(args, name, shot, variant, max_error, seed)
            figures = measure(args, name, shown)
            print(json.dumps(figures), flush=True)
            results.append(figures)
    finally:
        cleanup()
    with open(os.path.join(args.out, "figures.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # bpy 4.5 can hang at exit (BLENDER_NOTES §5)
