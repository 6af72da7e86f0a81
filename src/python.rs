//! The `gloop_core` Python module (feature `python`) for the Blender add-on.
