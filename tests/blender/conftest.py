"""pytest on real Blender (the `bpy` module): the Gloop extension enabled from the source folder.

BLENDER_NOTES §5: a session fixture registers a local extension repository whose folder holds
a `gloop` link to `blender_addon/`, then `addon_utils.enable("bl_ext.gloop_dev.gloop")`, which
also installs the wheels listed in the manifest (build them first:
`python blender_addon/build.py --skip-zip`). Each test starts from an empty home file.
Run under `timeout`: bpy 4.5 can hang at exit if a callback outside an add-on stays registered.
"""

import os
import sys
import tempfile

# Isolated user resources (extensions, installed wheels, user presets), set before bpy starts,
# so tests never read or write the real Blender configuration.
os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="gloop_blender_user_"))

import bpy
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness


@pytest.fixture(scope="session")
def addon():
    module, cleanup = harness.enable_extension()
    yield module
    cleanup()


@pytest.fixture
def empty_scene(addon, tmp_path):
    bpy.ops.wm.read_homefile(use_empty=True)
    scene = bpy.context.scene
    scene.gloop.cache_dir = str(tmp_path / "cache")
    return scene


def pytest_unconfigure(config):
    # Last resort against the bpy 4.5 exit hang (BLENDER_NOTES §5): leave without atexit.
    if os.environ.get("GLOOP_TEST_HARD_EXIT", "1") == "1":
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(getattr(config, "_gloop_exitstatus", 0))


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session, exitstatus):
    session.config._gloop_exitstatus = int(exitstatus)
