"""Cycles light-path settings under which glassy liquid renders without black patches.

A path that runs out of bounces inside a transmissive liquid returns black. Looking into a
puddle, a ray refracts in and, near the rim, reflects between the top and the bottom (total
internal reflection beyond 42° at IOR 1.5). Cycles counts each of those reflections as a
glossy bounce, each refraction as a transmission bounce, and all against the total. On the
baked 1 cm honey puddle of tests/blender/test_render.py, the near-black share of the puddle
(sky and sun / dim sky and sun) was 0.04% / 1.07% with these values (for the honey colour
before measured spectra, (0.80, 0.42, 0.05); light amber at 59 mm Pfund, darker, 0.43% with
sky and sun, along the rim over the air gap below), and:
- glossy 1–2: 1.6% / 5.2%; 4 (Cycles' default): 0.13% / 1.29%; 8: as recommended; 16–64:
  no better;
- transmission 1: 13% / 92%; 2 and up: no change (one body of liquid takes 2; 8 leaves room
  for a thread in front of a puddle);
- total 4: 1.3% / 5.1%; 6 and up: no change at 4 glossy; 16 holds 8 glossy, 4 transmission
  and 4 diffuse bounces on one path.
Under the dim sky the rest is the air gap under the liquid's mesh, where light is trapped by
total internal reflection: lowered 1.2 mm into the board, the same puddle had none.
Render time did not change measurably (paths leave or are absorbed well before the limits).

The add-on only suggests these values: the Bake panel shows them when the scene falls short,
and `gloop.liquid_render_settings` applies them on a click, raising and never lowering what
the artist set.
"""

# Cycles property → least value.
RECOMMENDED = {
    "max_bounces": 16,
    "glossy_bounces": 8,
    "transmission_bounces": 8,
}
LABELS = {
    "max_bounces": "Total",
    "glossy_bounces": "Glossy",
    "transmission_bounces": "Transmission",
}


def _has_glassy_liquid(scene):
    """A Liquid or Emitter object with the glassy look, or a cache opened with Open Cache whose
    scene file says glassy (or says nothing, as before looks were recorded)."""
    liquids = [ob for ob in scene.objects if ob.gloop.type in {"LIQUID", "EMITTER"}]
    if liquids:
        return any(ob.gloop.look == "GLASSY" for ob in liquids)
    opened = scene.gloop.liquid_object
    return opened is not None and scene.gloop.opened_look != "OPAQUE"


def shortfalls(scene):
    """[(property, current, recommended)] of the Cycles settings that would show black patches
    in this scene's glassy liquid; [] if none, or if Cycles does not render the scene."""
    if scene.render.engine != "CYCLES" or not _has_glassy_liquid(scene):
        return []
    cycles = scene.cycles
    return [
        (name, getattr(cycles, name), least)
        for name, least in RECOMMENDED.items()
        if getattr(cycles, name) < least
    ]


def apply(scene):
    """Raises the settings that fall short to the recommended values; returns what changed."""
    changed = shortfalls(scene)
    for name, _current, value in changed:
        setattr(scene.cycles, name, value)
    return changed


def summary(changes):
    return ", ".join(f"{LABELS[n]} bounces {c} → {v}" for n, c, v in changes)
