"""What the Gloop Bake panel shows before Bake: the radius the bake will use, the estimate,
anything that would make the bake fail (no liquid, an open liquid mesh, a liquid too small for
a single particle, over the particle cap, an emitter that cannot emit or emits nothing within
the frames, two domains, a domain that does not hold the liquid), and what Bake asks to
confirm (a liquid below the resolution, over a million object particles), each naming the
object and the fix.

The bake checks all of this again in Rust on the exported (evaluated) meshes; these checks read
the objects' own meshes so that drawing the panel never forces a depsgraph evaluation, and
every per-object figure is cached (`estimate.cached`) until the mesh or the transform changes,
so a redraw costs little even with a 100k-vertex obstacle in the scene.
"""

import textwrap
from typing import NamedTuple

import numpy as np

from . import domain, emission, estimate, export, resolution

# What Bake asks to confirm, as the core's `Scene::cautions` does (src/scene/cautions.rs): a
# liquid of fewer particles than this does not flow or mesh as a liquid (a 2 mm cube at the
# finest radius holds 8), and over this many object particles slow the bake's start and every
# substep (an unscaled 2 m floor under a pour: 4.2 million, 40 s where the pour takes 5).
FEWEST_LIQUID_PARTICLES = 50
MOST_OBJECT_PARTICLES = 1_000_000


class Preflight(NamedTuple):
    radius: float
    automatic: resolution.Automatic | None  # what sets the radius, when Automatic sets it
    estimate: estimate.Estimate  # what the bake will make and cost
    problems: list  # sentences naming the object, each a reason the bake would fail
    cautions: list  # sentences naming the object and the fix, each asked before Bake


def open_edge_count(ob):
    """Edges of the object's own mesh that belong to one face or to more than two: a liquid
    mesh with any cannot be filled (the rule of `geometry::open_edge_count`)."""
    return estimate.cached(ob, "open_edges", _open_edges)


def _open_edges(ob):
    mesh = ob.data
    edge_of_corner = np.empty(len(mesh.loops), dtype=np.int64)
    mesh.loops.foreach_get("edge_index", edge_of_corner)
    faces_per_edge = np.bincount(edge_of_corner, minlength=len(mesh.edges))
    return int(np.count_nonzero((faces_per_edge == 1) | (faces_per_edge > 2)))


def holds_a_particle(ob, radius):
    """Whether the bake fills the liquid with any particle: it holds round(V / (2r)³) of them
    (`estimate.liquid_particles`), so one needs half a particle's volume, wherever the object
    sits on the lattice."""
    return estimate.liquid_particles(estimate.volume_and_area(ob)[0], radius) >= 1


def _shaped_by_modifiers(ob):
    """Whether the bake will see another mesh than the object's own: the export takes the
    evaluated mesh, and a Solidify can close a plane or an Array enlarge a drop."""
    return any(m.show_viewport for m in ob.modifiers)


def _liquid_problem(ob, radius):
    """Why one Liquid object cannot be filled at `radius`, or None. Said only when certain:
    of a mesh its modifiers reshape, the bake's own check (on the evaluated mesh) decides."""
    if _shaped_by_modifiers(ob):
        return None
    open_edges = open_edge_count(ob)
    if open_edges:
        return (
            f"Liquid '{ob.name}' is open: {open_edges:,} edges do not join exactly two "
            "faces. A liquid mesh must be closed: in Edit Mode, Select > Select All by Trait > "
            "Non Manifold shows them; Mesh > Clean Up > Merge by Distance or Fill Holes "
            "closes most"
        )
    if not holds_a_particle(ob, radius):
        return (
            f"Liquid '{ob.name}' is too small to hold a particle at radius "
            f"{radius * 1e3:.2f} mm: lower the Particle Radius or enlarge it"
        )
    return None


def _emitter_problem(ob, radius):
    """Why one Emitter cannot emit at `radius` (no flow, no speed, no nozzle area), or
    None."""
    derived = emission.resolve(ob.gloop, estimate.volume_and_area(ob)[1], radius)
    return f"Emitter '{ob.name}' has {derived}" if isinstance(derived, str) else None


def _nothing_emitted_problem(scene, objects, radius, frames):
    """When the scene has no Liquid object and its emitters emit no particle within the
    bake's frames, the sentence saying so (the bake refuses to make nothing); else None."""
    if any(ob.gloop.type == "LIQUID" for ob in objects):
        return None
    fps = scene.render.fps / scene.render.fps_base
    emitters = [ob for ob in objects if ob.gloop.type == "EMITTER"]
    for ob in emitters:
        derived = emission.resolve(ob.gloop, estimate.volume_and_area(ob)[1], radius)
        if isinstance(derived, str) or emission.emitted_within(ob.gloop, derived[2], fps, frames):
            return None  # said by `_emitter_problem`, or it emits
    runs = ", ".join(
        f"'{ob.name}' {ob.gloop.emit_frame_start}–"
        + ("the end" if ob.gloop.emit_until_end else f"{ob.gloop.emit_frame_end}")
        for ob in emitters
    )
    return (
        f"Nothing is emitted in frames {frames[0]}–{frames[1]} (emitting: {runs}): set the "
        "emitter's Frame Start and End within the bake's frames, or raise its Flow"
    )


def _cap_problem(scene, objects, radius, frames, automatic):
    """The sentence saying the scene needs more particles than Max Particles, naming the
    object that needs most, or None."""
    fps = scene.render.fps / scene.render.fps_base
    counts = {ob.name: sum(estimate.particles_of(ob, radius, fps, frames)) for ob in objects}
    total, cap = sum(counts.values()), scene.gloop.max_particles
    if total <= cap:
        return None
    biggest = max(counts, key=counts.get)
    needs = (
        f"needs ≈ {total:,} particles at radius {radius * 1e3:.2f} mm, over Max Particles "
        f"({cap:,}); most in '{biggest}' (≈ {counts[biggest]:,})."
    )
    if automatic is not None:
        return (
            f"Automatic Resolution (set by '{automatic.object_name}') {needs} Raise Max "
            "Particles, or turn Automatic off and set a coarser radius"
        )
    return f"The scene {needs} Raise the radius or Max Particles"


def problems_at(scene, objects, radius, frames, automatic=None):
    """Every reason a bake of `objects` at `radius` would fail, each naming the object."""
    if not any(ob.gloop.type in {"LIQUID", "EMITTER"} for ob in objects):
        return [f"Scene '{scene.name}' has no liquid: mark an object as Liquid or Emitter"]
    found = []
    for ob in objects:
        if ob.gloop.type == "LIQUID":
            found.append(_liquid_problem(ob, radius))
        elif ob.gloop.type == "EMITTER":
            found.append(_emitter_problem(ob, radius))
    found.append(_nothing_emitted_problem(scene, objects, radius, frames))
    found.extend(domain.problems(scene, objects, frames[0]))
    found.append(_cap_problem(scene, objects, radius, frames, automatic))
    return [problem for problem in found if problem]


def _tiny_liquid_caution(ob, radius):
    """The sentence asking about Liquid `ob` when it holds particles, but fewer than
    `FEWEST_LIQUID_PARTICLES` at `radius`, with the fix; else None."""
    if _shaped_by_modifiers(ob):
        return None  # the bake's own check sees the evaluated mesh
    volume = estimate.volume_and_area(ob)[0]
    count = volume / (2.0 * radius) ** 3
    if count >= FEWEST_LIQUID_PARTICLES or not holds_a_particle(ob, radius):
        return None  # enough, or none at all: `_liquid_problem` says so
    # The count goes as r⁻³: the radius at which it would hold enough.
    enough = radius * (count / FEWEST_LIQUID_PARTICLES) ** (1.0 / 3.0)
    said = (
        f"Liquid '{ob.name}' gets ≈ {max(round(count), 1):,} particles at radius "
        f"{radius * 1e3:.2f} mm, too few to flow as a liquid ({FEWEST_LIQUID_PARTICLES} at least)"
    )
    if enough < emission.FINEST_RADIUS:
        lo, hi = domain.world_bounds(ob)
        across = domain.length_text(float(max(hi - lo)))
        return (
            f"{said}: it is {across} across and Gloop works to scale (1 unit = 1 m); scale "
            f"it up (the finest radius is {emission.FINEST_RADIUS * 1e3:.2f} mm)"
        )
    return f"{said}: set the Particle Radius to {enough * 1e3:.2f} mm or less, or enlarge it"


def _object_particles_caution(scene, objects, radius, frames):
    """The sentence asking about over `MOST_OBJECT_PARTICLES` object particles, naming the
    obstacle with most and what it costs; else None."""
    fps = scene.render.fps / scene.render.fps_base
    counts = {
        ob.name: estimate.particles_of(ob, radius, fps, frames)[1]
        for ob in objects
        if ob.gloop.type == "OBSTACLE"
    }
    total = sum(counts.values())
    if total <= MOST_OBJECT_PARTICLES:
        return None
    most = max(counts, key=counts.get)
    seconds = estimate.object_particle_seconds(
        counts[most], frames, estimate.counted_in_validation(scene, objects, radius, frames)
    )
    in_all = "" if counts[most] == total else f" ({total:,} in all)"
    return (
        f"Obstacle '{most}' makes ≈ {counts[most]:,} object particles{in_all}, over "
        f"{MOST_OBJECT_PARTICLES:,}: ≈ {estimate.human_duration(seconds)} of the bake. Scale "
        "it down to where the liquid lands, or set a coarser Particle Radius"
    )


def cautions_at(scene, objects, radius, frames):
    """Every sentence Bake asks to confirm for a bake of `objects` at `radius`."""
    found = [_tiny_liquid_caution(ob, radius) for ob in objects if ob.gloop.type == "LIQUID"]
    found.append(_object_particles_caution(scene, objects, radius, frames))
    return [caution for caution in found if caution]


def preflight(scene):
    """Everything the Gloop Bake panel shows before a bake, for `scene` as it is now."""
    objects = export.gloop_objects(scene)
    automatic = resolution.automatic(objects) if scene.gloop.use_auto_radius else None
    radius = automatic.radius if automatic is not None else scene.gloop.particle_radius
    frames = export.frame_range(scene)
    figures = estimate.estimate(scene, objects, frames, radius)
    found = problems_at(scene, objects, radius, frames, automatic)
    asked = cautions_at(scene, objects, radius, frames)
    return Preflight(radius, automatic, figures, found, asked)


def wrap(sentence, width=46):
    """A sentence cut into lines for panel labels (Blender's labels never wrap)."""
    return textwrap.wrap(sentence, width)
