"""Re-mesh: the cached particles meshed again with the Surface panel's Resolution,
Smoothness and Decimation, without re-simulating (particle files are only read).

It runs `gloop_core.mesh` (the same code as `gloop mesh`) in a child process like a bake
(`bake_runner`), so progress comes from `status.json` and Cancel creates the `cancel` file,
which the mesher checks between frames. The core holds the cache lock, so a re-mesh never runs
beside a bake, and it refuses out-of-range settings naming the field.
"""

import os

import bpy

from . import bake_runner, cache_lock, operators, playback

CHILD_CODE = """
import json
import sys
import gloop_core
try:
    gloop_core.mesh(sys.argv[1], **json.loads(sys.argv[2]))
except gloop_core.GloopError as e:
    print(f"gloop bake failed: {e}", file=sys.stderr)
    sys.exit(2)
except BaseException as e:  # a Rust panic arrives as PanicException, a BaseException
    print(f"gloop bake failed: the mesher crashed: {type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(3)
"""

# The one running re-mesh.
_job = None


class RemeshJob(bake_runner.BakeJob):
    """One re-mesh child process; polled, cancelled and judged like a bake."""

    log_name = "remesh.log"

    def __init__(self, cache_dir, options):
        """`options`: keyword arguments of `gloop_core.mesh` (surface settings, frames)."""
        self._start_child(cache_dir, CHILD_CODE, [cache_dir], options)


def running_job():
    return _job if _job is not None and _job.process.poll() is None else None


def remesh_options(scene):
    s = scene.gloop
    return {
        "surface_resolution": s.surface_resolution,
        "surface_smoothness": s.surface_smoothness,
        "max_error": s.surface_max_error,
    }


def _start(operator, context):
    global _job
    scene = context.scene
    if running_job() is not None or operators.running_job() is not None:
        operator.report({"ERROR"}, "A Gloop bake or re-mesh is already running")
        return None
    cache_dir = operators.cache_folder(scene)
    if cache_dir is None:
        operator.report({"ERROR"}, "Save the .blend first, or set an absolute cache folder")
        return None
    if not os.path.isfile(os.path.join(cache_dir, "manifest.json")):
        operator.report({"ERROR"}, f"Nothing to re-mesh: no baked cache in {cache_dir}")
        return None
    # Refused, touching nothing (not even its status or cancel file), while another Blender
    # or a terminal `gloop` holds the folder; the child clears an earlier run's status and
    # cancel only once it holds the lock itself (`started_at`).
    try:
        _job = RemeshJob(cache_dir, remesh_options(scene))
    except bake_runner.CacheInUse as e:
        operator.report({"ERROR"}, str(e))
        return None
    cache_lock.forget()
    scene.gloop.is_baking = True
    scene.gloop.progress = 0.0
    scene.gloop.status_text = "Re-meshing…"
    scene.gloop.stats_text = ""
    return _job


def _update(scene, job):
    scene.gloop.progress = bake_runner.progress_fraction(job.status)
    status = job.status or {}
    done, total = status.get("frames_done", 0), status.get("frames_total", 0)
    scene.gloop.status_text = f"Re-meshing: {done}/{total} frames" if total else "Re-meshing…"
    scene.gloop.stats_text = bake_runner.stats_text(job.status)


def _finish(operator, scene, job):
    scene.gloop.is_baking = False
    state, message = job.outcome()
    _update(scene, job)
    playback.load_frame(scene, scene.frame_current)
    status = job.status or {}
    done = status.get("frames_done", 0)
    if state == "finished":
        scene.gloop.status_text = f"Re-meshed {done} frames"
        operator.report({"INFO"}, f"Gloop re-mesh finished ({done} frames)")
        return {"FINISHED"}
    if state == "cancelled":
        scene.gloop.status_text = f"Re-mesh cancelled after {done} frames"
        operator.report(
            {"WARNING"}, "Gloop re-mesh cancelled; frames not reached keep their old surface"
        )
        return {"CANCELLED"}
    scene.gloop.status_text = f"Re-mesh failed: {message}"
    operator.report({"ERROR"}, f"Gloop re-mesh failed: {message}")
    return {"CANCELLED"}


class GLOOP_OT_remesh(bpy.types.Operator):
    """Mesh the cached particles again with these surface settings, without re-simulating
    (in a separate process; Esc cancels)"""

    bl_idname = "gloop.remesh"
    bl_label = "Re-mesh"

    _timer = None
    _scene = None

    @classmethod
    def poll(cls, context):
        return (
            context.scene is not None and running_job() is None and operators.running_job() is None
        )

    def execute(self, context):
        job = _start(self, context)
        if job is None:
            return {"CANCELLED"}
        job.wait(on_poll=lambda j: _update(context.scene, j))
        return _finish(self, context.scene, job)

    def invoke(self, context, _event):
        if bpy.app.background:
            return self.execute(context)
        if _start(self, context) is None:
            return {"CANCELLED"}
        self._scene = context.scene
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.1, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        job, scene = _job, self._scene
        if event.type == "ESC" and event.value == "PRESS":
            job.cancel()
            return {"RUNNING_MODAL"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        running = job.poll()
        _update(scene, job)
        for area in context.screen.areas if context.screen else ():
            if area.type in {"PROPERTIES", "VIEW_3D"}:
                area.tag_redraw()
        if running:
            return {"PASS_THROUGH"}
        context.window_manager.event_timer_remove(self._timer)
        return _finish(self, scene, job)


class GLOOP_OT_remesh_cancel(bpy.types.Operator):
    """Stop the re-mesh before its next frame; frames done keep their new surface"""

    bl_idname = "gloop.remesh_cancel"
    bl_label = "Cancel Re-mesh"

    @classmethod
    def poll(cls, _context):
        return running_job() is not None

    def execute(self, _context):
        running_job().cancel()
        return {"FINISHED"}


class PHYSICS_PT_gloop_surface(bpy.types.Panel):
    """The surface mesh settings, and Re-mesh to apply new ones to a finished bake."""

    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "physics"
    bl_label = "Surface"
    bl_parent_id = "PHYSICS_PT_gloop_bake"

    def draw_header(self, context):
        self.layout.prop(context.scene.gloop, "mesh_surface", text="")

    def draw(self, context):
        s = context.scene.gloop
        layout = self.layout
        layout.use_property_split = True
        col = layout.column(align=True)
        col.active = s.mesh_surface
        col.prop(s, "surface_resolution", text="Resolution")
        col.prop(s, "surface_smoothness")
        col.prop(s, "surface_max_error")
        if running_job() is not None:
            layout.operator("gloop.remesh_cancel", icon="CANCEL")
        else:
            # Greyed like Bake while another process holds the folder (the Bake panel says
            # who); the operator refuses too.
            row = layout.row()
            row.enabled = not cache_lock.in_use_by(operators.cache_folder(context.scene))
            row.operator("gloop.remesh", icon="MOD_REMESH")


CLASSES = (GLOOP_OT_remesh, GLOOP_OT_remesh_cancel, PHYSICS_PT_gloop_surface)


def cancel_running():
    job = running_job()
    if job is not None:
        job.cancel()


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister():
    cancel_running()
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
