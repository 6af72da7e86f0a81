"""The simulation domain: the box where liquid lives; liquid that leaves it is removed.

A Gloop Domain object (type Domain) sets it: its world bounds at the first frame, like
Blender's fluid domain. Without one the domain is automatic: the bounds of every Gloop object
over the bake range, padded by a margin. The automatic margin is a quarter of the scene's
largest side (at least `FEWEST_RADII_OF_MARGIN` particle radii): a viscous liquid does not
splash far, so what leaves the objects' bounds is liquid running off an obstacle's edge or
falling with nothing under it, and it is gone after falling a quarter of the scene instead of
the fixed metre it used to fall (ten times the size of a 10 cm scene, half a second of
simulated free fall).

The panel's checks read the objects' own meshes (cached in `estimate`), so drawing never
forces a depsgraph evaluation; the export checks the evaluated meshes at the first frame.
"""

import numpy as np

from . import estimate

# The automatic margin, as a fraction of the largest side of the objects' bounds.
AUTO_MARGIN_FRACTION = 0.25
# ...and never less than this many particle radii, so a lone drop still has room to move.
FEWEST_RADII_OF_MARGIN = 10.0
# How far (relative to the domain's size) a liquid may poke out before it counts as outside:
# float noise of a liquid made to touch the domain's wall.
TOUCH_TOLERANCE = 1e-5
SIDES = (("−X", "+X"), ("−Y", "+Y"), ("bottom", "top"))


def domain_objects(scene):
    """Mesh objects of type Domain in the scene (a valid scene has at most one)."""
    return [ob for ob in scene.objects if ob.type == "MESH" and ob.gloop.type == "DOMAIN"]


def show_as_domain(ob):
    """Drawn as its bounds and left out of renders, as Blender's fluid domain usually is:
    it only marks where the liquid lives."""
    ob.display_type = "BOUNDS"
    ob.hide_render = True


def points_bounds(points):
    """(lowest corner, highest corner) of an N×3 array of points, or None for no points."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if len(points) == 0:
        return None
    return points.min(axis=0), points.max(axis=0)


def _own_world_bounds(ob):
    mesh = ob.data
    verts = np.empty(len(mesh.vertices) * 3, dtype=np.float64)
    mesh.vertices.foreach_get("co", verts)
    m = np.array(ob.matrix_world, dtype=np.float64)
    return points_bounds(verts.reshape(-1, 3) @ m[:3, :3].T + m[:3, 3])


def world_bounds(ob):
    """World bounds of the object's own mesh as it is now, or None for an empty mesh."""
    return estimate.cached(ob, "world_bounds", _own_world_bounds)


def automatic_margin(bounds, radius):
    """The margin of the automatic domain around `bounds` (see the module's docstring)."""
    lo, hi = bounds
    return max(AUTO_MARGIN_FRACTION * float(np.max(hi - lo)), FEWEST_RADII_OF_MARGIN * radius)


def floor_height(scene, objects, radius):
    """The height of the domain's bottom as the panel sees it: the Domain object's, else the
    objects' lowest point less the margin (automatic or the artist's)."""
    domains = domain_objects(scene)
    box = world_bounds(domains[0]) if domains else None
    if box is not None:
        return float(box[0][2])
    boxes = [b for b in (world_bounds(ob) for ob in objects) if b is not None]
    if not boxes:
        return 0.0
    lo = np.min([b[0] for b in boxes], axis=0)
    hi = np.max([b[1] for b in boxes], axis=0)
    s = scene.gloop
    pad = automatic_margin((lo, hi), radius) if s.use_auto_margin else max(s.domain_margin, 0.05)
    return float(lo[2] - pad)


def length_text(metres):
    """A length for a panel sentence: millimetres below 10 cm, else metres."""
    return f"{metres * 1e3:.1f} mm" if metres < 0.1 else f"{metres:.2f} m"


def too_many(domains):
    """The sentence for more than one Domain object."""
    names = [f"'{ob.name}'" for ob in domains]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}"
    return (
        f"{len(domains)} Gloop Domains, {listed}: a scene has one domain. Set the type of "
        "all but one to None"
    )


def not_held(kind, name, inner, domain_name, outer):
    """The sentence for a liquid or emitter whose bounds `inner` reach outside the domain's
    bounds `outer`, or None when the domain holds it. Names the side it pokes out most."""
    tolerance = TOUCH_TOLERANCE * float(np.max(outer[1] - outer[0]))
    below = outer[0] - inner[0]  # > 0 where the object pokes out on the low side
    above = inner[1] - outer[1]
    worst = max(
        [(float(below[a]), SIDES[a][0]) for a in range(3)]
        + [(float(above[a]), SIDES[a][1]) for a in range(3)]
    )
    if worst[0] <= tolerance:
        return None
    return (
        f"{kind} '{name}' is not inside Domain '{domain_name}': it reaches "
        f"{length_text(worst[0])} past the domain's {worst[1]} side. Enlarge the domain or "
        "move the object in (liquid outside the domain is removed)"
    )


def _may_move(ob):
    """Whether the object may be elsewhere at another frame (keyframes, drivers, a parent or
    constraints): its place now says nothing certain about the first frame."""
    return ob.animation_data is not None or ob.parent is not None or len(ob.constraints) > 0


def problems(scene, objects, first_frame):
    """Sentences naming what is wrong with the domain: more than one, or one that does not
    hold a liquid or emitter of `objects` at the bake's `first_frame`. Said only when
    certain: judged on the objects' own meshes as they are now, so a mesh its modifiers
    reshape, or an object that may be elsewhere at the first frame while the playhead is not
    there, is left to the bake's check (on the evaluated meshes at the first frame)."""
    domains = domain_objects(scene)
    if len(domains) > 1:
        return [too_many(domains)]
    if not domains:
        return []
    box = world_bounds(domains[0])
    if box is None:
        return [f"Domain '{domains[0].name}' has no vertices: give it a box mesh"]
    at_first_frame = scene.frame_current == first_frame
    found = []
    for ob in objects:
        if ob.gloop.type not in {"LIQUID", "EMITTER"} or any(m.show_viewport for m in ob.modifiers):
            continue
        if not at_first_frame and (_may_move(ob) or _may_move(domains[0])):
            continue
        bounds = world_bounds(ob)
        if bounds is not None:
            found.append(not_held(ob.gloop.type.title(), ob.name, bounds, domains[0].name, box))
    return [problem for problem in found if problem]
