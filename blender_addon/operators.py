"""Bake / Resume / Cancel / Free, and the preset operator.

Bake exports the scene into the cache folder and runs the solver in a child process
(`bake_runner.BakeJob`). Interactively a modal operator polls `status.json` on a 0.1 s timer,
so the UI stays live and baked frames can be scrubbed while the bake runs; Esc or the Cancel
button creates the `cancel` file. Headless (`blender -b`, the `bpy` module) `execute()` runs
the same child and waits for it.
"""

import json
import os

import bpy

from . import (
    bake_runner,
    cache_lock,
    domain,
    estimate,
    export,
    obstacle_count,
    playback,
    preflight,
    render_settings,
    shading,
    temporary_cache,
)

# How long Bake waits for the obstacles' exact counts (`obstacle_count`) before it judges the
# scene by the area rule's figures: seconds for any floor an artist would mean.
COUNT_WAIT_SECONDS = 30.0

# The one running interactive bake (a bake owns its cache folder; one at a time).
_job = None


def running_job():
    return _job if _job is not None and _job.process.poll() is None else None


def cache_folder(scene):
    """The scene's cache folder as an absolute path; None if relative to an unsaved .blend."""
    return _cache_dir(scene)


def _cache_dir(scene):
    path = bpy.path.abspath(scene.gloop.cache_dir)
    if scene.gloop.cache_dir.startswith("//") and not bpy.data.filepath:
        # A relative cache folder needs a saved .blend to be relative to.
        return None
    return os.path.normpath(path)


def panel_figures(scene):
    """The Bake panel's figures (`preflight.preflight`) once the obstacles are counted."""
    if obstacle_count.pending():
        obstacle_count.wait(COUNT_WAIT_SECONDS)
    return preflight.preflight(scene)


def refusal_in_panel_words(figures, asks, confirmed):
    """Why Bake does not start, in the words the panel draws red: a problem (the bake would
    fail), or, when the bake `asks` (a fresh one), cautions not `confirmed`. None when it
    may start."""
    if figures.problems:
        return "Cannot bake: " + "; ".join(figures.problems)
    if asks and figures.cautions and not confirmed:
        return (
            "Bake Liquid asks to confirm: "
            + "; ".join(figures.cautions)
            + " (from a script: bpy.ops.gloop.bake(confirmed=True))"
        )
    return None


def _start(operator, context, resume, replace=False, confirmed=False):
    """Exports and starts the child; returns the job or None (after reporting why). A fresh
    bake into a folder holding an earlier bake's frames needs `replace` (the user's consent);
    one of a scene with cautions (a liquid below the resolution, over a million object
    particles) needs `confirmed`."""
    global _job
    scene = context.scene
    if running_job() is not None:  # its status line stays
        operator.report({"ERROR"}, "A Gloop bake is already running")
        return None
    cache_dir = _cache_dir(scene)
    if cache_dir is None:
        return _refuse(operator, scene, "Save the .blend first, or set an absolute cache folder")
    try:
        import gloop_core
    except ImportError as e:
        return _refuse(operator, scene, f"The Gloop core module is missing: {e}")
    # Another process (a second Blender, a terminal bake) may be writing this folder.
    holder = cache_lock.holder_now(cache_dir)
    if holder:
        return _refuse(operator, scene, f"The cache folder is in use by {holder}")
    earlier = "" if resume or replace else bake_runner.existing_bake(cache_dir)
    if earlier:
        return _refuse(operator, scene, refusal_without_consent(earlier))
    # A resume that continues a bake asks nothing: that bake was asked for when it started.
    fresh = not resume or not bake_runner.existing_bake(cache_dir)
    refusal = refusal_in_panel_words(panel_figures(scene), fresh, confirmed)
    if refusal:
        return _refuse(operator, scene, refusal)
    try:
        scene_path = export.export_scene(scene, context.evaluated_depsgraph_get(), cache_dir)
        # Clear errors before a process is started, and what the bake will not give as asked.
        warnings = gloop_core.validate_scene(scene_path)["warnings"]
    except export.ExportError as e:
        return _refuse(operator, scene, str(e))
    except (
        gloop_core.GloopError,
        OSError,
    ) as e:  # the message names the object or file
        return _refuse(operator, scene, f"Cannot bake: {e}")
    if resume:
        why_not = resume_refusal(cache_dir, scene_path)
        if why_not:
            level, message = why_not
            return _refuse(operator, scene, message, level)
    playback.ensure_liquid_object(scene)
    _hide_liquid_sources(scene)
    # With consent the core replaces the earlier bake; it keeps that bake aside until the new
    # one finishes, and restores it if the new one fails.
    # The cautions were asked above, from the panel's figures: the core need not ask again.
    options = {**bake_options(scene), "overwrite": bool(replace and not resume), "confirmed": True}
    try:
        _job = bake_runner.BakeJob(scene_path, cache_dir, resume=resume, options=options)
    except bake_runner.CacheInUse as e:
        return _refuse(operator, scene, str(e))
    cache_lock.forget()
    _job.scene_warnings = [w[0].upper() + w[1:] for w in warnings]
    for warning in _job.scene_warnings:
        operator.report({"WARNING"}, warning)
    scene.gloop.is_baking = True
    scene.gloop.progress = 0.0
    scene.gloop.status_text = "Starting…"
    scene.gloop.stats_text = ""
    scene.gloop.bake_warning = "; ".join(_job.scene_warnings)
    return _job


def _refuse(operator, scene, message, level="ERROR"):
    """Reports why the bake did not start and says it on the status line, replacing what an
    earlier bake left there ("Baked: …"); `_start` then returns None."""
    operator.report({level}, message)
    scene.gloop.status_text = message
    scene.gloop.stats_text = ""


def resume_refusal(cache_dir, scene_path):
    """(report level, message) when Resume Bake has nothing to do in `cache_dir` for the scene
    exported to `scene_path`: the scene changed since the bake (naming what changed), or the
    bake is already finished. None when the resume may go ahead (the core checks the cache's
    frames itself, and has the last word on the scene)."""
    import gloop_core

    baked_scene = os.path.join(cache_dir, "scene.gloop")
    manifest = bake_runner.read_manifest(cache_dir)
    if manifest is None or not os.path.isfile(baked_scene):
        return None  # nothing baked yet, or a cache from before scene files: the core decides
    try:
        changed = gloop_core.scene_changes(baked_scene, scene_path)
    except gloop_core.GloopError:
        return None
    if changed["changes"]:
        return (
            "ERROR",
            (
                f"The scene changed since this bake ({changed['summary']}). Resume needs the "
                "same settings; Bake replaces the cache"
            ),
        )
    last = manifest.get("last_complete_frame")
    with open(scene_path, encoding="utf-8") as f:
        end = json.load(f)["settings"]["frame_end"]
    if isinstance(last, int) and last >= end:
        return (
            "INFO",
            (
                f"Nothing to resume: the bake is finished (frames {manifest['frame_start']}–"
                f"{last}). Raise the End frame to bake further; Bake replaces the cache"
            ),
        )
    return None


def refusal_without_consent(earlier):
    """Why Bake did not start: the folder holds `earlier` (`bake_runner.existing_bake`)."""
    return (
        f"The cache folder holds {earlier}: Bake Liquid replaces it only once confirmed "
        "(from a script: replace=True); Resume Bake continues it"
    )


def confirmation(earlier, cautions):
    """(title, message, button) of Bake's dialog before replacing `earlier` (a description
    of the bake in the folder, or "") and baking a scene with `cautions` (sentences)."""
    said = []
    if earlier:
        said.append(
            f"The cache folder holds {earlier}. Bake again from the start and replace it? "
            "(Resume Bake continues it instead.)"
        )
    if cautions:
        said.extend(cautions)
        said.append("Bake anyway?")
    message = " ".join(s if s[-1] in ".?)" else s + "." for s in said)
    if cautions:
        return "Bake Anyway?", message, "Bake"
    return "Replace the Bake?", message, "Replace"


def _hide_liquid_sources(scene):
    """A Liquid object only gives the liquid's starting shape, and an Emitter only where it
    flows in: once baked, the Gloop Liquid object shows the liquid, so the sources are drawn
    as wire and left out of renders (as Blender's own fluid flow objects usually are). The
    domain only bounds the liquid: drawn as its bounds, never rendered."""
    for ob in export.gloop_objects(scene):
        if ob.gloop.type in {"LIQUID", "EMITTER"}:
            ob.hide_render = True
            ob.display_type = "WIRE"
    for ob in domain.domain_objects(scene):
        domain.show_as_domain(ob)


def bake_options(scene):
    """Keyword arguments of `gloop_core.bake` beyond the scene file."""
    s = scene.gloop
    return {
        "surface": s.mesh_surface,
        "surface_resolution": s.surface_resolution,
        "surface_smoothness": s.surface_smoothness,
        "max_error": s.surface_max_error,
    }


def _update_progress(scene, job):
    scene.gloop.progress = bake_runner.progress_fraction(job.status)
    scene.gloop.status_text = bake_runner.progress_text(job.status)
    scene.gloop.stats_text = bake_runner.stats_text(job.status)


def _finish(operator, scene, job):
    scene.gloop.is_baking = False
    state, message = job.outcome()
    _update_progress(scene, job)
    # The file was saved while an unsaved file's bake ran: its folder moves beside it now.
    moved = temporary_cache.settle(scene, bpy.data.filepath)
    if moved:
        operator.report({"INFO"}, moved)
    playback.load_frame(scene, scene.frame_current)
    warnings = [*job.scene_warnings, bake_runner.squeeze_warning(job.status)]
    scene.gloop.bake_warning = "; ".join(w for w in warnings if w)
    if state == "finished":
        scene.gloop.status_text = "Baked: " + scene.gloop.status_text
        if scene.gloop.bake_warning:
            operator.report({"WARNING"}, "Gloop bake finished; " + scene.gloop.bake_warning)
        else:
            operator.report({"INFO"}, "Gloop bake finished")
        return {"FINISHED"}
    if state == "cancelled":
        scene.gloop.status_text = "Cancelled: " + scene.gloop.status_text
        operator.report({"WARNING"}, "Gloop bake cancelled; finished frames are kept")
        return {"CANCELLED"}
    scene.gloop.status_text = f"Failed: {message}"
    operator.report({"ERROR"}, f"Gloop bake failed: {message}")
    return {"CANCELLED"}


class _BakeBase:
    resume = False
    _timer = None
    _scene = None
    _frames_shown = 0

    @classmethod
    def poll(cls, context):
        return context.scene is not None and running_job() is None

    def _consent(self):
        """Has the user agreed to replace an earlier bake? (Resume never replaces one.)"""
        return getattr(self, "replace", False)

    def _confirmed(self):
        """Has the user confirmed the scene's cautions? (Resume never asks: without a bake to
        continue it refuses them, naming Bake Liquid, which asks.)"""
        return getattr(self, "confirmed", False)

    def execute(self, context):
        if getattr(self, "confirmed_in_dialog", False) and not bpy.app.background:
            # The confirm dialog of `invoke` calls execute(): run the bake modally, as a
            # click that needs no dialog does, rather than blocking the UI until it ends.
            return self._start_modal(context)
        job = _start(self, context, self.resume, self._consent(), self._confirmed())
        if job is None:
            return {"CANCELLED"}
        job.wait(on_poll=lambda j: _update_progress(context.scene, j))
        return _finish(self, context.scene, job)

    def invoke(self, context, event):
        if bpy.app.background:
            return self.execute(context)
        return self._start_modal(context)

    def _start_modal(self, context):
        if _start(self, context, self.resume, self._consent(), self._confirmed()) is None:
            return {"CANCELLED"}
        wm = context.window_manager
        self._scene = context.scene  # progress goes to the baked scene, whatever is shown later
        self._timer = wm.event_timer_add(0.1, window=context.window)
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        job, scene = _job, self._scene
        if event.type == "ESC" and event.value == "PRESS":
            job.cancel()  # the bake stops within a substep; the timer sees it end
            return {"RUNNING_MODAL"}
        if event.type != "TIMER":
            return {"PASS_THROUGH"}
        running = job.poll()
        _update_progress(scene, job)
        done = (job.status or {}).get("frames_done", 0)
        if done != self._frames_shown:
            # A new frame landed: show it if the playhead is there (scrubbing works meanwhile).
            self._frames_shown = done
            playback.load_frame(scene, scene.frame_current)
        for area in context.screen.areas if context.screen else ():
            if area.type in {"PROPERTIES", "VIEW_3D"}:
                area.tag_redraw()
        if running:
            return {"PASS_THROUGH"}
        context.window_manager.event_timer_remove(self._timer)
        result = _finish(self, scene, job)
        return {"FINISHED"} if "FINISHED" in result else {"CANCELLED"}


class GLOOP_OT_bake(_BakeBase, bpy.types.Operator):
    """Bake the Gloop liquid into the cache folder (in a separate process; Esc cancels)"""

    bl_idname = "gloop.bake"
    bl_label = "Bake Liquid"

    replace: bpy.props.BoolProperty(
        name="Replace",
        description="Replace the bake already in the cache folder (the panel's button asks "
        "first; a script must say so)",
        options={"SKIP_SAVE"},
    )
    confirmed: bpy.props.BoolProperty(
        name="Confirmed",
        description="Bake although the panel asks first (a liquid below the resolution, over "
        "a million object particles); the panel's button asks, a script must say so",
        options={"SKIP_SAVE"},
    )
    confirmed_in_dialog: bpy.props.BoolProperty(options={"SKIP_SAVE", "HIDDEN"})

    def invoke(self, context, event):
        cache_dir = _cache_dir(context.scene)
        earlier = "" if self.replace or not cache_dir else bake_runner.existing_bake(cache_dir)
        asked = []
        if not self.confirmed and not bpy.app.background:
            figures = panel_figures(context.scene)
            asked = [] if figures.problems else figures.cautions  # problems: `_start` refuses
        if bpy.app.background or not (earlier or asked):
            return super().invoke(context, event)
        # Like Blender's own overwrite prompts: say what goes, and go on only once confirmed.
        self.replace = self.replace or bool(earlier)
        self.confirmed = self.confirmed_in_dialog = True
        title, message, confirm_text = confirmation(earlier, asked)
        return context.window_manager.invoke_confirm(
            self, event, title=title, message=message, confirm_text=confirm_text, icon="WARNING"
        )


class GLOOP_OT_bake_resume(_BakeBase, bpy.types.Operator):
    """Continue the bake from the last finished frame in the cache"""

    bl_idname = "gloop.bake_resume"
    bl_label = "Resume Bake"
    resume = True


class GLOOP_OT_bake_cancel(bpy.types.Operator):
    """Stop the running bake within a substep; finished frames are kept"""

    bl_idname = "gloop.bake_cancel"
    bl_label = "Cancel Bake"

    @classmethod
    def poll(cls, _context):
        return running_job() is not None

    def execute(self, _context):
        running_job().cancel()
        return {"FINISHED"}


class GLOOP_OT_free_bake(bpy.types.Operator):
    """Delete the baked frames from the cache folder"""

    bl_idname = "gloop.free_bake"
    bl_label = "Free Bake"

    @classmethod
    def poll(cls, context):
        return context.scene is not None and running_job() is None

    def invoke(self, context, event):
        return context.window_manager.invoke_confirm(self, event)

    def execute(self, context):
        scene = context.scene
        cache_dir = _cache_dir(scene)
        if cache_dir is None:
            self.report({"ERROR"}, "The cache folder is relative to an unsaved .blend")
            return {"CANCELLED"}
        holder = cache_lock.holder_now(cache_dir)
        if holder:
            # Its files are being written: freeing them now would mix the two.
            self.report({"ERROR"}, f"The cache folder is in use by {holder}")
            return {"CANCELLED"}
        removed = bake_runner.free_cache(cache_dir)
        scene.gloop.status_text = ""
        scene.gloop.bake_warning = ""
        scene.gloop.progress = 0.0
        playback.STATE.clear_warning()
        playback.load_frame(scene, scene.frame_current)
        self.report({"INFO"}, f"Freed the Gloop cache ({removed} files)")
        return {"FINISHED"}


class GLOOP_OT_match_pour_resolution(bpy.types.Operator):
    """Set the scene's particle radius so that this emitter's nozzle is enough particles
    across to pour a rope that coils"""

    bl_idname = "gloop.match_pour_resolution"
    bl_label = "Resolution for a Rope"

    @classmethod
    def poll(cls, context):
        ob = context.object
        return ob is not None and ob.gloop.type == "EMITTER" and running_job() is None

    def execute(self, context):
        radius = estimate.rope_radius(context.object)
        if radius is None:
            self.report({"ERROR"}, f"Emitter '{context.object.name}' has no nozzle area")
            return {"CANCELLED"}
        context.scene.gloop.particle_radius = radius
        return {"FINISHED"}


class GLOOP_OT_liquid_render_settings(bpy.types.Operator):
    """Raise Cycles' light bounces (glossy, transmission, total) so glassy liquid renders
    without black patches; settings already high enough are left as they are"""

    bl_idname = "gloop.liquid_render_settings"
    bl_label = "Liquid Render Settings"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (Blender reads a plain set)

    @classmethod
    def poll(cls, context):
        return context.scene is not None and bool(render_settings.shortfalls(context.scene))

    def execute(self, context):
        changed = render_settings.apply(context.scene)
        self.report({"INFO"}, "Cycles: " + render_settings.summary(changed))
        return {"FINISHED"}


class GLOOP_OT_update_liquid_material(bpy.types.Operator):
    """Rebuild the liquid's material with this version's look (a glassy liquid gains
    absorption: thick honey deep amber, thin honey pale). The old material is kept as
    "… (before update)" """

    bl_idname = "gloop.update_liquid_material"
    bl_label = "Update Liquid Material"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (Blender reads a plain set)

    @classmethod
    def poll(cls, context):
        return context.scene is not None and shading.scene_material_outdated(context.scene)

    def invoke(self, context, event):
        return context.window_manager.invoke_confirm(self, event)

    def execute(self, context):
        _mat, backup = shading.rebuild_scene_material(context.scene)
        if backup is not None:
            self.report({"INFO"}, f"Your edits are kept in material '{backup.name}'")
        return {"FINISHED"}


def cancel_running_bake():
    """Called on file load and unregister: a bake must not outlive its .blend session."""
    job = running_job()
    if job is not None:
        job.cancel()


@bpy.app.handlers.persistent
def _on_load_pre(*_args):
    cancel_running_bake()


CLASSES = (
    GLOOP_OT_bake,
    GLOOP_OT_bake_resume,
    GLOOP_OT_bake_cancel,
    GLOOP_OT_free_bake,
    GLOOP_OT_match_pour_resolution,
    GLOOP_OT_liquid_render_settings,
    GLOOP_OT_update_liquid_material,
)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.app.handlers.load_pre.append(_on_load_pre)


def unregister():
    cancel_running_bake()
    while _on_load_pre in bpy.app.handlers.load_pre:
        bpy.app.handlers.load_pre.remove(_on_load_pre)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
