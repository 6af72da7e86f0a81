"""An emitter's flow, speed and particle rate, as the bake will derive them.

The same rule as `Emission::resolve` in src/scene/objects.rs: two of volume flow, speed and the
nozzle's area fix the third, and a particle stands for a (2r)³ lattice cell. The panel shows
what follows from the artist's two numbers; the bake computes it again in Rust from the
exported mesh (the Blender tests hold the two to the same figures).
"""

ML = 1e-6  # m³ per mL


def resolve(s, area, radius):
    """(flow m³/s, speed m/s, particles/s) for the emitter settings `s`, or a sentence saying
    why there are none."""
    flow = s.emit_flow * ML if s.emit_mode in {"FLOW", "FLOW_SPEED"} else None
    speed = s.emit_speed if s.emit_mode in {"SPEED", "FLOW_SPEED"} else None
    if flow is not None and speed is not None:
        if flow > 0.0 and speed == 0.0:
            return "A flow needs a positive speed"
        if area > 0.0 and flow > speed * area:
            speed = flow / area  # too much flow for the nozzle at that speed: it leaves faster
    elif area <= 0.0:
        return "No nozzle area: set both flow and speed"
    elif flow is not None:
        speed = flow / area
    else:
        flow = speed * area
    return flow, speed, flow / (2.0 * radius) ** 3


def exported(s):
    """The emission record of the scene file: only the numbers the artist set."""
    return {
        "flow": s.emit_flow * ML if s.emit_mode in {"FLOW", "FLOW_SPEED"} else None,
        "speed": s.emit_speed if s.emit_mode in {"SPEED", "FLOW_SPEED"} else None,
        "frame_start": s.emit_frame_start,
        "frame_end": s.emit_frame_end,
    }
