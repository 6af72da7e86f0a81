"""Enables the Gloop extension from the source folder inside the `bpy` module (BLENDER_NOTES
§5): a local extension repository whose folder holds a `gloop` link to `blender_addon/`.
Enabling installs the wheels listed in the manifest (`python blender_addon/build.py
--skip-zip` builds them)."""

import os
import sys
import tempfile

import bpy

REPO_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ADDON_DIR = os.path.join(REPO_DIR, "blender_addon")
MODULE = "bl_ext.gloop_dev.gloop"


def _raise(e):
    raise e


def enable_extension():
    """Returns (add-on module, cleanup function)."""
    import addon_utils  # a Blender module: importable only once bpy is loaded

    repo_dir = tempfile.mkdtemp(prefix="gloop_repo_")
    os.symlink(ADDON_DIR, os.path.join(repo_dir, "gloop"))
    repos = bpy.context.preferences.extensions.repos
    repo = repos.new(name="gloop_dev", module="gloop_dev", custom_directory=repo_dir, source="USER")
    addon_utils.enable(MODULE, default_set=True, handle_error=_raise)

    def cleanup():
        addon_utils.disable(MODULE, default_set=True)
        repos.remove(repo)

    return sys.modules[MODULE], cleanup
