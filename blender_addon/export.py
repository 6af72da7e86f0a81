"""Blender scene → Gloop scene JSON (the serde model of `src/scene`).

Every Gloop object's evaluated mesh is triangulated; its motion over the bake range is
classified by sampling every frame: vertices that move in object space → `deforming`
(world-space positions per frame), only `matrix_world` changes → `rigid` (one matrix per
frame), nothing changes → `static`. glam serializes `Vec3` as `[x, y, z]` and `Mat4` as 16
floats, column-major.
"""

import json
import os

import numpy as np

from . import domain, emission, resolution

SCENE_FORMAT_VERSION = 3
# Relative tolerance when deciding whether an object moved or deformed between frames.
MOTION_TOLERANCE = 1e-6


class ExportError(Exception):
    """A problem with the Blender scene, with the object named."""


def frame_range(scene):
    s = scene.gloop
    if s.use_scene_frame_range:
        return scene.frame_start, scene.frame_end
    return s.frame_start, s.frame_end


def gloop_objects(scene):
    """The objects the bake simulates: liquids, emitters and obstacles (not the domain, which
    only bounds them, nor the object showing the baked liquid)."""
    return [
        ob
        for ob in scene.objects
        if ob.type == "MESH"
        and ob.gloop.type not in {"NONE", "DOMAIN"}
        and ob != scene.gloop.liquid_object
    ]


def matrix_columns(matrix):
    """A Blender 4×4 matrix as glam's column-major 16 floats."""
    return [float(matrix[row][col]) for col in range(4) for row in range(4)]


def _sample(ob, depsgraph):
    """(local vertices N×3, triangles T×3, world matrix) of the object's evaluated mesh."""
    ob_eval = ob.evaluated_get(depsgraph)
    mesh = ob_eval.to_mesh()
    try:
        mesh.calc_loop_triangles()
        verts = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
        mesh.vertices.foreach_get("co", verts)
        tris = np.empty(len(mesh.loop_triangles) * 3, dtype=np.int32)
        mesh.loop_triangles.foreach_get("vertices", tris)
        return verts.reshape(-1, 3), tris.reshape(-1, 3), ob_eval.matrix_world.copy()
    finally:
        ob_eval.to_mesh_clear()


def _changed(a, b):
    scale = max(1.0, float(np.abs(a).max(initial=0.0)))
    return a.shape != b.shape or float(np.abs(a - b).max(initial=0.0)) > MOTION_TOLERANCE * scale


def sample_objects(scene, depsgraph, objects, frames):
    """Per object: a list of (verts, tris, matrix) per frame. Restores the current frame."""
    from . import playback

    original = (scene.frame_current, scene.frame_subframe)
    samples = {ob.name: [] for ob in objects}
    playback.STATE.suspended = True  # stepping frames must not load liquid meshes
    try:
        for frame in frames:
            scene.frame_set(frame)
            for ob in objects:
                samples[ob.name].append(_sample(ob, depsgraph))
    finally:
        playback.STATE.suspended = False
        scene.frame_set(original[0], subframe=original[1])
    return samples


def motion_of(name, frames, samples):
    """The scene `Motion` of one object from its per-frame samples, plus its mesh."""
    verts0, tris0, matrix0 = samples[0]
    if len(tris0) == 0:
        raise ExportError(f"Object '{name}' has no faces; Gloop needs a surface mesh")
    deforms = any(_changed(verts0, v) or t.shape != tris0.shape for v, t, _ in samples[1:])
    if deforms:
        if any(len(v) != len(verts0) or not np.array_equal(t, tris0) for v, t, _ in samples):
            raise ExportError(
                f"Object '{name}' changes its topology during the bake range; Gloop needs the "
                "same vertices and faces on every frame"
            )
        positions = []
        for verts, _, matrix in samples:
            m = np.array(matrix, dtype=np.float64)
            world = verts @ m[:3, :3].T + m[:3, 3]
            positions.append(world.astype(np.float32).tolist())
        motion = {"deforming": {"first_frame": frames[0], "positions": positions}}
    else:
        mats = [np.array(m, dtype=np.float64) for _, _, m in samples]
        if any(_changed(mats[0], m) for m in mats[1:]):
            motion = {
                "rigid": {
                    "first_frame": frames[0],
                    "matrices": [matrix_columns(m) for _, _, m in samples],
                }
            }
        else:
            motion = {"static": {"matrix": matrix_columns(matrix0)}}
    mesh = {"vertices": verts0.tolist(), "triangles": tris0.tolist()}
    return mesh, motion


def _liquid_material(s):
    return {
        "name": s.liquid_name or "liquid",
        "density": s.density,
        "viscosity": s.viscosity,
        "colour": list(s.colour),
        "cohesion": s.cohesion,
        "miscible": s.miscible,
        "look": s.look.lower(),
    }


def _renders_see_through(ob):
    """Glass, by preset or by its Blender material (a Principled BSDF mostly transmissive):
    the liquid's contact face then stays outside it (src/surface/contact.rs)."""
    if ob.gloop.solid_preset == "GLASS":
        return True
    for slot in ob.material_slots:
        tree = slot.material.node_tree if slot.material is not None else None
        for node in tree.nodes if tree is not None else ():
            if node.type != "BSDF_PRINCIPLED":
                continue
            for name in ("Transmission Weight", "Transmission"):
                socket = node.inputs.get(name)
                if socket is not None and not socket.is_linked and socket.default_value >= 0.5:
                    return True
    return False


def _solid_material(ob):
    s = ob.gloop
    return {
        "name": s.solid_name or "solid",
        "friction": s.friction,
        "stickiness": s.stickiness,
        "see_through": _renders_see_through(ob),
    }


def _add_material(table, material, owner):
    """Adds a material by name; the same name with different values is an error."""
    existing = table.get(material["name"])
    if existing is None:
        table[material["name"]] = (material, owner)
    elif existing[0] != material:
        raise ExportError(
            f"Material '{material['name']}' has different values on objects '{existing[1]}' "
            f"and '{owner}'; give one of them another material name"
        )


def _role(ob, liquids, solids):
    s = ob.gloop
    if s.type in {"LIQUID", "EMITTER"}:
        material = _liquid_material(s)
        _add_material(liquids, material, ob.name)
        if s.type == "LIQUID":
            return {
                "type": "liquid",
                "material": material["name"],
                "initial_velocity": list(s.initial_velocity),
            }
        return {
            "type": "emitter",
            "material": material["name"],
            "emission": emission.exported(s),
        }
    material = _solid_material(ob)
    existing = solids.get(material["name"])
    if existing is not None and existing[0]["see_through"] != material["see_through"]:
        # Only how it renders differs: the contact face stays outside the solid on all of them.
        material["see_through"] = existing[0]["see_through"] = True
    _add_material(solids, material, ob.name)
    return {"type": "obstacle", "material": material["name"]}


def _first_frame_points(o):
    """World positions of an exported object's vertices at the first frame of the bake."""
    motion = o["motion"]
    if "deforming" in motion:
        return np.array(motion["deforming"]["positions"][0], dtype=np.float64)
    matrix = motion["rigid"]["matrices"][0] if "rigid" in motion else motion["static"]["matrix"]
    return _placed(o["mesh"]["vertices"], matrix)


def _placed(vertices, matrix):
    m4 = np.array(matrix, dtype=np.float64).reshape(4, 4).T  # column-major → row-major
    return np.array(vertices, dtype=np.float64).reshape(-1, 3) @ m4[:3, :3].T + m4[:3, 3]


def _objects_bounds(objects_json):
    """Bounds of every exported object over every frame of the bake."""
    lo = np.full(3, np.inf)
    hi = np.full(3, -np.inf)
    for o in objects_json:
        motion = o["motion"]
        if "deforming" in motion:
            clouds = [np.array(p) for p in motion["deforming"]["positions"]]
        else:
            mats = (
                motion["rigid"]["matrices"] if "rigid" in motion else [motion["static"]["matrix"]]
            )
            clouds = [_placed(o["mesh"]["vertices"], m) for m in mats]
        for c in clouds:
            lo = np.minimum(lo, c.min(axis=0))
            hi = np.maximum(hi, c.max(axis=0))
    return lo, hi


def _automatic_domain(objects_json, s, radius):
    """The objects' bounds padded by the automatic margin, or by the artist's."""
    lo, hi = _objects_bounds(objects_json)
    if s.use_auto_margin:
        pad = domain.automatic_margin((lo, hi), radius)
    else:
        pad = max(s.domain_margin, 0.05)
    return lo - pad, hi + pad


def _domain_from_object(name, sample, objects_json):
    """The domain object's world bounds at the first frame; refuses a liquid or emitter it
    does not hold, naming both."""
    verts, _tris, matrix = sample
    m = np.array(matrix, dtype=np.float64)
    box = domain.points_bounds(verts @ m[:3, :3].T + m[:3, 3])
    if box is None or np.any(box[1] <= box[0]):
        raise ExportError(f"Domain '{name}' has no volume: give it a box mesh")
    for o in objects_json:
        kind = o["role"]["type"]
        if kind in {"liquid", "emitter"}:
            bounds = domain.points_bounds(_first_frame_points(o))
            problem = domain.not_held(kind.title(), o["name"], bounds, name, box)
            if problem:
                raise ExportError(problem)
    return box


def _domain_settings(lo, hi):
    return {"min": list(map(float, lo)), "max": list(map(float, hi)), "periodic": [False] * 3}


def build_scene(scene, depsgraph):
    """The scene as a JSON-ready dict. Raises ExportError naming the offending object."""
    objects = gloop_objects(scene)
    if not any(ob.gloop.type in {"LIQUID", "EMITTER"} for ob in objects):
        raise ExportError("No Gloop Liquid or Emitter object: mark one in Physics > Gloop")
    start, end = frame_range(scene)
    if end < start:
        raise ExportError(f"Frame range {start}–{end} is empty")
    frames = list(range(start, end + 1))
    domains = domain.domain_objects(scene)
    if len(domains) > 1:
        raise ExportError(domain.too_many(domains))
    samples = sample_objects(scene, depsgraph, objects + domains, frames)
    liquids, solids, objects_json = {}, {}, []
    for ob in objects:
        mesh, motion = motion_of(ob.name, frames, samples[ob.name])
        objects_json.append(
            {
                "name": ob.name,
                "role": _role(ob, liquids, solids),
                "mesh": mesh,
                "motion": motion,
            }
        )
    s = scene.gloop
    radius = resolution.particle_radius(scene, objects)
    if domains:
        box = _domain_from_object(domains[0].name, samples[domains[0].name][0], objects_json)
    else:
        box = _automatic_domain(objects_json, s, radius)
    fps = scene.render.fps / scene.render.fps_base
    settings = {
        "fps": fps,
        "frame_start": start,
        "frame_end": end,
        "particle_radius": radius,
        "substeps": s.substeps,
        "max_substeps": s.max_substeps,
        "moves": s.moves,
        "gravity": list(scene.gravity) if scene.use_gravity else [0.0, 0.0, 0.0],
        "density_tolerance": 0.01,
        # The solver's default (and the validation scenes'): 0.3 left a resting tank
        # jittering faster and above the 1% density tolerance, and took more passes.
        "elastic_coefficient": 0.5,
        "max_density_iterations": s.max_density_iterations,
        "domain": _domain_settings(*box),
        "max_particles": s.max_particles,
        "viscosity_model": s.viscosity_model,
    }
    return {
        "version": SCENE_FORMAT_VERSION,
        "settings": settings,
        "materials": {
            "liquids": [m for m, _ in liquids.values()],
            "solids": [m for m, _ in solids.values()],
            "adhesion_overrides": [],
        },
        "objects": objects_json,
    }


def write_json_atomically(path, data):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(data, f, separators=(",", ":"))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def export_scene(scene, depsgraph, cache_dir):
    """Writes `scene.json` into the cache folder and returns its path."""
    os.makedirs(cache_dir, exist_ok=True)
    path = os.path.join(cache_dir, "scene.json")
    write_json_atomically(path, build_scene(scene, depsgraph))
    return path
