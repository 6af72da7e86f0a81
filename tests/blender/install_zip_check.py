"""Installs the built extension zip the way a user does, into isolated Blender user resources,
and checks that the add-on and its bundled gloop_core work. Run by test_package.py in a child
process, because BLENDER_USER_RESOURCES must be set before bpy starts.

    BLENDER_USER_RESOURCES=<tmp> python install_zip_check.py <zip>
"""

import os
import sys

import bpy

zip_path = sys.argv[1]
result = bpy.ops.extensions.package_install_files(
    filepath=zip_path, repo="user_default", enable_on_install=True
)
assert result == {"FINISHED"}, result
import gloop_core

assert os.environ["BLENDER_USER_RESOURCES"] in gloop_core.__file__, gloop_core.__file__
assert hasattr(bpy.types.Object, "gloop") and hasattr(bpy.ops.gloop, "bake")
bpy.ops.mesh.primitive_cube_add()
bpy.context.object.gloop.type = "OBSTACLE"
print("installed", gloop_core.version(), gloop_core.__file__)
sys.stdout.flush()
os._exit(0)  # the bpy 4.5 exit hang (BLENDER_NOTES §5)
