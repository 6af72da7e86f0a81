"""Live particle-count and memory estimate for the scene panel.

The same rules as the bake's cap check (`src/scene/validate.rs`): liquid fills its volume on a
2r lattice, obstacles are sampled every 2r over their surface, emitters emit their flow over a
(2r)³ particle volume for as long as they run.
Computed from the objects' own meshes (not evaluated, so drawing the panel never forces a
depsgraph evaluation) and cached until the mesh or transform changes.
"""

import numpy as np

from . import emission

# Solver memory per particle: position, velocity, forces, colour, neighbour lists (~40
# neighbours × 4 bytes) and the spatial grid; a deliberately round upper estimate.
SOLVER_BYTES_PER_PARTICLE = 400
# Particle cache file record: 10 floats + a ushort (position, velocity, material, colour and
# the density correction's carried step; src/cache/particles.rs).
CACHE_BYTES_PER_PARTICLE = 42

_cache = {}


def world_triangles(ob):
    """The object's own mesh as world-space triangles, T×3×3."""
    mesh = ob.data
    verts = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
    mesh.vertices.foreach_get("co", verts)
    verts = verts.reshape(-1, 3)
    m = np.array(ob.matrix_world, dtype=np.float64)
    verts = verts @ m[:3, :3].T + m[:3, 3]
    tris = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int64)
    mesh.loop_triangles.foreach_get("vertices", tris)
    return verts[tris.reshape(-1, 3)]


def object_key(ob):
    """What an object's cached figures depend on, cheap to compute on every redraw: a
    figure is recomputed when its mesh is swapped or edited (vertex count) or it moves."""
    return (
        ob.name,
        ob.data.name,
        len(ob.data.vertices),
        tuple(round(v, 6) for row in ob.matrix_world for v in row),
        ob.data.is_editmode,
    )


def cached(ob, what, compute):
    """`compute(ob)`, remembered per object and `what` until `object_key(ob)` changes."""
    key = object_key(ob)
    hit = _cache.get((ob.name, what))
    if hit is not None and hit[0] == key:
        return hit[1]
    result = compute(ob)
    _cache[(ob.name, what)] = (key, result)
    return result


def _volume_and_area(ob):
    t = world_triangles(ob)
    if len(t) == 0:
        return (0.0, 0.0)
    a, b, c = t[:, 0], t[:, 1], t[:, 2]
    volume = abs(float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum()) / 6.0)
    area = float(np.linalg.norm(np.cross(b - a, c - a), axis=1).sum()) / 2.0
    return (volume, area)


def volume_and_area(ob):
    """(enclosed volume m³, surface area m²) of the object's own mesh in world space."""
    return cached(ob, "volume_and_area", _volume_and_area)


def rope_radius(ob):
    """The particle radius at which emitter `ob` pours a rope (`emission.rope_radius`), or
    None for a mesh without area."""
    return emission.rope_radius(volume_and_area(ob)[1])


def particles_of(ob, radius, fps, frames):
    """(liquid, object) particles that one Gloop object makes at `radius` over `frames`."""
    s = ob.gloop
    spacing = 2.0 * radius
    volume, area = volume_and_area(ob)
    if s.type == "EMITTER":
        emitting = max(0, min(s.emit_frame_end, frames[1]) - s.emit_frame_start)
        derived = emission.resolve(s, area, radius)
        per_second = 0.0 if isinstance(derived, str) else derived[2]
        return int(np.ceil(per_second * emitting / fps)), 0
    if s.type == "LIQUID":
        return int(volume / spacing**3), 0
    if s.type == "OBSTACLE":
        return 0, int(area / spacing**2)
    return 0, 0


def estimate(scene, objects, frames, radius=None):
    """(liquid particles, object particles, solver bytes, cache bytes per frame) at `radius`
    (by default the radius the bake would use)."""
    if radius is None:
        from . import resolution  # resolution sizes objects with this module

        radius = resolution.particle_radius(scene, objects)
    fps = scene.render.fps / scene.render.fps_base
    liquid = 0
    solid = 0
    for ob in objects:
        ob_liquid, ob_solid = particles_of(ob, radius, fps, frames)
        liquid += ob_liquid
        solid += ob_solid
    total = liquid + solid
    return (
        liquid,
        solid,
        total * SOLVER_BYTES_PER_PARTICLE,
        liquid * CACHE_BYTES_PER_PARTICLE,
    )


def human_bytes(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0
    return f"{n:.1f} GB"
