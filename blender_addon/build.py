"""Builds the installable Gloop extension zips in one command.

    python blender_addon/build.py [--zig] [--all-platforms] [--output-dir dist]
                                  [--blender-ext PATH] [--skip-zip]

1. `maturin build --release` makes the `gloop_core` abi3 wheel for this machine (with `--zig`,
   tagged manylinux_2_28 to match Blender's glibc; needs `pip install ziglang`). With
   `--all-platforms` (needs `--zig` and `rustup target add x86_64-pc-windows-gnu
   aarch64-apple-darwin x86_64-apple-darwin`) it also cross-builds the wheels for Windows x64
   and macOS arm64 and x64 (`CROSS_TARGETS`),
2. the host's wheel goes into `blender_addon/wheels/` and the manifest's `wheels` and
   `platforms` lists are rewritten (the tests enable the extension from the source folder),
3. for the zips the add-on folder is copied to `target/extension-staging/` with every wheel of
   this build, and Blender's own `blender_ext.py build --split-platforms` validates the manifest
   and writes one zip per platform (`dist/gloop-<version>-windows_x64.zip`, ...), each with
   its own wheel and `[build.generated] platforms`. Cross wheels never enter the source folder,
   so its manifest stays the same whichever platforms are built. blender_ext.py runs under plain
   Python; it comes with the `bpy` wheel (`bpy/<ver>/scripts/addons_core/bl_pkg/cli/`) or a
   Blender install.

Without `--skip-zip` a missing blender_ext.py is an error; with it, only the wheel step runs
(enough for the tests, which enable the extension from the source folder).

Windows: the GNU target, not MSVC. maturin's `--zig` links it with zig's mingw-w64 against the
UCRT (`api-ms-win-crt-*`, part of Windows 10+, which Blender 4.2+ requires) and statically
links the C++ runtime of meshoptimizer, so the `.pyd` needs only Windows' own DLLs and
`python3.dll` (PyO3 0.30 links it by `raw-dylib`, so no import library is generated or
needed: its `generate-import-lib` feature is a no-op now). A DLL's C ABI does not depend on the
compiler that built it, which is how MSVC-built CPython loads it; the MSVC target would need
cargo-xwin and Microsoft's SDK downloaded. tests/blender/test_platform_zips.py reads each
library's imports and exports.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import time

ADDON_DIR = os.path.dirname(os.path.abspath(__file__))
REPO_DIR = os.path.dirname(ADDON_DIR)
WHEELS_DIR = os.path.join(ADDON_DIR, "wheels")
MANIFEST_NAME = "blender_manifest.toml"
MANIFEST = os.path.join(ADDON_DIR, MANIFEST_NAME)
WHEELS_OUT = os.path.join(REPO_DIR, "target", "wheels-gloop-core")
STAGING_DIR = os.path.join(REPO_DIR, "target", "extension-staging", "gloop")

# Blender platform -> Rust target of the cross-built wheels (the host's, linux-x64, is built
# natively). Each wheel is tagged by maturin from its target: win_amd64, macosx_11_0_arm64 and
# macosx_10_12_x86_64 (Rust's default deployment targets; Blender 4.2+ needs macOS 11.2).
CROSS_TARGETS = {
    "windows-x64": "x86_64-pc-windows-gnu",
    "macos-arm64": "aarch64-apple-darwin",
    "macos-x64": "x86_64-apple-darwin",
}


def build_wheel(zig, target=None):
    """Builds one wheel: this machine's, or with `target` a cross-built one (via zig)."""
    out = os.path.join(WHEELS_OUT, target or "host")
    shutil.rmtree(out, ignore_errors=True)
    # Runs in the repository root, where pyproject.toml names the module and its features.
    # The venv's own maturin and zig (`pip install maturin ziglang`) come first on PATH.
    venv_bin = os.path.dirname(sys.executable)
    env = dict(os.environ, PATH=os.pathsep.join([venv_bin, os.environ.get("PATH", "")]))
    maturin = shutil.which("maturin", path=env["PATH"]) or "maturin"
    cmd = [maturin, "build", "--release", "-o", out]
    if target:
        # An abi3 wheel needs no interpreter of the target's; none runs here anyway.
        cmd += ["--zig", "--target", target]
    else:
        cmd += ["-i", sys.executable]
        if zig:
            cmd += ["--zig", "--compatibility", "manylinux_2_28"]
    subprocess.run(cmd, check=True, cwd=REPO_DIR, env=env)
    wheels = glob.glob(os.path.join(out, "gloop_core-*.whl"))
    if len(wheels) != 1:
        sys.exit(f"expected one gloop_core wheel in {out}, found {wheels}")
    return wheels[0]


def check_rust_targets(targets):
    """Says which `rustup target add` is missing before a build fails on it."""
    rustup = shutil.which("rustup")
    if rustup is None:
        return
    listed = subprocess.run(
        [rustup, "target", "list", "--installed"], capture_output=True, text=True, check=False
    )
    if listed.returncode != 0:
        return
    missing = [t for t in targets if t not in listed.stdout.split()]
    if missing:
        sys.exit(f"Rust targets missing: rustup target add {' '.join(missing)}")


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


def _replace_list(text, key, values, manifest):
    body = "".join(f'  "{v}",\n' for v in values)
    text, n = re.subn(rf"{key} = \[\n(?:  .*\n)*\]", f"{key} = [\n{body}]", text)
    if n != 1:
        sys.exit(f"could not find the {key} list in {manifest}")
    return text


def write_manifest_wheels(addon_dir):
    """Lists every wheel in the folder's wheels/ and the platforms they cover in its manifest."""
    manifest = os.path.join(addon_dir, MANIFEST_NAME)
    wheels = glob.glob(os.path.join(addon_dir, "wheels", "*.whl"))
    wheels = sorted(os.path.basename(w) for w in wheels)
    platforms = sorted({p for w in wheels for p in blender_platforms(w)})
    with open(manifest, encoding="utf-8") as f:
        text = f.read()
    text = _replace_list(text, "wheels", [f"./wheels/{w}" for w in wheels], manifest)
    text = _replace_list(text, "platforms", platforms, manifest)
    with open(manifest, "w", encoding="utf-8") as f:
        f.write(text)


def stage_addon(wheels):
    """A copy of the add-on folder holding exactly this build's wheels, for the zips."""
    shutil.rmtree(STAGING_DIR, ignore_errors=True)
    shutil.copytree(ADDON_DIR, STAGING_DIR, ignore=shutil.ignore_patterns("wheels", "__pycache__"))
    os.makedirs(os.path.join(STAGING_DIR, "wheels"))
    for wheel in wheels:
        shutil.copy2(wheel, os.path.join(STAGING_DIR, "wheels"))
    write_manifest_wheels(STAGING_DIR)
    return STAGING_DIR


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


def build_zips(blender_ext, source_dir, output_dir):
    os.makedirs(output_dir, exist_ok=True)
    # Zips of an earlier build (a platform not built this time) must not pass for this one's.
    for old in glob.glob(os.path.join(output_dir, "gloop-*.zip")):
        os.remove(old)
    subprocess.run(
        [
            sys.executable,
            blender_ext,
            "build",
            "--source-dir",
            source_dir,
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
    parser.add_argument(
        "--all-platforms",
        action="store_true",
        help="also cross-build Windows x64 and macOS arm64/x64 wheels and zips (needs --zig)",
    )
    parser.add_argument("--output-dir", default=os.path.join(REPO_DIR, "dist"))
    parser.add_argument("--blender-ext", help="path to Blender's blender_ext.py")
    parser.add_argument("--skip-zip", action="store_true", help="only build the wheels")
    args = parser.parse_args()
    if args.all_platforms and not args.zig:
        sys.exit("--all-platforms cross-builds with zig: add --zig")
    blender_ext = None
    if not args.skip_zip:
        blender_ext = args.blender_ext or find_blender_ext()
        if blender_ext is None:
            sys.exit("blender_ext.py not found: pip install bpy, or pass --blender-ext")
    targets = list(CROSS_TARGETS.values()) if args.all_platforms else []
    check_rust_targets(targets)

    host_wheel = build_wheel(args.zig)
    install_wheel(host_wheel)
    write_manifest_wheels(ADDON_DIR)
    wheels = [host_wheel]
    print(f"wheel: {host_wheel}")
    for target in targets:
        started = time.monotonic()
        wheels.append(build_wheel(True, target))
        print(f"wheel: {wheels[-1]} ({time.monotonic() - started:.0f} s)")
    if args.skip_zip:
        return
    for z in build_zips(blender_ext, stage_addon(wheels), args.output_dir):
        print(f"extension: {z}")


if __name__ == "__main__":
    main()
