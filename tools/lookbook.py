"""The look book: a fixed set of Cycles shots of what Gloop makes, each with its measured figures,
so that a change to the simulation, the mesher or the material is judged by looking.

Shots (issue 41): the Quick Honey puddle at frames 12 and 48, a close-up of the pour's rope and
pile, honey-drop frames 50 and 150, a chocolate and a paint shot. The Quick Honey and chocolate
shots are made as an artist makes them, with the add-on's operators in Blender (Quick Honey,
Bake); the demo shots from `gloop demo … --no-surface` particles meshed with `gloop mesh` at
the mesher's default settings (decimation included) for the frames shown only, then opened
with Open Cache. Every shot uses the add-on's own material and its Liquid Render Settings.

For each shot it writes `<out>/<shot>.png` and, in `<out>/README.md` and `figures.json`:
- near-black: share of the liquid's pixels whose every linear channel is below 0.03;
- the median hue, saturation and value of the liquid's pixels as displayed;
- the surface's triangles and file size for that frame.

Run from the repository root after `cargo build --release` and building the wheel
(`python blender_addon/build.py --zig --skip-zip`):

    /work/main/.venv/bin/python tools/lookbook.py [--shots drop-50,paint] [--samples 64]

Bakes are kept in `--caches` (default /tmp/gloop_lookbook) and reused when they hold the frames
a shot needs; the whole book from nothing takes about half an hour on 2 cores.
"""

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass

os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="gloop_blender_user_"))

import bpy
import numpy as np
from mathutils import Vector

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "blender"))

import harness  # after sys.path: both live beside the tests
import render_support


@dataclass(frozen=True)
class View:
    """A camera looking at `target` (None: the liquid's bounding-box centre) from `distance`
    metres, `elevation` degrees above the horizon, `azimuth` degrees round from -Y."""

    distance: float
    elevation: float = 35.0
    azimuth: float = 0.0
    target: tuple | None = None
    lens: float = 60.0


@dataclass(frozen=True)
class QuickShot:
    """A cube of `size` metres made liquid by Quick Honey with `preset`, baked in Blender."""

    preset: str
    frame: int
    view: View
    size: float = 0.05


@dataclass(frozen=True)
class DemoShot:
    """Frame `frame` of `gloop demo <demo>`."""

    demo: str
    frame: int
    view: View


SHOTS = {
    "quick-honey-12": QuickShot("HONEY", 12, View(0.30, 40.0, 20.0)),
    "quick-honey-48": QuickShot("HONEY", 48, View(0.30, 40.0, 20.0)),
    "pour-rope": DemoShot("honey-pour", 72, View(0.26, 14.0, 25.0, (0.0, 0.0, 0.03))),
    "drop-50": DemoShot("honey-drop", 50, View(0.32, 20.0, 15.0, (0.0, 0.0, 0.11))),
    "drop-150": DemoShot("honey-drop", 150, View(0.55, 35.0, 15.0, (0.0, 0.0, 0.08))),
    "chocolate": QuickShot("CHOCOLATE", 24, View(0.30, 40.0, -20.0)),
    "paint": DemoShot("paint-drops", 20, View(0.30, 25.0, 10.0, (0.0, 0.0, 0.10))),
}


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shots", default=",".join(SHOTS), help="comma-separated shot names")
    parser.add_argument("--out", default=os.path.join(REPO, "docs", "lookbook"))
    parser.add_argument("--caches", default=os.path.join(tempfile.gettempdir(), "gloop_lookbook"))
    parser.add_argument("--gloop", default=os.path.join(REPO, "target", "release", "gloop"))
    parser.add_argument("--samples", type=int, default=64)
    parser.add_argument("--size", type=int, nargs=2, default=(640, 400))
    parser.add_argument("--no-denoise", action="store_true")
    args = parser.parse_args()
    args.shots = [s for s in args.shots.split(",") if s]
    unknown = [s for s in args.shots if s not in SHOTS]
    if unknown:
        parser.error(f"unknown shots {unknown}; the book has {list(SHOTS)}")
    return args


def last_complete_frame(cache_dir):
    try:
        with open(os.path.join(cache_dir, "manifest.json")) as f:
            last = json.load(f).get("last_complete_frame")
    except (OSError, ValueError):
        return None
    return last if isinstance(last, int) else None


def surface_file(cache_dir, frame):
    return os.path.join(cache_dir, f"surface_{frame:05d}.ply")


def demo_cache(args, shot):
    """The demo's particles up to the shot's frame, and that frame meshed with the defaults."""
    cache = os.path.join(args.caches, shot.demo)
    last = last_complete_frame(cache)
    if last is None or last < shot.frame:
        flag = ["--resume"] if last is not None else []
        command = [args.gloop, "demo", shot.demo, "--out", cache, "--no-surface"]
        subprocess.run([*command, "--frames", f"1..{shot.frame}", *flag], check=True)
    frames = f"{shot.frame}..{shot.frame}"
    subprocess.run([args.gloop, "mesh", cache, "--frames", frames], check=True)
    return cache


def wood_look(ob, colour=(0.80, 0.78, 0.74)):
    """A pale, slightly warm board: honey's colour reads against it as against a plate."""
    material = bpy.data.materials.new("Lookbook Board")
    if material.node_tree is None:
        material.use_nodes = True
    bsdf = next(n for n in material.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
    bsdf.inputs["Roughness"].default_value = 0.4
    ob.data.materials.clear()
    ob.data.materials.append(material)


def quick_shot_scene(args, name, shot):
    """Quick Honey on a cube, baked through the operators (reused if the cache holds it)."""
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.frame_start, scene.frame_end = 1, shot.frame
    cache = os.path.join(args.caches, f"quick-{shot.preset.lower()}")
    scene.gloop.cache_dir = cache
    bpy.ops.mesh.primitive_cube_add(size=shot.size, location=(0.0, 0.0, 2.0 * shot.size))
    cube = bpy.context.object
    cube.rotation_euler = (math.radians(12.0), math.radians(-8.0), math.radians(30.0))
    assert bpy.ops.gloop.quick_honey(liquid=shot.preset) == {"FINISHED"}
    wood_look(bpy.data.objects["Gloop Floor"])
    last = last_complete_frame(cache)
    if last is None or last < shot.frame:
        assert bpy.ops.gloop.bake(replace=True) == {"FINISHED"}, scene.gloop.status_text
    else:  # the earlier bake of the same scene: show it as a bake would
        sys.modules[harness.MODULE].playback.ensure_liquid_object(scene)
    return scene, cache


def demo_shot_scene(args, name, shot):
    cache = demo_cache(args, shot)
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    assert bpy.ops.gloop.open_cache(directory=cache) == {"FINISHED"}
    return scene, cache


def liquid_bounds(liquid):
    corners = [liquid.matrix_world @ Vector(c) for c in liquid.bound_box]
    lo = Vector([min(c[i] for c in corners) for i in range(3)])
    hi = Vector([max(c[i] for c in corners) for i in range(3)])
    return lo, hi


def light_and_camera(scene, view, target):
    render_support.sky_and_sun(scene, (0.78, 0.82, 0.90), 4.0)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    cam.data.lens = view.lens
    cam.data.clip_start = view.distance / 100.0
    scene.collection.objects.link(cam)
    up, round_ = math.radians(view.elevation), math.radians(view.azimuth)
    offset = Vector(
        (
            math.sin(round_) * math.cos(up),
            -math.cos(round_) * math.cos(up),
            math.sin(up),
        )
    )
    cam.location = target + view.distance * offset
    cam.rotation_euler = (target - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam


def shoot(args, name):
    shot = SHOTS[name]
    make = quick_shot_scene if isinstance(shot, QuickShot) else demo_shot_scene
    scene, cache = make(args, name, shot)
    scene.frame_set(shot.frame)
    liquid = scene.gloop.liquid_object
    lo, hi = liquid_bounds(liquid)
    target = Vector(shot.view.target) if shot.view.target else (lo + hi) / 2.0
    light_and_camera(scene, shot.view, target)
    scene.render.engine = "CYCLES"
    if bpy.ops.gloop.liquid_render_settings.poll():
        bpy.ops.gloop.liquid_render_settings()
    size = tuple(args.size)
    png = os.path.join(args.out, f"{name}.png")
    with tempfile.TemporaryDirectory(prefix="gloop_lookbook_") as tmp:
        inside = render_support.silhouette(scene, liquid, tmp, size)
        pixels = render_support.render_linear(
            scene,
            os.path.join(tmp, "shot.exr"),
            size,
            args.samples,
            png_path=png,
            denoise=not args.no_denoise,
        )
    display = render_support.read_png(png)
    hue, saturation, value = render_support.median_hsv(display, inside)
    surface = surface_file(cache, shot.frame)
    figures = {
        "shot": name,
        "frame": shot.frame,
        "near_black": render_support.near_black_fraction(pixels, inside),
        "liquid_pixels": int(inside.sum()),
        "hue": hue,
        "saturation": saturation,
        "value": value,
        "triangles": len(liquid.data.polygons),
        "surface_bytes": os.path.getsize(surface) if os.path.exists(surface) else None,
    }
    print(json.dumps(figures), flush=True)
    return figures


def write_index(out, figures):
    path = os.path.join(out, "figures.json")
    book = {}
    if os.path.exists(path):
        with open(path) as f:
            book = {entry["shot"]: entry for entry in json.load(f)}
    book.update({entry["shot"]: entry for entry in figures})
    ordered = [book[name] for name in SHOTS if name in book]
    with open(path, "w") as f:
        json.dump(ordered, f, indent=1)
    lines = [
        "# Look book",
        "",
        (
            "Made by `tools/lookbook.py` (Cycles, the add-on's material and Liquid Render "
            "Settings, the mesher's default surface settings). Near-black: share of the liquid's "
            "pixels whose every linear channel is below 0.03. Hue, saturation and value: medians "
            "over the liquid's pixels as displayed."
        ),
        "",
        "| shot | frame | near-black | hue | sat. | value | triangles | surface file |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for e in ordered:
        size = "" if e["surface_bytes"] is None else f"{e['surface_bytes'] / 1e6:.2f} MB"
        lines.append(
            f"| {e['shot']} | {e['frame']} | {100 * e['near_black']:.2f}% | {e['hue']:.0f}° | "
            f"{e['saturation']:.2f} | {e['value']:.2f} | {e['triangles']:,} | {size} |"
        )
    lines.append("")
    lines += [f"![{e['shot']}]({e['shot']}.png)\n" for e in ordered]
    with open(os.path.join(out, "README.md"), "w") as f:
        f.write("\n".join(lines))


def main():
    args = arguments()
    os.makedirs(args.out, exist_ok=True)
    os.makedirs(args.caches, exist_ok=True)
    _addon, cleanup = harness.enable_extension()
    try:
        figures = [shoot(args, name) for name in args.shots]
    finally:
        cleanup()
    write_index(args.out, figures)
    worst = max(e["near_black"] for e in figures)
    print(f"wrote {len(figures)} shots to {args.out}; worst near-black {100 * worst:.2f}%")
    return np.isfinite(worst)


if __name__ == "__main__":
    main()
    sys.stdout.flush()
    os._exit(0)  # bpy 4.5 can hang at exit (BLENDER_NOTES §5)
