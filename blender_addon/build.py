"""Builds the installable Gloop extension zip in one command.

    python blender_addon/build.py [--zig] [--output-dir dist] [--blender-ext PATH]

1. `maturin build --release` makes the `gloop_core` abi3 wheel (with `--zig`, tagged
   manylinux_2_28 to match Blender's glibc; needs `pip install ziglang`),
2. the wheel goes into `blender_addon/wheels/` and the manifest's `wheels` list is rewritten,
3. Blender's own `blender_ext.py build --split-platforms` validates the manifest and writes
   one zip per platform. It runs under plain Python; it comes with the `bpy` wheel
   (`bpy/<ver>/scripts/addons_core/bl_pkg/cli/blender_ext.py`) or a Blender install.

Without `--skip-zip` a missing blender_ext.py is an error; with it, only the wheel step runs
(enough for the tests, which enable the extension from the source folder).
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

ADDON_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(ADDON_DIR)
WHEELS_DIR = os.path.join(ADDON_DIR, "wheels")
MANIFEST = os.path.join(ADDON_DIR, "blender_manifest.toml")


def build_wheel(zig):
    out = os.path.join(REPO_DIR, "target", "wheels-gloop-core")
    shutil.rmtree(out, ignore_errors=True)
    # Runs in the repository root, where pyproject.toml names the module and its features.
    # The venv's own maturin and zig (`pip install maturin ziglang`) come first on PATH.
    venv_bin = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=os.pathsep.join([venv_bin, os.environ.get("PATH", "")]))
    maturin = shutil.which("maturin", path=env["PATH"]) or "maturin"
    cmd = [maturin, "build", "--release", "-i", sys.executable, "-o", out]
    if zig:
        cmd += ["--zig", "--compatibility", "manylinux_2_28"]
    subprocess.run(cmd, check=True, cwd=REPO_DIR, env=env)
    wheels = glob.glob(os.path.join(out, "gloop_core-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"expected one gloop_core wheel in {out}, found {wheels}")
    return wheels[0]


def install_wheel(wheel):
    """Copies the wheel into wheels/, replacing older ones for the same Blender platform
    (e.g. a manylinux_2_34 wheel by a manylinux_2_28 one)."""
    os.makedirs(WHEELS_DIR, exist_ok=True)
    platforms = set(blender_platforms(os.path.basename(wheel)))
    for old in glob.glob(os.path.join(WHEELS_DIR, "gloop_core-*.whl")):
        if platforms & set(blender_platforms(os.path.basename(old))):
            os.remove(old)
    shutil.copy2(wheel, WHEELS_DIR)


def blender_platforms(wheel_name):
    """Blender platform names served by a wheel (as `blender_ext.py` maps them)."""
    tag = wheel_name[: -len(".whl")].rsplit("-", 1)[1]
    if "universal2" in tag:
        return ["macos-arm64", "macos-x64"]
    rules = [
        ("linux", "x86_64", "linux-x64"),
        ("linux", "aarch64", "linux-arm64"),
        ("macosx", "arm64", "macos-arm64"),
        ("macosx", "x86_64", "macos-x64"),
        ("win", "amd64", "windows-x64"),
        ("win", "arm64", "windows-arm64"),
    ]
    return [name for os_part, arch, name in rules if os_part in tag and arch in tag]


def _replace_list(text, key, values):
    body = "".join(f'  "{v}",\n' for v in values)
    text, n = re.subn(rf"{key} = \[\n(?:  .*\n)*\]", f"{key} = [\n{body}]", text)
    if n != 1:
        sys.exit(f"could not find the {key} list in {MANIFEST}")
    return text


def write_manifest_wheels():
    """Lists every wheel in wheels/ and the platforms they cover in the manifest."""
    wheels = sorted(os.path.basename(w) for w in glob.glob(os.path.join(WHEELS_DIR, "*.whl")))
    platforms = sorted({p for w in wheels for p in blender_platforms(w)})
    with open(MANIFEST, encoding="utf-8") as f:
        text = f.read()
    text = _replace_list(text, "wheels", [f"./wheels/{w}" for w in wheels])
    text = _replace_list(text, "platforms", platforms)
    with open(MANIFEST, "w", encoding="utf-8") as f:
        f.write(text)


def find_blender_ext():
    """Blender's extension tool, from the installed `bpy` wheel (found without importing it)."""
    import importlib.util

    spec = importlib.util.find_spec("bpy")
    roots = list(spec.submodule_search_locations or []) if spec else []
    for root in roots:
        pattern = os.path.join(
            root, "*", "scripts", "addons_core", "bl_pkg", "cli", "blender_ext.py"
        )
        found = sorted(glob.glob(pattern))
        if found:
            return found[-1]
    return None


def build_zip(blender_ext, output_dir):
    os.makedirs(output_dir, exist_ok=True)
    subprocess.run(
        [
            sys.executable,
            blender_ext,
            "build",
            "--source-dir",
            ADDON_DIR,
            "--output-dir",
            output_dir,
            "--split-platforms",
        ],
        check=True,
    )
    return sorted(glob.glob(os.path.join(output_dir, "gloop-*.zip")))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--zig", action="store_true", help="manylinux_2_28 wheel via zig")
    parser.add_argument("--output-dir", default=os.path.join(REPO_DIR, "dist"))
    parser.add_argument("--blender-ext", help="path to Blender's blender_ext.py")
    parser.add_argument("--skip-zip", action="store_true", help="only build the wheel")
    args = parser.parse_args()
    wheel = build_wheel(args.zig)
    install_wheel(wheel)
    write_manifest_wheels()
    print(f"wheel: {wheel}")
    if args.skip_zip:
        return
    blender_ext = args.blender_ext or find_blender_ext()
    if blender_ext is None:
        sys.exit("blender_ext.py not found: pip install bpy, or pass --blender-ext")
    for z in build_zip(blender_ext, args.output_dir):
        print(f"extension: {z}")


if __name__ == "__main__":
    main()
