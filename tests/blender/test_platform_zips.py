"""The four platform zips (`python blender_addon/build.py --zig --all-platforms`) hold what
Blender on that platform installs and loads: the manifest names the zip's platform, its one
wheel is tagged for it, and the native library in the wheel is built for that CPU, exports
`PyInit_gloop_core` and links only what every such machine has.

Windows and macOS can't run here, so their libraries are read, not loaded
(native_library.py); the Linux zip is also installed and run by test_package.py.
"""

import io
import os
import tomllib
import zipfile

import pytest
from native_library import read_native_library

REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIST = os.path.join(REPO_DIR, "dist")
BUILD_COMMAND = "python blender_addon/build.py --zig --all-platforms"

# Blender platform -> (wheel platform tag, native format, CPU, the library's name in the
# wheel: a name the platform's CPython imports as an abi3 module).
PLATFORMS = {
    "linux-x64": ("manylinux_2_28_x86_64", "ELF", "x86_64", "gloop_core.abi3.so"),
    "windows-x64": ("win_amd64", "PE", "x86_64", "gloop_core.pyd"),
    "macos-arm64": ("macosx_11_0_arm64", "Mach-O", "arm64", "gloop_core.abi3.so"),
    "macos-x64": ("macosx_10_12_x86_64", "Mach-O", "x86_64", "gloop_core.abi3.so"),
}
# Blender 4.2 LTS, the oldest the manifest allows, needs macOS 11.2.
BLENDER_MIN_MACOS = (11, 2)

# DLLs every Windows 10+ machine has (Blender 4.2+ needs Windows 10); `python3.dll`, the stable
# ABI's forwarder, ships with CPython and so with Blender. A mingw runtime DLL
# (libgcc_s_seh-1.dll, libstdc++-6.dll, libwinpthread-1.dll) or a versioned python311.dll
# here would fail the import on an artist's machine or on the next Blender's Python.
WINDOWS_SYSTEM_DLLS = {
    "kernel32.dll",
    "ntdll.dll",
    "advapi32.dll",
    "bcrypt.dll",
    "bcryptprimitives.dll",
    "userenv.dll",
    "ws2_32.dll",
    "ucrtbase.dll",
}
# macOS: libraries of the OS itself (dyld's shared cache); libpython is never linked, the
# interpreter's symbols resolve when it loads the module.
MACOS_SYSTEM_PREFIXES = ("/usr/lib/", "/System/Library/")


def zip_path(platform):
    version = _addon_version()
    return os.path.join(DIST, f"gloop-{version}-{platform.replace('-', '_')}.zip")


def _addon_version():
    with open(os.path.join(REPO_DIR, "blender_addon", "blender_manifest.toml"), "rb") as f:
        return tomllib.load(f)["version"]


def effective_manifest(archive):
    """The manifest as Blender applies it: `[build.generated]` (written by --split-platforms)
    replaces `platforms` and `wheels`."""
    manifest = tomllib.loads(archive.read("blender_manifest.toml").decode("utf-8"))
    generated = manifest.get("build", {}).get("generated", {})
    return {**manifest, **generated}


@pytest.fixture(params=sorted(PLATFORMS), ids=sorted(PLATFORMS))
def platform_zip(request):
    path = zip_path(request.param)
    if not os.path.exists(path):
        pytest.fail(f"no {os.path.relpath(path, REPO_DIR)}: run `{BUILD_COMMAND}` first")
    with zipfile.ZipFile(path) as archive:
        yield request.param, archive


def the_wheel(platform, archive):
    manifest = effective_manifest(archive)
    assert manifest["platforms"] == [platform]
    assert len(manifest["wheels"]) == 1, manifest["wheels"]
    wheel_path = manifest["wheels"][0].removeprefix("./")
    assert wheel_path in archive.namelist(), f"{wheel_path} is listed but not in the zip"
    wheels_in_zip = [n for n in archive.namelist() if n.endswith(".whl")]
    assert wheels_in_zip == [wheel_path], "a zip carries only its own platform's wheel"
    return wheel_path, archive.read(wheel_path)


def test_zip_names_its_platform_and_wheel_tag(platform_zip):
    platform, archive = platform_zip
    wheel_path, wheel_bytes = the_wheel(platform, archive)
    # name-version-python-abi-platform.whl; abi3 from 3.11 (Blender 4.2-5.0 bundle 3.11)
    _name, _version, python, abi, tag = os.path.basename(wheel_path)[: -len(".whl")].split("-")
    assert (python, abi, tag) == ("cp311", "abi3", PLATFORMS[platform][0])
    with zipfile.ZipFile(io.BytesIO(wheel_bytes)) as wheel:
        metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/WHEEL"))
        tags = [
            line.split(":", 1)[1].strip()
            for line in wheel.read(metadata).decode().splitlines()
            if line.startswith("Tag:")
        ]
    assert tags == [f"cp311-abi3-{PLATFORMS[platform][0]}"]


def test_native_library_loads_on_its_platform(platform_zip):
    platform, archive = platform_zip
    _tag, file_format, machine, library_name = PLATFORMS[platform]
    _wheel_path, wheel_bytes = the_wheel(platform, archive)
    with zipfile.ZipFile(io.BytesIO(wheel_bytes)) as wheel:
        libraries = [n for n in wheel.namelist() if n.endswith((".so", ".pyd", ".dylib"))]
        assert libraries == [f"gloop_core/{library_name}"]
        library = read_native_library(wheel.read(libraries[0]))

    assert (library.format, library.machine) == (file_format, machine)
    assert "PyInit_gloop_core" in library.exports
    if file_format == "PE":
        needed = {name.lower() for name in library.needed}
        assert "python3.dll" in needed, "abi3 links the stable ABI's python3.dll"
        unknown = {
            name
            for name in needed - {"python3.dll"} - WINDOWS_SYSTEM_DLLS
            if not name.startswith("api-ms-win-")  # Windows' API sets (the UCRT among them)
        }
        assert not unknown, f"DLLs an artist's Windows may lack: {sorted(unknown)}"
    elif file_format == "Mach-O":
        foreign = [n for n in library.needed if not n.startswith(MACOS_SYSTEM_PREFIXES)]
        assert not foreign, f"libraries outside macOS itself: {foreign}"
        assert library.min_macos is not None
        tag_version = tuple(int(x) for x in PLATFORMS[platform][0].split("_")[1:3])
        assert library.min_macos <= tag_version, "the wheel tag promises an older macOS"
        assert library.min_macos <= BLENDER_MIN_MACOS
        if machine == "arm64":
            assert library.code_signature_valid, "Apple silicon loads only signed code"
        else:
            assert library.code_signature_valid in (None, True)
    else:
        assert not any(n.startswith("libpython") for n in library.needed), library.needed


def test_reader_finds_a_loaded_module_export():
    """The ELF reader against a library this interpreter has loaded: the export it found is
    the one Python looked up, and a name it never exported is absent."""
    import _ctypes

    with open(_ctypes.__file__, "rb") as f:
        library = read_native_library(f.read())
    assert library.format == "ELF"
    assert "PyInit__ctypes" in library.exports
    assert "PyInit_gloop_core" not in library.exports
