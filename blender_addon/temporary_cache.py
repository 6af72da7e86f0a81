"""An unsaved file's cache, moved beside the .blend when the file is first saved.

Quick Honey on an unsaved file has no folder to put `//gloop_cache` in, so its bake goes to a
new temporary folder (as Blender's own fluid bakes do). Left there, the bake would be lost with
the temporary folder and the saved file would point into it, so on the first save the folder
moves to `//gloop_cache` beside the .blend (`//gloop_cache_2`, … if that is taken) and the
scene points at it, before the file is written so that the saved file has the relative path.

A bake still running at that moment keeps its folder until it finishes (`operators` calls
`settle` then); the scene records the temporary folder in `temporary_cache` until it has moved.
"""

import os
import shutil

import bpy
from bpy.app.handlers import persistent

BESIDE_THE_BLEND = "gloop_cache"


def remember(scene, folder):
    """Marks `folder` as the scene's temporary cache, to move on the first save."""
    scene.gloop.cache_dir = folder
    scene.gloop.temporary_cache = folder


def _free_name(blend_dir):
    """The first of gloop_cache, gloop_cache_2, … not yet in `blend_dir`."""
    name, n = BESIDE_THE_BLEND, 1
    while os.path.exists(os.path.join(blend_dir, name)):
        n += 1
        name = f"{BESIDE_THE_BLEND}_{n}"
    return name


def settle(scene, blend_path):
    """Moves the scene's temporary cache beside `blend_path` (the .blend being saved) and points
    the scene at it. Returns a sentence for the status line, or "" when there was nothing to
    move (no temporary cache, the artist pointed the scene elsewhere, or a bake is running)."""
    from . import cache_lock, operators

    s = scene.gloop
    folder = s.temporary_cache
    if not folder or not blend_path:
        return ""
    if os.path.normpath(bpy.path.abspath(s.cache_dir)) != os.path.normpath(folder):
        s.temporary_cache = ""  # the artist chose another folder: theirs to keep
        return ""
    if operators.running_job() is not None or cache_lock.holder_now(folder):
        return ""  # moved when the bake finishes
    blend_dir = os.path.dirname(os.path.abspath(blend_path))
    name = _free_name(blend_dir)
    try:
        if os.path.isdir(folder):
            shutil.move(folder, os.path.join(blend_dir, name))
    except OSError as e:
        return f"The cache stays in {folder}: it could not move beside the .blend ({e})"
    s.cache_dir = f"//{name}"
    s.temporary_cache = ""
    return f"Cache moved beside the .blend: //{name}"


@persistent
def _on_save_pre(*args):
    blend_path = next((a for a in args if isinstance(a, str)), "") or bpy.data.filepath
    for scene in bpy.data.scenes:
        said = settle(scene, blend_path)
        if said:
            scene.gloop.status_text = said


def register():
    bpy.app.handlers.save_pre.append(_on_save_pre)


def unregister():
    while _on_save_pre in bpy.app.handlers.save_pre:
        bpy.app.handlers.save_pre.remove(_on_save_pre)
