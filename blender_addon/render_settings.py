"""Cycles light-path settings under which glassy liquid renders without black patches.

A path that runs out of bounces inside a transmissive liquid returns black. Looking into a
puddle, a ray refracts in and, near the rim, reflects between the top and the bottom (total
internal reflection beyond 42° at IOR 1.5). Cycles counts each of those reflections as a
glossy bounce, each refraction as a transmission bounce, and all against the total. On a
baked 1 cm honey puddle (tests/blender/test_render.py, sky and sun, and a dim sky and sun) the
near-black share of the puddle was, against 0.0–0.1% with these values:
- glossy 1–2: 1.6–4.9%; glossy 4 (Cycles' default): 0–0.1%, and on a 2.4 cm puddle under
  the dim sky 1.7% against 1.2% at 8; more than 8 gained nothing;
- transmission 1: 9–91%; 2 and up: no change (one body of liquid takes 2; 8 leaves room for
  a thread in front of a puddle);
- total 4: 1.2–4.8%; 6 and up: no change with glossy 4; 16 covers 8 glossy, 4 transmission
  and 4 diffuse bounces on one path.
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
    return any(
        ob.gloop.type in {"LIQUID", "EMITTER"} and ob.gloop.look == "GLASSY" for ob in scene.objects
    )


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
