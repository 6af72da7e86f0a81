"""The particle radius a bake uses: derived from the liquid and emitter objects (Automatic, the
default), or the artist's own Particle Radius.

A fixed default cannot suit every scene: 2 cm leaves a 3 cm drop of honey without a single
particle, and 1 mm fills a bathtub with billions. So by default the radius follows the objects:
the smallest liquid object holds about `PARTICLES_IN_SMALLEST_LIQUID` particles, and every
nozzle is `emission.PARTICLES_ACROSS_A_ROPE` particles across, so its rope coils. The finest
radius any object asks for wins. Setting a radius by hand turns Automatic off.

Sizes come from the objects' own meshes (cached in `estimate`), so the panel can show the
radius on every redraw.
"""

from typing import NamedTuple

from . import emission, estimate

# About where a drop still moves and meshes as a drop rather than as a few blobs.
PARTICLES_IN_SMALLEST_LIQUID = 2000
# The 2r lattice fills a rounded shape with a few per cent more or fewer particles than its
# volume over (2r)³; aiming this much higher keeps the smallest liquid at the count above.
LATTICE_HEADROOM = 1.1


class Automatic(NamedTuple):
    radius: float
    object_name: str  # the object whose size sets the radius
    reason: str  # why, for the panel


def liquid_radius(volume):
    """The radius at which a closed volume (m³) holds about `PARTICLES_IN_SMALLEST_LIQUID`
    particles (one per (2r)³ lattice cell), or None for a volume of nothing."""
    if volume <= 0.0:
        return None
    cell = (volume / (PARTICLES_IN_SMALLEST_LIQUID * LATTICE_HEADROOM)) ** (1.0 / 3.0)
    return max(cell / 2.0, emission.FINEST_RADIUS)


def _asked_by(ob):
    """(radius, reason) that one Gloop object asks for, or None (obstacles ask for none)."""
    kind = ob.gloop.type
    if kind == "LIQUID":
        volume = estimate.volume_and_area(ob)[0]
        radius = liquid_radius(volume)
        reason = f"≈ {PARTICLES_IN_SMALLEST_LIQUID:,} particles in it"
        if radius is not None and radius <= emission.FINEST_RADIUS:
            # Held at the finest radius: say what it gets, not what it asked for (a 2 mm
            # drop gets 8; the Bake panel asks before baking so few).
            held = round(volume / (2.0 * radius) ** 3)
            reason = f"≈ {held:,} particles in it (the finest radius)"
    elif kind == "EMITTER":
        radius = emission.rope_radius(estimate.volume_and_area(ob)[1])
        reason = f"{emission.PARTICLES_ACROSS_A_ROPE} particles across its nozzle"
    else:
        return None
    return None if radius is None else (radius, reason)


def automatic(objects):
    """The finest radius any liquid or emitter among `objects` asks for, with the object that
    asks; None when none does (no liquid yet, or only meshes without volume or area)."""
    best = None
    for ob in objects:
        asked = _asked_by(ob)
        if asked and (best is None or asked[0] < best.radius):
            best = Automatic(asked[0], ob.name, asked[1])
    return best


def particle_radius(scene, objects):
    """The radius the bake uses for `scene`, whose Gloop objects are `objects`."""
    s = scene.gloop
    if s.use_auto_radius:
        auto = automatic(objects)
        if auto is not None:
            return auto.radius
    return s.particle_radius
