"""The Bake panel's estimate of what a bake makes and costs: particles, the bake process's
peak memory, the cache per frame (particles and surface meshes) and, roughly, the time.

Particles follow the bake's own rules: liquid fills its volume on a 2r lattice, emitters emit
their flow over a (2r)³ particle volume while they run, and obstacles are counted exactly by
the bake's sampler (`obstacle_count`). Computed from the objects' own meshes (not evaluated,
so drawing the panel never forces a depsgraph evaluation) and cached until the mesh or
transform changes. `tests/blender/test_estimates.py` holds every figure within 20% of a bake.
"""

from typing import NamedTuple

import numpy as np

from . import emission, obstacle_count, spreading, stream

# The bake process's peak resident memory, measured (VmHWM) over bakes of 3,400 to 84,000
# particles with and without surfaces, fitted by least squares to the three terms below
# (within 12% of every bake): Python and gloop_core before any particle (10 MB) with the
# solver's fixed part; per liquid particle (positions, velocities, neighbour lists, the grid);
# per object particle (no neighbour list of its own).
PROCESS_BYTES = 16 * 2**20
SOLVER_BYTES_PER_LIQUID_PARTICLE = 460
SOLVER_BYTES_PER_OBJECT_PARTICLE = 120
# The mesher's working memory per surface vertex (its narrow-band field, kernels and the
# mesh): the peak with surfaces less the peak without, over the same bakes and three pours,
# 450–520 bytes, 490 on average.
MESHER_BYTES_PER_SURFACE_VERTEX = 490
# Particle cache file record: 7 floats + a ushort (position, velocity, material and the
# density correction's carried step; src/cache/particles.rs). Colours are stored once per
# material, since every particle keeps its material's colour (src/cache/material_colours.rs).
CACHE_BYTES_PER_PARTICLE = 30
# Surface PLY records (src/surface/ply.rs): a vertex is xyz and velocity in float32 and
# 8-bit sRGB colour; a face is a uchar count and three uint32 indices.
SURFACE_BYTES_PER_VERTEX = 27
SURFACE_BYTES_PER_TRIANGLE = 13
# Decimation (the Surface panel's Decimation, `max_error` in particle radii): the share of a
# surface's vertices and triangles it keeps at an error target of 0.02 r (surface bytes
# decimated over undecimated). A liquid object's blob or coat keeps little: a 3 cm drop 0.14, a
# 4 cm cube on a ball 0.11 (the bakes of tests/blender/test_estimates.py; with the contact face
# inside opaque obstacles the drop's coat keeps more, 0.14 suits both). A chord across a curved
# surface deviates by h²/8R from it, so triangles grow as the square root of the error target
# and their count falls as its inverse: other targets are scaled so, never above all of them.
DECIMATION_REFERENCE_ERROR = 0.02
KEPT_OF_LIQUID_OBJECT = 0.14
# A puddle keeps more than the object it came from: its flowed top is lumpy at the particle
# scale, and its bottom lies on the board's particles, lumpy too at 0.02 r (the share jumps
# from frame to frame, 0.10 to 0.27, as the bottom's triangles do). Over frames 4–30 of two
# bakes not in the test (Quick Honey on a 6 cm ball, and on a 5 cm cube of 100 Pa·s honey)
# their puddles kept 0.184 and 0.172; the objects before landing 0.15 and 0.13.
# Re-measured after the contact line was sunk whole onto the floor and decimation learnt to
# refuse needles (2026-11-28): the same three puddle bakes not in the test (a 6 cm ball, a 3 cm
# cube, a 5 cm cube of 100 Pa·s honey) decimated to 0.59, 0.69 and 0.76 of their caches before
# (undecimated unchanged), a smoother rim decimating further; the puddle's share is scaled by
# their mean, 0.68 (0.18 -> 0.12). A coat on a ball did not change (the test's cube on a ball
# and drop over a board, 226 and 223 KB per frame before and after), nor its share.
KEPT_OF_PUDDLE = 0.12
# A pour keeps more: its column and its coiled rope are thin tubes, curved across at every
# point. How much decimation keeps of a tube depends on its radius in particle radii, and an
# emitter's particle radius follows its nozzle (`emission.rope_radius`; a nozzle so small that
# the radius stops at the finest allowed would keep more), so every pour keeps about the same
# share of its whole surface. Measured over three pours not in the test (6, 4 and 7 mm nozzles,
# 8, 3 and 10 mL/s, 10, 4 and 12 cm falls, 24–30 frames): 0.336, 0.329 and 0.330 over their
# frames; the falling column alone keeps 0.40–0.47, the rope less once its coils merge into a
# mound. One share puts the test's three decimated pours' caches per frame within 11%, 11% and
# 5% of their bakes (461, 621 and 469 KB against 519, 558 and 493); a column share and a rope
# share fitted frame by frame (0.53, 0.23) put the 15 cm fall 28% over, since the rope's share
# falls as its mound grows. Other targets scale as above: one of the pours at 0.05 r kept 0.150
# (0.132 by the rule), at 0.01 r 0.570 (0.66).
# The same re-measurement on a pour not in the test: decimated 0.94 of before, 0.33 -> 0.31.
KEPT_OF_POUR = 0.31
# The pour's surface (stream.py) was fitted to ropes that shed specks. Since a surface particle
# standing off the liquid is drawn back in (issue 41) the rope is smooth and its surface
# smaller: 0.8 of the model's puts the three pours' whole caches per frame within 6%, 17% and
# 4% of their bakes (1,419, 1,559 and 1,414 KB).
SMOOTH_ROPE_AREA = 0.8
# Marching cubes puts a vertex where the surface crosses a cube edge: per cube-face of area,
# |nx| + |ny| + |nz| for a surface of normal n (`spreading`), whose mean over orientations,
# 1.5, counts a pour's. A liquid object's is summed over its own faces: 1.0 for a cube, 1.5
# for a ball. A closed mesh has two triangles per vertex.
SURFACE_VERTICES_PER_CUBE_FACE = 1.5
# Rough bake time on a 2-core machine: the honey-drop demo simulates 9,200 liquid particles at
# 4–8 substeps in about 0.5 s a frame (about 50 µs each, with the object particles they touch),
# and meshes a frame of 283,000 vertices in 2.3 s (8 µs each).
SECONDS_PER_LIQUID_PARTICLE_FRAME = 50e-6
SECONDS_PER_SURFACE_VERTEX = 8e-6
# Decimation then works through the whole mesh, on rayon's threads as the mesher does: about
# as long again. Re-meshing caches decimated at 0.02 r took more CPU time than undecimated by
# 0.74, 0.67 and 0.71 of it for three puddles (Quick Honey on a 6 cm ball, a 3 cm cube and a
# 5 cm cube of 100 Pa·s honey, 30 frames, 650,000–910,000 vertices in all) and by 1.86 for the
# estimate test's pour (24 frames, 630,000 vertices of thin tubes).
SECONDS_PER_DECIMATED_VERTEX = SECONDS_PER_SURFACE_VERTEX
# Object particles cost time too, however few the liquid touches (issue 42: an unscaled 2 m
# floor under a pour, 4.2 million object particles, took 40 s where 5 were estimated):
# - once, as the bake starts: the sampler places them on every obstacle (serially) and the
#   first substep builds their search grid;
# - again for each validation of the scene that counts them exactly, which it does with the
#   same sampler when the cheap upper bounds of all the counts exceed Max Particles
#   (`Scene::validate`): the add-on's check before the child starts, the child's reading of
#   the scene file and the simulation's own check, three;
# - every frame: each substep copies them into the density correction's arrays, 16 bytes
#   each. Past glibc's largest mmap threshold (32 MiB, 2.1 million particles) each copy is
#   mapped and page-faulted afresh, which costs 2.5 times as much a particle.
# Measured (CPU seconds of `gloop bake --no-surface --confirm`, one thread: the sampler is
# serial and the copies are memory-bound, two threads took as much CPU) on a pour over
# unscaled floors at r = 0.5 mm, 9–10 substeps a frame: 1.98 million object particles, the
# start 1.1 µs each, a frame 0.17 µs each; 4.2 million, a count 1.0 µs each, a frame 0.42 µs.
SECONDS_PER_OBJECT_PARTICLE_BUILT = 1.1e-6
SECONDS_PER_OBJECT_PARTICLE_COUNTED = 1.0e-6
VALIDATIONS_COUNTING_OBSTACLES = 3
SECONDS_PER_OBJECT_PARTICLE_FRAME = 0.17e-6
SECONDS_PER_MAPPED_OBJECT_PARTICLE_FRAME = 0.42e-6
MOST_OBJECT_PARTICLES_UNMAPPED = 32 * 2**20 // 16

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
    figure is recomputed when its mesh is swapped or edited (vertex count) or it moves. The
    mesh's session id tells apart meshes of one name (a file opened after another, a cube
    added in place of an object of the same name)."""
    return (
        ob.name,
        ob.data.name,
        ob.data.session_uid,
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


def _vertex_area(ob):
    t = world_triangles(ob)
    if len(t) == 0:
        return 0.0
    doubled = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])  # normal × twice the area
    return float(np.abs(doubled).sum()) / 2.0


def vertex_area(ob):
    """The object's surface area m² weighed by |nx| + |ny| + |nz| of each face: marching
    cubes meshes it with vertex_area / cube² vertices (`spreading`)."""
    return cached(ob, "vertex_area", _vertex_area)


def rope_radius(ob):
    """The particle radius at which emitter `ob` pours a rope (`emission.rope_radius`), or
    None for a mesh without area."""
    return emission.rope_radius(volume_and_area(ob)[1])


def _obstacle_particles(ob, radius):
    """(object particles, exact) for obstacle `ob` (`obstacle_count`): exact once counted."""
    spacing = 2.0 * radius
    scale = tuple(round(v, 6) for v in ob.matrix_world.to_scale())
    mesh = ob.data
    key = (mesh.name, mesh.session_uid, len(mesh.vertices), mesh.is_editmode, scale, spacing)
    area = volume_and_area(ob)[1]
    return obstacle_count.count(ob.name, key, lambda: world_triangles(ob), area, spacing)


def _obstacle_bound(ob, radius):
    """The sampler's upper bound on obstacle `ob`'s particles (`obstacle_count.upper_bound`)."""
    spacing = 2.0 * radius
    return cached(
        ob,
        ("sampling_bound", spacing),
        lambda o: obstacle_count.upper_bound(world_triangles(o), spacing),
    )


def counted_in_validation(scene, objects, radius, frames):
    """Whether the bake's validations count the obstacles exactly: when the particles the
    scene needs by the cheap bounds (obstacles by `_obstacle_bound`) exceed Max Particles,
    the rule of `Scene::validate` (src/scene/validate.rs)."""
    fps = scene.render.fps / scene.render.fps_base
    bound = 0
    for ob in objects:
        if ob.gloop.type == "OBSTACLE":
            bound += _obstacle_bound(ob, radius)
        else:
            bound += particles_of(ob, radius, fps, frames)[0]
    return bound > scene.gloop.max_particles


def object_particle_seconds(count, frames, counted):
    """The bake time that `count` object particles cost over `frames`, `counted` saying
    whether the validations count them (`counted_in_validation`)."""
    passes = VALIDATIONS_COUNTING_OBSTACLES if counted else 0
    mapped = count > MOST_OBJECT_PARTICLES_UNMAPPED
    per_frame = (
        SECONDS_PER_MAPPED_OBJECT_PARTICLE_FRAME if mapped else SECONDS_PER_OBJECT_PARTICLE_FRAME
    )
    per_particle = (
        SECONDS_PER_OBJECT_PARTICLE_BUILT
        + passes * SECONDS_PER_OBJECT_PARTICLE_COUNTED
        + max(frames[1] - frames[0], 0) * per_frame
    )
    return count * per_particle


def _emission(ob, radius):
    """(flow m³/s, speed m/s, particles/s) of emitter `ob`, zeros if it cannot emit."""
    derived = emission.resolve(ob.gloop, volume_and_area(ob)[1], radius)
    return (0.0, 0.0, 0.0) if isinstance(derived, str) else derived


def _emitted_particles(ob, radius, fps, frames):
    return emission.emitted_within(ob.gloop, _emission(ob, radius)[2], fps, frames)


def drop_to_obstacle(point, objects):
    """How far a liquid at `point` falls straight down before it lands on an obstacle whose
    bounds lie under it (the nearest top at or below the point), or None for no obstacle."""
    from . import domain  # domain measures objects with this module

    drops = []
    for other in objects:
        bounds = domain.world_bounds(other) if other.gloop.type == "OBSTACLE" else None
        if bounds is None:
            continue
        other_lo, other_hi = bounds
        under = (other_lo[:2] <= point[:2]).all() and (point[:2] <= other_hi[:2]).all()
        if under and other_hi[2] <= point[2]:
            drops.append(float(point[2] - other_hi[2]))
    return min(drops) if drops else None


def fall_height(ob, objects, floor):
    """How far emitter `ob`'s liquid falls (straight down from the nozzle's centre) before it
    lands on an obstacle whose bounds lie under it; without one, down to the domain's `floor`
    height, where it is removed."""
    from . import domain  # domain measures objects with this module

    lo, hi = domain.world_bounds(ob)
    nozzle = 0.5 * (lo + hi)
    drop = drop_to_obstacle(nozzle, objects)
    return drop if drop is not None else max(nozzle[2] - floor, 0.0)


def gap_below(ob, objects, radius):
    """How far liquid object `ob` falls (from its lowest point, below its centre) onto an
    obstacle under it, or None for none. An obstacle whose top reaches up to a particle
    spacing into the liquid still counts, at no distance: the liquid rests on it."""
    from . import domain  # domain measures objects with this module

    bounds = domain.world_bounds(ob)
    if bounds is None:
        return None
    lo, hi = bounds
    spacing = 2.0 * radius
    bottom = np.array([0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), lo[2] + spacing])
    drop = drop_to_obstacle(bottom, objects)
    return None if drop is None else max(drop - spacing, 0.0)


def liquid_particles(volume, radius):
    """The particles a liquid object of `volume` m³ is filled with at `radius`: its volume over
    a particle's (2r)³, rounded half away from zero, exactly the bake's count
    (src/geometry/fill.rs)."""
    return int(np.floor(volume / (2.0 * radius) ** 3 + 0.5))


def particles_of(ob, radius, fps, frames):
    """(liquid, object) particles that one Gloop object makes at `radius` over `frames`."""
    kind = ob.gloop.type
    if kind == "EMITTER":
        return _emitted_particles(ob, radius, fps, frames), 0
    if kind == "LIQUID":
        return liquid_particles(volume_and_area(ob)[0], radius), 0
    if kind == "OBSTACLE":
        return 0, _obstacle_particles(ob, radius)[0]
    return 0, 0


def _liquid_object_shape(ob, objects, radius, scene, frames):
    """`_liquid_shape` of a liquid object: as it starts until it lands on the obstacle under
    it and spreads there into a puddle (`spreading`); as it starts throughout with nothing
    under it or without gravity."""
    volume = volume_and_area(ob)[0]
    fps = scene.render.fps / scene.render.fps_base
    seconds = np.arange(frames[1] - frames[0] + 1, dtype=np.float64) / fps
    gravity = float(np.linalg.norm(scene.gravity)) if scene.use_gravity else 0.0
    s = ob.gloop
    shapes = spreading.shapes(
        seconds,
        vertex_area(ob),
        volume,
        s.density,
        s.viscosity,
        gravity,
        gap_below(ob, objects, radius),
    )
    max_error = scene.gloop.surface_max_error
    kept = np.where(
        shapes.puddle,
        decimation_kept(KEPT_OF_PUDDLE, max_error),
        decimation_kept(KEPT_OF_LIQUID_OBJECT, max_error),
    )
    return (
        volume / (2.0 * radius) ** 3,
        float(shapes.vertex_area.mean()),
        float(shapes.vertex_area.max()),
        float((shapes.vertex_area * kept).mean()),
    )


def _liquid_shape(ob, objects, radius, scene, frames):
    """(mean liquid particles, mean vertex area m², largest vertex area m², mean vertex area m²
    as written: what decimation keeps of it) of `ob`'s liquid over the bake's frames, the
    vertex area being the surface's area weighed as marching cubes meshes it (`spreading`):
    a liquid object's as `spreading` models it, an emitter's pour as `stream` does."""
    if ob.gloop.type == "LIQUID":
        return _liquid_object_shape(ob, objects, radius, scene, frames)
    area = volume_and_area(ob)[1]
    cell = (2.0 * radius) ** 3
    max_error = scene.gloop.surface_max_error
    fps = scene.render.fps / scene.render.fps_base
    s = ob.gloop
    frame = np.arange(frames[0], frames[1] + 1, dtype=np.float64)
    end = min(emission.frame_end(s), frames[1] + 1)
    poured = np.clip(frame, s.emit_frame_start, max(end, s.emit_frame_start))
    times = (poured - s.emit_frame_start) / fps
    flow, speed, _ = _emission(ob, radius)
    gravity = float(np.linalg.norm(scene.gravity)) if scene.use_gravity else 0.0
    from . import domain  # domain measures objects with this module

    fall = fall_height(ob, objects, domain.floor_height(scene, objects, radius))
    volumes, areas = stream.volume_and_area(times, area, flow, speed, gravity, fall)
    vertex_areas = SURFACE_VERTICES_PER_CUBE_FACE * SMOOTH_ROPE_AREA * areas
    written = vertex_areas * decimation_kept(KEPT_OF_POUR, max_error)
    return (
        float(volumes.mean()) / cell,
        float(vertex_areas.mean()),
        float(vertex_areas.max()),
        float(written.mean()),
    )


def decimation_kept(kept_at_reference, max_error):
    """The share of a surface's vertices (and triangles) that decimation at `max_error`
    particle radii keeps (1 when off), for a part keeping `kept_at_reference` at 0.02 r."""
    if max_error <= 0.0:
        return 1.0
    return min(1.0, kept_at_reference * DECIMATION_REFERENCE_ERROR / max_error)


class Estimate(NamedTuple):
    liquid: int  # liquid particles by the end of the bake
    solid: int  # object particles
    exact: bool  # False while an obstacle's count runs (`obstacle_count`)
    ram_bytes: int  # the bake process at its peak
    cache_bytes: int  # per frame, particles and surface, averaged over the bake
    seconds: float  # the whole bake, rough (`SECONDS_PER_…`), object particles included


def estimate(scene, objects, frames, radius=None):
    """What a bake of `objects` over `frames` at `radius` (by default the radius the bake
    would use) makes and costs."""
    if radius is None:
        from . import resolution  # resolution sizes objects with this module

        radius = resolution.particle_radius(scene, objects)
    fps = scene.render.fps / scene.render.fps_base
    s = scene.gloop
    liquid = solid = 0
    exact = True
    mean_liquid = vertex_area = largest_vertex_area = written_vertex_area = 0.0
    for ob in objects:
        kind = ob.gloop.type
        if kind == "OBSTACLE":
            count, counted = _obstacle_particles(ob, radius)
            solid += count
            exact = exact and counted
        elif kind in {"LIQUID", "EMITTER"}:
            liquid += particles_of(ob, radius, fps, frames)[0]
            shape = _liquid_shape(ob, objects, radius, scene, frames)
            mean_liquid += shape[0]
            vertex_area += shape[1]
            largest_vertex_area += shape[2]
            written_vertex_area += shape[3]
    cache = mean_liquid * CACHE_BYTES_PER_PARTICLE
    vertices = most_vertices = 0.0
    if s.mesh_surface:
        cube = s.surface_resolution * radius
        vertices = vertex_area / cube**2
        written = written_vertex_area / cube**2
        cache += written * SURFACE_BYTES_PER_VERTEX
        cache += 2.0 * written * SURFACE_BYTES_PER_TRIANGLE
        # The mesher works on the whole mesh before it decimates: memory and time as without.
        most_vertices = largest_vertex_area / cube**2
    # The mesher works on its own thread beside the solver: their peaks add up.
    ram = (
        PROCESS_BYTES
        + SOLVER_BYTES_PER_LIQUID_PARTICLE * liquid
        + SOLVER_BYTES_PER_OBJECT_PARTICLE * solid
        + MESHER_BYTES_PER_SURFACE_VERTEX * most_vertices
    )
    frame_count = max(frames[1] - frames[0], 0)
    per_vertex = SECONDS_PER_SURFACE_VERTEX
    if s.surface_max_error > 0.0:
        per_vertex += SECONDS_PER_DECIMATED_VERTEX
    seconds = frame_count * (
        mean_liquid * SECONDS_PER_LIQUID_PARTICLE_FRAME + vertices * per_vertex
    )
    if solid:
        counted = counted_in_validation(scene, objects, radius, frames)
        seconds += object_particle_seconds(solid, frames, counted)
    return Estimate(liquid, solid, exact, int(ram), int(cache), seconds)


def human_duration(seconds):
    """'40 s', '12 min', '3.5 h'."""
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def human_bytes(n):
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024.0
    return f"{n:.1f} GB"
