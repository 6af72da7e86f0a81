"""What the Gloop Bake panel shows before Bake: the radius the bake will use, the estimate, and
anything that would make the bake fail (no liquid, an open liquid mesh, a liquid too small for
a single particle, over the particle cap, an emitter that cannot emit, two domains, a domain
that does not hold the liquid), each naming the object.

The bake checks all of this again in Rust on the exported (evaluated) meshes; these checks read
the objects' own meshes so that drawing the panel never forces a depsgraph evaluation, and
every per-object figure is cached (`estimate.cached`) until the mesh or the transform changes,
so a redraw costs little even with a 100k-vertex obstacle in the scene.
"""

import textwrap
from typing import NamedTuple

import numpy as np

from . import domain, emission, estimate, export, resolution


class Preflight(NamedTuple):
    radius: float
    automatic: resolution.Automatic | None  # what sets the radius, when Automatic sets it
    estimate: estimate.Estimate  # what the bake will make and cost
    problems: list  # sentences naming the object, each a reason the bake would fail


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
            "faces. A liquid mesh must be closed"
        )
    if not holds_a_particle(ob, radius):
        return (
            f"Liquid '{ob.name}' is too small to hold a particle at radius "
            f"{radius * 1e3:.2f} mm: lower the Particle Radius or enlarge it"
        )
    return None


def _emitter_problem(ob, radius):
    """Why one Emitter cannot emit at `radius` (no nozzle area, a flow without speed), or
    None."""
    derived = emission.resolve(ob.gloop, estimate.volume_and_area(ob)[1], radius)
    return f"Emitter '{ob.name}': {derived}" if isinstance(derived, str) else None


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
    found.extend(domain.problems(scene, objects, frames[0]))
    found.append(_cap_problem(scene, objects, radius, frames, automatic))
    return [problem for problem in found if problem]


def preflight(scene):
    """Everything the Gloop Bake panel shows before a bake, for `scene` as it is now."""
    objects = export.gloop_objects(scene)
    automatic = resolution.automatic(objects) if scene.gloop.use_auto_radius else None
    radius = automatic.radius if automatic is not None else scene.gloop.particle_radius
    frames = export.frame_range(scene)
    figures = estimate.estimate(scene, objects, frames, radius)
    found = problems_at(scene, objects, radius, frames, automatic)
    return Preflight(radius, automatic, figures, found)


def wrap(sentence, width=46):
    """A sentence cut into lines for panel labels (Blender's labels never wrap)."""
    return textwrap.wrap(sentence, width)
