"""The installable zip (built by `python blender_addon/build.py`) installs and works."""

import glob
import os
import subprocess
import sys

import pytest

REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_extension_zip_installs_and_enables(tmp_path):
    zips = glob.glob(os.path.join(REPO_DIR, "dist", "gloop-*-linux_x64.zip"))
    if not zips:
        pytest.fail("no dist/gloop-*-linux_x64.zip: run `python blender_addon/build.py` first")
    env = dict(os.environ, BLENDER_USER_RESOURCES=str(tmp_path))
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "install_zip_check.py")
    done = subprocess.run(
        [sys.executable, script, zips[0]],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "installed 0.1.0" in done.stdout
