"""An emitter's flow, speed and particle rate, as the bake will derive them.

The same rule as `Emission::resolve` in src/scene/objects.rs: two of volume flow, speed and the
nozzle's area fix the third, and a particle stands for a (2r)³ lattice cell. The panel shows
what follows from the artist's two numbers; the bake computes it again in Rust from the
exported mesh (the Blender tests hold the two to the same figures).
"""

import math

ML = 1e-6  # m³ per mL

# Particles across a nozzle for its rope to stay one even piece and coil in one sense. On
# `gloop validate honey-pour` (a round nozzle of radius 4 mm, 10 mL/s of honey from 6 cm), all
# of r = 1, 0.75 and 0.5 mm kept the rope connected and coiling, but only 8 across (r = 0.5 mm)
# turned steadily: the touchdown point's net angle over the angle it travelled was 0.90, against
# 0.64 at 5.3 across and 0.66 at 4.
PARTICLES_ACROSS_A_ROPE = 8

# The finest particle radius the add-on offers (`particle_radius`'s minimum).
FINEST_RADIUS = 0.0005


def resolve(s, area, radius):
    """(flow m³/s, speed m/s, particles/s) for the emitter settings `s`, or what the emitter
    lacks and how to set it, to follow "Emitter 'Nozzle' has" ("no flow: set Flow above 0
    mL/s"). A flow or speed of 0 emits nothing: the bake refuses it (`Emission::resolve`)."""
    flow = s.emit_flow * ML if s.emit_mode in {"FLOW", "FLOW_SPEED"} else None
    speed = s.emit_speed if s.emit_mode in {"SPEED", "FLOW_SPEED"} else None
    if flow is not None and flow <= 0.0:
        return "no flow: set Flow above 0 mL/s"
    if speed is not None and speed <= 0.0:
        return "no speed: set Speed above 0 m/s"
    if flow is not None and speed is not None:
        if area > 0.0 and flow > speed * area:
            speed = flow / area  # too much flow for the nozzle at that speed: it leaves faster
    elif area <= 0.0:
        return "no nozzle area: set both Flow and Speed"
    elif flow is not None:
        speed = flow / area
    else:
        flow = speed * area
    return flow, speed, flow / (2.0 * radius) ** 3


def emitted_within(s, per_second, fps, frames):
    """Particles an emitter of `per_second` emits within the bake's `frames` (first, last):
    from the start of the first, the initial state, to the start of the last; the bake's
    `floor(R · t)` count (`Emission::emitted_by`)."""

    def emitted_by(frame):
        window = max(frame_end(s) - s.emit_frame_start, 0)
        active = min(max(frame - s.emit_frame_start, 0), window)
        return math.floor(per_second * active / fps + 1e-9)

    return max(emitted_by(frames[1]) - emitted_by(frames[0]), 0)


def rope_radius(area):
    """The particle radius at which a nozzle of this area pours a rope: the round nozzle of
    the same area, `PARTICLES_ACROSS_A_ROPE` particles across (not finer than the add-on
    allows). None for a nozzle without area."""
    if area <= 0.0:
        return None
    diameter = 2.0 * math.sqrt(area / math.pi)
    return max(diameter / (2.0 * PARTICLES_ACROSS_A_ROPE), FINEST_RADIUS)


def frame_end(s):
    """The frame at whose start emission stops: the End the artist set, or with Until the End
    the last frame a scene may name (`gloop_core.MAX_FRAME`), so the emitter runs to the bake's
    end however far it is extended: the exported scene, and so its hash, stays the same when
    only the bake's End changes, and a resumed bake may be extended."""
    if not s.emit_until_end:
        return s.emit_frame_end
    import gloop_core

    return gloop_core.MAX_FRAME


def exported(s):
    """The emission record of the scene file: only the numbers the artist set."""
    return {
        "flow": s.emit_flow * ML if s.emit_mode in {"FLOW", "FLOW_SPEED"} else None,
        "speed": s.emit_speed if s.emit_mode in {"SPEED", "FLOW_SPEED"} else None,
        "frame_start": s.emit_frame_start,
        "frame_end": frame_end(s),
    }
