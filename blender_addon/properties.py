"""Settings stored in the .blend: per object (`Object.gloop`) and per scene (`Scene.gloop`)."""

import bpy
import gloop_core
from bpy.app.handlers import persistent
from bpy.props import (
    BoolProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from . import domain, emission, material_presets, resolution
from .material_presets import LIQUID_NUMBERS, LIQUIDS, SOLIDS

# Set while a preset fills the fields, so the fields' own update does not flip it to CUSTOM.
_applying_preset = False


def _apply_liquid_preset(self, _context):
    global _applying_preset
    if self.liquid_preset == "CUSTOM":
        return
    label, density, viscosity, colour, cohesion, miscible, look = LIQUIDS[self.liquid_preset]
    _applying_preset = True
    try:
        self.liquid_name = label.lower().replace(" ", "_").replace("(", "").replace(")", "")
        self.density = density
        self.viscosity = viscosity
        self.colour = colour
        self.cohesion = cohesion
        self.miscible = miscible
        self.look = look
    finally:
        _applying_preset = False


def _apply_solid_preset(self, _context):
    global _applying_preset
    if self.solid_preset == "CUSTOM":
        return
    label, friction, stickiness = SOLIDS[self.solid_preset]
    _applying_preset = True
    try:
        self.solid_name = label.lower()
        self.friction = friction
        self.stickiness = stickiness
    finally:
        _applying_preset = False


def _liquid_edited(self, _context):
    if not _applying_preset and self.liquid_preset != "CUSTOM":
        # CUSTOM, without re-running the preset update
        self["liquid_preset"] = LIQUID_NUMBERS["CUSTOM"]


def _solid_edited(self, _context):
    if not _applying_preset and self.solid_preset != "CUSTOM":
        self["solid_preset"] = len(SOLIDS)


def _type_changed(self, _context):
    ob = self.id_data
    if self.type == "DOMAIN":
        domain.show_as_domain(ob)
        self.shown_as_domain = True
    elif self.shown_as_domain:
        ob.display_type = "TEXTURED"
        ob.hide_render = False
        self.shown_as_domain = False


def _emit_end_set_by_hand(self, _context):
    self.emit_until_end = False


class GloopObjectSettings(bpy.types.PropertyGroup):
    type: EnumProperty(
        name="Type",
        items=[
            ("NONE", "None", "Not part of the Gloop bake"),
            (
                "LIQUID",
                "Liquid",
                "The closed mesh is filled with liquid at the first frame",
            ),
            ("EMITTER", "Emitter", "Emits liquid from its surface"),
            ("OBSTACLE", "Obstacle", "Liquid collides with and sticks to it"),
            ("DOMAIN", "Domain", "Its bounds at the first frame bound the liquid"),
        ],
        default="NONE",
        update=_type_changed,
    )
    # Whether the Domain type set the object's display and render visibility, to give them
    # back when the type changes again.
    shown_as_domain: BoolProperty(options={"HIDDEN"})

    # Liquid material (Liquid and Emitter).
    liquid_preset: EnumProperty(
        name="Liquid",
        items=material_presets.enum_items(LIQUIDS, LIQUID_NUMBERS),
        default="HONEY",
        update=_apply_liquid_preset,
    )
    liquid_name: StringProperty(
        name="Material Name",
        default="honey",
        description="Objects with the same name share one liquid material",
    )
    density: FloatProperty(
        name="Density",
        default=1420.0,
        min=1.0,
        soft_max=5000.0,
        unit="NONE",
        description="Density in kg/m³",
        update=_liquid_edited,
    )
    viscosity: FloatProperty(
        name="Viscosity",
        default=19.0,
        min=0.0,
        soft_max=1000.0,
        precision=3,
        description="Dynamic viscosity in Pa·s (water 0.001, honey 19)",
        update=_liquid_edited,
    )
    colour: FloatVectorProperty(
        name="Colour",
        subtype="COLOR",
        size=3,
        min=0.0,
        max=1.0,
        default=LIQUIDS["HONEY"][3],
        update=_liquid_edited,
        description="Linear RGB; paints mix their colours",
    )
    cohesion: FloatProperty(
        name="Cohesion",
        default=2.0,
        min=0.0,
        soft_max=50.0,
        description="Peak pull between particles of this liquid, m/s² (like surface tension)",
        update=_liquid_edited,
    )
    miscible: BoolProperty(
        name="Miscible",
        default=False,
        update=_liquid_edited,
        description="Miscible liquids (paints) mix; others repel each other",
    )
    look: EnumProperty(
        name="Look",
        items=[
            ("GLASSY", "Glassy", "Transparent, tinted by the colour (honey, gel)"),
            ("OPAQUE", "Opaque", "The colour attribute drives the base colour (paint)"),
        ],
        default="GLASSY",
    )
    initial_velocity: FloatVectorProperty(
        name="Initial Velocity",
        subtype="VELOCITY",
        size=3,
        unit="VELOCITY",
        description="Velocity of the liquid at the first frame, m/s",
    )

    # Emitter.
    emit_mode: EnumProperty(
        name="Set By",
        items=[
            ("FLOW", "Flow", "Volume flow; the speed is the flow over the nozzle's area"),
            ("SPEED", "Speed", "Exit speed; the flow is the speed times the nozzle's area"),
            (
                "FLOW_SPEED",
                "Flow and Speed",
                "Both; a stream narrower than the nozzle leaves through its middle",
            ),
        ],
        default="FLOW",
    )
    emit_flow: FloatProperty(
        name="Flow",
        default=10.0,
        min=0.0,
        soft_max=1000.0,
        description="Volume of liquid emitted per second, mL/s",
    )
    emit_speed: FloatProperty(
        name="Speed",
        default=0.2,
        min=0.0,
        unit="VELOCITY",
        description="Speed along the surface normal, m/s",
    )
    emit_frame_start: IntProperty(name="Start", default=1)
    emit_until_end: BoolProperty(
        name="Until the End",
        default=True,
        description="Emit until the bake's last frame. Setting an End frame turns this off",
    )
    emit_frame_end: IntProperty(
        name="End",
        default=50,
        description="Emission stops at the start of this frame (when Until the End is off)",
        update=_emit_end_set_by_hand,
    )

    # Solid material (Obstacle).
    solid_preset: EnumProperty(
        name="Solid",
        items=material_presets.enum_items(SOLIDS),
        default="STEEL",
        update=_apply_solid_preset,
    )
    solid_name: StringProperty(name="Material Name", default="steel")
    friction: FloatProperty(
        name="Friction",
        default=0.3,
        min=0.0,
        max=1.0,
        update=_solid_edited,
        description="Fraction of a touching particle's velocity lost per 1/30 s (1 = sticks)",
    )
    stickiness: FloatProperty(
        name="Stickiness",
        default=4.0,
        soft_min=-20.0,
        soft_max=50.0,
        update=_solid_edited,
        description="How strongly liquid clings to this solid, m/s² (the adhesion matrix entry)",
    )


def _playback_warning(_self):
    from . import playback

    return playback.STATE.warning


# 4.5 warns about "//" paths unless the property declares it supports them; 4.2 lacks the flag.
_PATH_OPTIONS = {"PATH_SUPPORTS_BLEND_RELATIVE"} if bpy.app.version >= (4, 5, 0) else set()


_CLASSIC_HELP = (
    "Steele et al. 2004's explicit momentum exchange: thick liquids come out thinner than "
    "their viscosity at fine resolution"
)


def _radius_set_by_hand(self, _context):
    """A radius the artist (or a script, or Resolution for a Rope) sets is the one to use."""
    self.use_auto_radius = False


def _margin_set_by_hand(self, _context):
    self.use_auto_margin = False


class GloopSceneSettings(bpy.types.PropertyGroup):
    use_auto_radius: BoolProperty(
        name="Automatic Resolution",
        default=True,
        description="Derive the particle radius from the objects: the smallest liquid holds "
        f"about {resolution.PARTICLES_IN_SMALLEST_LIQUID:,} particles and each emitter's "
        f"nozzle is {emission.PARTICLES_ACROSS_A_ROPE} particles across. Setting a radius by "
        "hand turns this off",
    )
    particle_radius: FloatProperty(
        name="Particle Radius",
        default=0.02,
        min=emission.FINEST_RADIUS,
        soft_max=0.1,
        precision=4,
        subtype="DISTANCE",
        unit="LENGTH",
        description="Resolution: liquid particle radius. Halving it makes 8× more particles. "
        "Used when Automatic Resolution is off",
        update=_radius_set_by_hand,
    )
    use_scene_frame_range: BoolProperty(
        name="Use Scene Frame Range",
        default=True,
        description="Bake the scene's frame range",
    )
    frame_start: IntProperty(name="Start", default=1)
    frame_end: IntProperty(name="End", default=100)
    substeps: IntProperty(
        name="Substeps",
        default=4,
        min=1,
        max=1000,
        soft_max=64,
        description="Fewest force evaluations per frame (2–8 is typical). Frames whose liquid or "
        "obstacles move fast take more, up to Max Substeps, so nothing moves more than a "
        "particle radius per move",
    )
    max_substeps: IntProperty(
        name="Max Substeps",
        default=64,
        min=1,
        max=1000,
        soft_max=256,
        description="Most force evaluations per frame, for fast impacts (at least Substeps; "
        "equal to it fixes the count). A 5 m/s impact at 1 mm particles takes about 38",
    )
    moves: IntProperty(
        name="Moves",
        default=6,
        min=1,
        max=64,
        description="Position updates per substep (3–8 is typical)",
    )
    max_density_iterations: IntProperty(
        name="Density Passes",
        default=100,
        min=1,
        max=10_000,
        description="Most density-correction passes per substep. Raise it when a bake warns "
        "that the liquid was left squeezed; each pass costs time only where it is needed",
    )
    # Implicit by default, as in the solver: the classic exchange saturates far below honey's
    # viscosity at millimetre resolution. (Items keep their order: files store the index.)
    viscosity_model: EnumProperty(
        name="Viscosity",
        items=[
            ("classic", "Classic", _CLASSIC_HELP),
            (
                "implicit",
                "Implicit",
                "Implicit viscosity in physical units: the liquid has the viscosity it asks for",
            ),
        ],
        default="implicit",
    )
    use_auto_margin: BoolProperty(
        name="Automatic Margin",
        default=True,
        description="Without a Domain object the domain is the objects' bounds padded by a "
        f"margin: {domain.AUTO_MARGIN_FRACTION:g} of the scene's largest side. Setting a "
        "margin by hand turns this off",
    )
    domain_margin: FloatProperty(
        name="Domain Margin",
        default=1.0,
        min=0.0,
        subtype="DISTANCE",
        unit="LENGTH",
        description="Without a Domain object: space around the objects where liquid lives; "
        "beyond it, it is removed. Used when Automatic Margin is off",
        update=_margin_set_by_hand,
    )
    max_particles: IntProperty(
        name="Max Particles",
        default=5_000_000,
        min=1000,
        description="The bake refuses scenes needing more particles than this",
    )
    mesh_surface: BoolProperty(
        name="Surface Mesh",
        default=True,
        description="Mesh the liquid's surface for every frame (otherwise particles are shown)",
    )
    surface_resolution: FloatProperty(
        name="Surface Resolution",
        default=0.5,
        min=0.2,
        max=2.0,
        description="Marching-cubes cell size in particle radii (smaller = finer, slower)",
    )
    surface_smoothness: FloatProperty(
        name="Smoothness",
        default=0.5,
        min=0.0,
        max=1.0,
        subtype="FACTOR",
        description="0 = the raw particle blobs, 1 = very smooth",
    )
    surface_max_error: FloatProperty(
        name="Decimation",
        # The mesher's own default (`gloop mesh` and this control agree without a second copy).
        default=gloop_core.SURFACE_DEFAULTS["max_error"],
        min=0.0,
        max=0.25,
        precision=3,
        step=0.1,
        description="Merge triangles where the surface moves at most this many particle radii: "
        "far smaller caches (flat coats lose most of their triangles). 0 = off",
    )
    cache_dir: StringProperty(
        name="Cache Folder",
        default="//gloop_cache",
        subtype="DIR_PATH",
        options=_PATH_OPTIONS,
        description="Where the baked frames go (// means beside the .blend)",
    )
    # The temporary folder an unsaved file's bake went to, until the first save moves it beside
    # the .blend (`temporary_cache`); empty otherwise.
    temporary_cache: StringProperty(default="")
    liquid_object: PointerProperty(
        name="Liquid Object",
        type=bpy.types.Object,
        description="The object that shows the baked liquid",
    )
    # How the liquid of a cache opened with Open Cache renders, from the cache's scene file:
    # its look (GLASSY, OPAQUE; empty if unknown) and its first glassy liquid's colour. The
    # liquid objects of the .blend, if any, come first.
    opened_look: StringProperty(default="")
    opened_colour: FloatVectorProperty(size=3, default=(0.0, 0.0, 0.0))

    # Live bake progress: runtime only.
    is_baking: BoolProperty(options={"SKIP_SAVE"})
    progress: FloatProperty(options={"SKIP_SAVE"}, min=0.0, max=1.0, subtype="FACTOR")
    status_text: StringProperty(options={"SKIP_SAVE"})
    # The latest frame's stats line (time, particles, substeps, triangles), under the bar.
    stats_text: StringProperty(options={"SKIP_SAVE"})
    # What a bake did not give as asked: liquids thinner than asked (classic viscosity), and
    # frames its density correction left squeezed.
    bake_warning: StringProperty(options={"SKIP_SAVE"})
    playback_warning: StringProperty(get=_playback_warning, options={"SKIP_SAVE"})


CLASSES = (GloopObjectSettings, GloopSceneSettings)


@persistent
def _keep_older_files_resolution(*_args):
    """A .blend saved before Automatic Resolution (or Automatic Margin, or an emitter's Until
    the End) existed bakes at the radius (margin, emission end) it was saved with, if it set
    one: the toggles' defaults must not change an artist's finished setup."""
    for scene in bpy.data.scenes:
        s = scene.gloop
        if s.is_property_set("particle_radius") and not s.is_property_set("use_auto_radius"):
            s.use_auto_radius = False
        if s.is_property_set("domain_margin") and not s.is_property_set("use_auto_margin"):
            s.use_auto_margin = False
    # Emitters stopped at their End (50 unless set) before Until the End existed.
    for ob in bpy.data.objects:
        g = getattr(ob, "gloop", None)
        if g is not None and g.type == "EMITTER" and not g.is_property_set("emit_until_end"):
            g.emit_until_end = False


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.Object.gloop = PointerProperty(type=GloopObjectSettings)
    bpy.types.Scene.gloop = PointerProperty(type=GloopSceneSettings)
    bpy.app.handlers.load_post.append(_keep_older_files_resolution)


def unregister():
    while _keep_older_files_resolution in bpy.app.handlers.load_post:
        bpy.app.handlers.load_post.remove(_keep_older_files_resolution)
    del bpy.types.Scene.gloop
    del bpy.types.Object.gloop
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
