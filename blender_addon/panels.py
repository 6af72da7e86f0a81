"""Physics-tab panels, laid out like Blender's own Fluid panels: the object's Gloop type on top,
its material in a sub-panel, and the scene-wide bake settings and buttons in "Gloop Bake"."""

import bpy
import numpy as np
from bl_operators.presets import AddPresetBase
from bl_ui.utils import PresetPanel

from . import (
    cache_lock,
    cache_summary,
    domain,
    emission,
    estimate,
    export,
    obstacle_count,
    operators,
    preflight,
    render_settings,
    resolution,
    shading,
)

# User presets go to <user scripts>/presets/gloop/liquid (writable, outside the extension).
LIQUID_PRESET_SUBDIR = "gloop/liquid"


class GLOOP_PT_liquid_presets(PresetPanel, bpy.types.Panel):
    bl_label = "Liquid Presets"
    preset_subdir = LIQUID_PRESET_SUBDIR
    preset_operator = "script.execute_preset"
    preset_add_operator = "gloop.liquid_preset_add"


class GLOOP_OT_liquid_preset_add(AddPresetBase, bpy.types.Operator):
    """Save this liquid material as a preset, or remove one"""

    bl_idname = "gloop.liquid_preset_add"
    bl_label = "Add Liquid Preset"
    preset_menu = "GLOOP_PT_liquid_presets"
    preset_subdir = LIQUID_PRESET_SUBDIR
    preset_defines = ("g = bpy.context.object.gloop",)
    preset_values = (
        "g.liquid_name",
        "g.density",
        "g.viscosity",
        "g.colour",
        "g.cohesion",
        "g.miscible",
        "g.look",
    )


class _PhysicsPanel:
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "physics"


class PHYSICS_PT_gloop(_PhysicsPanel, bpy.types.Panel):
    bl_label = "Gloop"

    @classmethod
    def poll(cls, context):
        ob = context.object
        return ob is not None and ob.type == "MESH" and ob != context.scene.gloop.liquid_object

    def draw(self, context):
        layout = self.layout
        layout.use_property_split = True
        layout.prop(context.object.gloop, "type")
        if context.object.gloop.type == "DOMAIN":
            self._draw_domain_size(layout, context.object)

    @staticmethod
    def _draw_domain_size(layout, ob):
        bounds = domain.world_bounds(ob)
        if bounds is None:
            layout.label(text="A domain needs a box mesh", icon="ERROR")
            return
        size = " × ".join(domain.length_text(float(d)) for d in bounds[1] - bounds[0])
        col = layout.column(align=True)
        col.label(text=f"Bounds {size}", icon="MESH_CUBE")
        col.label(text="Liquid leaving them is removed", icon="BLANK1")


class PHYSICS_PT_gloop_liquid(_PhysicsPanel, bpy.types.Panel):
    bl_label = "Liquid Material"
    bl_parent_id = "PHYSICS_PT_gloop"

    @classmethod
    def poll(cls, context):
        return context.object.gloop.type in {"LIQUID", "EMITTER"}

    def draw_header_preset(self, _context):
        GLOOP_PT_liquid_presets.draw_panel_header(self.layout)

    def draw(self, context):
        s = context.object.gloop
        layout = self.layout
        layout.use_property_split = True
        layout.prop(s, "liquid_preset")
        layout.prop(s, "liquid_name")
        col = layout.column(align=True)
        col.prop(s, "density", text="Density (kg/m³)")
        col.prop(s, "viscosity", text="Viscosity (Pa·s)")
        col.prop(s, "cohesion", text="Cohesion (m/s²)")
        layout.prop(s, "colour")
        layout.prop(s, "miscible")
        layout.prop(s, "look")
        if s.type == "LIQUID":
            layout.prop(s, "initial_velocity")


class PHYSICS_PT_gloop_emitter(_PhysicsPanel, bpy.types.Panel):
    bl_label = "Emission"
    bl_parent_id = "PHYSICS_PT_gloop"

    @classmethod
    def poll(cls, context):
        return context.object.gloop.type == "EMITTER"

    def draw(self, context):
        s = context.object.gloop
        layout = self.layout
        layout.use_property_split = True
        layout.prop(s, "emit_mode")
        if s.emit_mode in {"FLOW", "FLOW_SPEED"}:
            layout.prop(s, "emit_flow", text="Flow (mL/s)")
        if s.emit_mode in {"SPEED", "FLOW_SPEED"}:
            layout.prop(s, "emit_speed")
        area = estimate.volume_and_area(context.object)[1]
        scene = context.scene
        radius = resolution.particle_radius(scene, export.gloop_objects(scene))
        derived = emission.resolve(s, area, radius)
        col = layout.column(align=True)
        col.label(text=f"Nozzle {area * 1e6:.1f} mm²")
        if isinstance(derived, str):
            row = col.row()
            row.alert = True
            row.label(text=derived[0].upper() + derived[1:], icon="ERROR")
        else:
            flow, speed, per_second = derived
            col.label(text=f"{flow / emission.ML:.2f} mL/s at {speed:.3f} m/s")
            col.label(text=f"{per_second:,.0f} particles/s")
        rope = emission.rope_radius(area)
        if rope is not None and radius > rope * 1.001:
            col = layout.column(align=True)
            col.label(text=f"Too coarse to pour a rope: r ≤ {rope * 1e3:.2f} mm", icon="ERROR")
            col.operator("gloop.match_pour_resolution")
        col = layout.column(align=True)
        col.prop(s, "emit_frame_start", text="Frame Start")
        col.prop(s, "emit_until_end")
        end = col.row(align=True)
        end.active = not s.emit_until_end
        end.prop(s, "emit_frame_end", text="End")


class PHYSICS_PT_gloop_solid(_PhysicsPanel, bpy.types.Panel):
    bl_label = "Solid Material"
    bl_parent_id = "PHYSICS_PT_gloop"

    @classmethod
    def poll(cls, context):
        return context.object.gloop.type == "OBSTACLE"

    def draw(self, context):
        s = context.object.gloop
        layout = self.layout
        layout.use_property_split = True
        layout.prop(s, "solid_preset")
        layout.prop(s, "solid_name")
        layout.prop(s, "friction")
        layout.prop(s, "stickiness", text="Stickiness (m/s²)")


def opened_cache(scene):
    """The Summary of the cache the scene plays back when it was opened with Open Cache: the
    scene has no Liquid or Emitter object (its liquid is the playback object) and its cache
    folder holds a manifest. None otherwise, and the panel estimates a bake as usual."""
    if any(ob.gloop.type in {"LIQUID", "EMITTER"} for ob in export.gloop_objects(scene)):
        return None
    cache_dir = operators._cache_dir(scene)
    return cache_summary.summary(cache_dir) if cache_dir else None


def _redraw_properties_while_counting():
    for window in bpy.context.window_manager.windows:
        for area in window.screen.areas:
            if area.type == "PROPERTIES":
                area.tag_redraw()
    return 0.25 if obstacle_count.pending() else None


def _redraw_when_counted():
    """Redraws the Properties editors until the obstacles' exact counts have arrived
    (`obstacle_count` counts on a worker thread; the panel shows the area rule meanwhile)."""
    if not bpy.app.timers.is_registered(_redraw_properties_while_counting):
        bpy.app.timers.register(_redraw_properties_while_counting, first_interval=0.25)


class PHYSICS_PT_gloop_bake(_PhysicsPanel, bpy.types.Panel):
    """Scene-wide: resolution, time, cache, bake buttons and progress. Shown on every object
    (and on the liquid object), like the Fluid domain's bake panel."""

    bl_label = "Gloop Bake"

    @classmethod
    def poll(cls, context):
        return context.scene is not None

    def draw(self, context):
        scene = context.scene
        s = scene.gloop
        layout = self.layout
        layout.use_property_split = True
        opened = opened_cache(scene)
        if opened is not None:
            # Open Cache: nothing to estimate or check, the cache is what there is.
            figures = None
            self._draw_opened(layout, opened)
        else:
            try:
                figures = preflight.preflight(scene)
            except (ValueError, ReferenceError):  # a mesh mid-edit, an object being removed
                figures = None
            self._draw_resolution(layout, s, figures)
            if figures is not None:
                self._draw_estimate(layout, figures)
        layout.prop(s, "use_scene_frame_range")
        if not s.use_scene_frame_range:
            col = layout.column(align=True)
            col.prop(s, "frame_start", text="Frame Start")
            col.prop(s, "frame_end", text="End")
        col = layout.column(align=True)
        col.prop(s, "substeps")
        col.prop(s, "max_substeps")
        col.prop(s, "moves")
        col.prop(s, "max_density_iterations")
        layout.prop(s, "viscosity_model")
        if opened is None:
            self._draw_domain(layout, scene, figures)
        layout.prop(s, "cache_dir")
        self._draw_buttons(layout, s, can_bake=opened is None)
        if s.playback_warning:
            layout.label(text=s.playback_warning, icon="ERROR")
        self._draw_look_warnings(layout, scene)

    @staticmethod
    def _draw_opened(layout, opened):
        box = layout.box().column(align=True)
        box.label(text=f"Opened cache '{opened.name}'", icon="FILE_FOLDER")
        for line in cache_summary.lines(opened):
            box.label(text=line, icon="BLANK1")
        col = layout.column(align=True)
        col.label(text="To bake a new scene, mark an object", icon="INFO")
        col.label(text="as Liquid or Emitter", icon="BLANK1")

    @staticmethod
    def _draw_resolution(layout, s, figures):
        layout.prop(s, "use_auto_radius")
        automatic = figures.automatic if figures is not None else None
        if automatic is None:
            # Off, or nothing to derive a radius from yet: the radius set by hand is used.
            layout.prop(s, "particle_radius")
            return
        col = layout.column(align=True)
        split = col.split(factor=0.4, align=True)
        split.alignment = "RIGHT"
        split.label(text="Particle Radius")
        split.label(text=f"{automatic.radius * 1e3:.2f} mm")
        split = col.split(factor=0.4, align=True)
        split.label(text="")
        split.label(text=f"'{automatic.object_name}': {automatic.reason}")

    @staticmethod
    def _draw_domain(layout, scene, figures):
        """The Domain object when there is one, otherwise the automatic domain's margin."""
        domains = domain.domain_objects(scene)
        if domains:
            split = layout.split(factor=0.4, align=True)
            split.alignment = "RIGHT"
            split.label(text="Domain")
            split.label(text=", ".join(f"'{ob.name}'" for ob in domains), icon="MESH_CUBE")
            return
        s = scene.gloop
        layout.prop(s, "use_auto_margin")
        bounds = [domain.world_bounds(ob) for ob in export.gloop_objects(scene)]
        bounds = [b for b in bounds if b is not None]
        if not s.use_auto_margin or figures is None or not bounds:
            layout.prop(s, "domain_margin")
            return
        lo = np.min([b[0] for b in bounds], axis=0)
        hi = np.max([b[1] for b in bounds], axis=0)
        split = layout.split(factor=0.4, align=True)
        split.alignment = "RIGHT"
        split.label(text="Domain Margin")
        margin = domain.automatic_margin((lo, hi), figures.radius)
        split.label(text=domain.length_text(margin))

    @staticmethod
    def _draw_estimate(layout, figures):
        e = figures.estimate
        box = layout.box().column(align=True)
        box.label(text=f"≈ {e.liquid:,} liquid + {e.solid:,} object particles")
        box.label(
            text=f"≈ {estimate.human_bytes(e.ram_bytes)} RAM, "
            f"{estimate.human_bytes(e.cache_bytes)} cache per frame"
        )
        box.label(text=f"≈ {estimate.human_duration(e.seconds)} to bake (rough)")
        if not e.exact:
            box.label(text="Counting object particles…", icon="SORTTIME")
            _redraw_when_counted()
        if figures.problems:
            # Red before Bake: each of these would make the bake fail, and Bake refuses it.
            col = layout.column(align=True)
            col.alert = True
            for problem in figures.problems:
                for i, line in enumerate(preflight.wrap(problem)):
                    col.label(text=line, icon="ERROR" if i == 0 else "BLANK1")
        if figures.cautions:
            # Red too: legal, but rarely meant and wasted or slow, so Bake asks first.
            col = layout.column(align=True)
            col.alert = True
            for caution in figures.cautions:
                for i, line in enumerate(preflight.wrap(caution)):
                    col.label(text=line, icon="QUESTION" if i == 0 else "BLANK1")
            col.label(text="Bake Liquid asks before it starts", icon="BLANK1")

    @staticmethod
    def _draw_look_warnings(layout, scene):
        """Offers, never applies: the render settings and the material are the artist's."""
        if render_settings.shortfalls(scene):
            col = layout.column(align=True)
            col.label(text="Too few light bounces: glassy liquid renders", icon="ERROR")
            col.label(text="black patches in Cycles")
            col.operator("gloop.liquid_render_settings", icon="SHADING_RENDERED")
        if shading.scene_material_outdated(scene):
            col = layout.column(align=True)
            col.label(text="The liquid material is from an older Gloop", icon="INFO")
            col.operator("gloop.update_liquid_material", icon="MATERIAL")

    @staticmethod
    def _draw_buttons(layout, s, can_bake=True):
        if operators.running_job() is not None or s.is_baking:
            layout.progress(factor=s.progress, text=s.status_text or "Baking…")
            if s.stats_text:
                layout.label(text=s.stats_text)
            layout.operator("gloop.bake_cancel", icon="CANCEL")
            return
        # Another Blender or a terminal bake writing this folder: say who, and grey the
        # buttons (the operators refuse too). Checked at most once a second (`cache_lock`).
        in_use = cache_lock.in_use_by(operators._cache_dir(s.id_data))
        if in_use:
            col = layout.column(align=True)
            col.alert = True
            for i, line in enumerate(preflight.wrap(f"In use by {in_use}")):
                col.label(text=line, icon="LOCKED" if i == 0 else "BLANK1")
        buttons = layout.column()
        buttons.enabled = not in_use and can_bake
        row = buttons.row(align=True)
        row.scale_y = 1.3
        row.operator("gloop.bake", icon="PHYSICS")
        row.operator("gloop.bake_resume", icon="PLAY")
        # Free writes this folder, so it greys with Bake; Open Cache only points the scene
        # at a folder (maybe another one) and reads it, so it stays usable.
        row = layout.row(align=True)
        free = row.row(align=True)
        free.enabled = not in_use
        free.operator("gloop.free_bake", icon="TRASH")
        row.operator("gloop.open_cache", icon="FILE_FOLDER")
        if s.status_text:
            layout.label(text=s.status_text)
        if s.stats_text:
            layout.label(text=s.stats_text)
        if s.bake_warning:
            layout.label(text=s.bake_warning, icon="ERROR")


CLASSES = (
    GLOOP_PT_liquid_presets,
    GLOOP_OT_liquid_preset_add,
    PHYSICS_PT_gloop,
    PHYSICS_PT_gloop_liquid,
    PHYSICS_PT_gloop_emitter,
    PHYSICS_PT_gloop_solid,
    PHYSICS_PT_gloop_bake,
)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)


def unregister():
    if bpy.app.timers.is_registered(_redraw_properties_while_counting):
        bpy.app.timers.unregister(_redraw_properties_while_counting)
    obstacle_count.forget()
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
