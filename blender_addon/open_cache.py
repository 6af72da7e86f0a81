"""Open Cache: plays back any Gloop cache folder in Blender (a bake from the add-on, from
`gloop bake`, or from `gloop demo`).

It points the scene's cache folder at it, creates the "Gloop Liquid" object that the playback
handler fills frame by frame, and sets the frame range and rate from the manifest. Where the
cache holds its scene file (`scene.gloop`, written by every bake; `scene.json` as the add-on
exports it), the obstacles are made too, as Gloop Obstacle objects carrying their solid
material, each moving as it was baked:

- static: its world matrix;
- rigid: its matrix keyframed at every baked frame (location, quaternion, scale);
- deforming: one shape key per frame, each keyframed to 1 on its frame and 0 around it.
  Shape keys rather than a frame-change handler: they are saved in the .blend, render on a
  farm without the add-on, and need no code to run at render time.

Bad input (not a cache, another Gloop version, a missing or corrupt scene file) gives one
clear report naming the file; a missing or unreadable scene file still opens the liquid.
"""

import json
import math
import os

import bpy
from mathutils import Matrix

from . import playback

OBSTACLES_COLLECTION = "Gloop Cache Obstacles"
SCENE_FILES = ("scene.gloop", "scene.json")

# Viewport and Cycles colour of a few solids by name (linear RGB, metallic, roughness); others
# are a neutral grey. Only a look: the physics is in the solid material's numbers.
SOLID_LOOKS = {
    "steel": ((0.55, 0.56, 0.58), 1.0, 0.25),
    "glass": ((0.9, 0.95, 0.95), 0.0, 0.05),
    "ceramic": ((0.85, 0.83, 0.78), 0.0, 0.2),
    "plastic": ((0.2, 0.35, 0.7), 0.0, 0.4),
    "wood": ((0.42, 0.24, 0.11), 0.0, 0.6),
    "fabric": ((0.5, 0.12, 0.12), 0.0, 0.9),
}


class CacheError(Exception):
    """A cache folder that cannot be opened; the message names the file."""


def read_manifest(cache_dir):
    """The cache's manifest as a dict, or CacheError saying why it cannot be opened."""
    if not os.path.isdir(cache_dir):
        raise CacheError(f"'{cache_dir}' is not a folder")
    path = os.path.join(cache_dir, "manifest.json")
    if not os.path.isfile(path):
        raise CacheError(f"'{cache_dir}' is not a Gloop cache folder: it has no manifest.json")
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError) as e:
        raise CacheError(f"{path} cannot be read: {e}") from e
    if not isinstance(manifest, dict):
        raise CacheError(f"{path} is not a Gloop manifest")
    import gloop_core

    supported = gloop_core.CACHE_FORMAT_VERSION
    version = manifest.get("format_version")
    made_by = manifest.get("gloop_version", "an unknown Gloop")
    if not isinstance(version, int):
        raise CacheError(f"{path} has no cache format version: not a Gloop cache")
    if version != supported:
        newer = "newer" if version > supported else "older"
        raise CacheError(
            f"{path}: this cache was written by Gloop {made_by} in cache format {version}, "
            f"{newer} than the format {supported} this Gloop ({gloop_core.version()}) reads"
        )
    for key in ("frame_start", "frame_end"):
        if not isinstance(manifest.get(key), int):
            raise CacheError(f"{path}: '{key}' is missing or not a whole number")
    return manifest


def read_scene(cache_dir):
    """(scene dict, file path) from the cache's scene file; raises CacheError if there is
    none or it cannot be read (the message names the file)."""
    import gloop_core

    paths = [os.path.join(cache_dir, name) for name in SCENE_FILES]
    path = next((p for p in paths if os.path.isfile(p)), None)
    if path is None:
        raise CacheError(f"the cache holds no scene file ({' or '.join(SCENE_FILES)})")
    try:
        return json.loads(gloop_core.scene_json(path)), path
    except gloop_core.GloopError as e:
        raise CacheError(str(e)) from e


def _matrix(columns):
    """glam's column-major 16 floats as a Blender matrix."""
    return Matrix([[columns[col * 4 + row] for col in range(4)] for row in range(4)])


def solid_material(name):
    """The look of solid `name` as a shared material: Open Cache's obstacles and Quick Honey's
    floor wear it."""
    mat_name = f"Gloop Solid ({name})"
    mat = bpy.data.materials.get(mat_name)
    if mat is not None:
        return mat
    colour, metallic, roughness = SOLID_LOOKS.get(name.lower(), ((0.5, 0.5, 0.5), 0.0, 0.5))
    mat = bpy.data.materials.new(mat_name)
    mat.diffuse_color = (*colour, 1.0)
    mat.metallic = metallic
    mat.roughness = roughness
    if mat.node_tree is None:  # before 5.0 new materials start without nodes
        mat.use_nodes = True
    bsdf = next((n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED"), None)
    if bsdf is not None:
        bsdf.inputs["Base Color"].default_value = (*colour, 1.0)
        bsdf.inputs["Metallic"].default_value = metallic
        bsdf.inputs["Roughness"].default_value = roughness
    return mat


def _fresh_collection(scene):
    """The obstacles' collection, emptied of what an earlier Open Cache made."""
    collection = bpy.data.collections.get(OBSTACLES_COLLECTION)
    if collection is None:
        collection = bpy.data.collections.new(OBSTACLES_COLLECTION)
    if collection.name not in scene.collection.children:
        scene.collection.children.link(collection)
    for ob in list(collection.objects):
        mesh = ob.data
        bpy.data.objects.remove(ob)
        if mesh is not None and mesh.users == 0:
            bpy.data.meshes.remove(mesh)
    return collection


def _keyframe_rigid(ob, first_frame, matrices):
    ob.rotation_mode = "QUATERNION"
    for i, columns in enumerate(matrices):
        frame = first_frame + i
        ob.matrix_world = _matrix(columns)
        for path in ("location", "rotation_quaternion", "scale"):
            ob.keyframe_insert(path, frame=frame)
    ob.matrix_world = _matrix(matrices[0])


def _shape_keys(ob, first_frame, positions):
    ob.shape_key_add(name="Basis", from_mix=False)
    for i, frame_positions in enumerate(positions):
        frame = first_frame + i
        key = ob.shape_key_add(name=f"Frame {frame}", from_mix=False)
        key.data.foreach_set("co", [c for p in frame_positions for c in p])
        for f, value in ((frame - 1, 0.0), (frame, 1.0), (frame + 1, 0.0)):
            key.value = value
            key.keyframe_insert("value", frame=f)


# Edges sharper than this stay sharp (a plate's rims); smoother ones are shaded smooth.
SMOOTH_ANGLE = math.radians(30.0)


def _shade_smooth_by_angle(mesh):
    """The scene file holds an obstacle's triangles only: shaded flat, a ball's facets showed
    through the glassy honey coating it as a hexagonal highlight (issue 41). Smooth shading
    with sharp edges kept by angle is what an artist's own ball and plate would have."""
    mesh.shade_smooth()
    mesh.set_sharp_from_angle(angle=SMOOTH_ANGLE)


def _obstacle_object(o, solids, collection):
    """One obstacle as a mesh object with its motion and solid material."""
    motion = o["motion"]
    mesh = bpy.data.meshes.new(o["name"])
    triangles = [tuple(t) for t in o["mesh"]["triangles"]]
    if "deforming" in motion:
        # The topology with the first frame's world positions; the frames as shape keys.
        vertices = [tuple(p) for p in motion["deforming"]["positions"][0]]
    else:
        vertices = [tuple(v) for v in o["mesh"]["vertices"]]
    mesh.from_pydata(vertices, [], triangles)
    mesh.validate()
    _shade_smooth_by_angle(mesh)
    ob = bpy.data.objects.new(o["name"], mesh)
    collection.objects.link(ob)
    material = o["role"].get("material", "")
    mesh.materials.append(solid_material(material))
    if "static" in motion:
        ob.matrix_world = _matrix(motion["static"]["matrix"])
    elif "rigid" in motion:
        _keyframe_rigid(ob, motion["rigid"]["first_frame"], motion["rigid"]["matrices"])
    elif "deforming" in motion:
        d = motion["deforming"]
        _shape_keys(ob, d["first_frame"], d["positions"])
    # A Gloop Obstacle with its solid's numbers, so the opened scene can be baked again.
    ob.gloop.type = "OBSTACLE"
    solid = solids.get(material)
    if solid is not None:
        ob.gloop.solid_name = material
        ob.gloop.friction = solid.get("friction", ob.gloop.friction)
        ob.gloop.stickiness = solid.get("stickiness", ob.gloop.stickiness)
    return ob


def make_obstacles(scene, scene_dict):
    """Creates the scene file's obstacles; returns the objects made."""
    collection = _fresh_collection(scene)
    solids = {s["name"]: s for s in scene_dict.get("materials", {}).get("solids", [])}
    return [
        _obstacle_object(o, solids, collection)
        for o in scene_dict.get("objects", [])
        if o.get("role", {}).get("type") == "obstacle"
    ]


def set_opened_look(scene, scene_dict):
    """The opened liquid renders as its scene file says (paint opaque, honey glassy in its own
    colour); without a scene file, or one from before looks were recorded, glassy."""
    liquids = (scene_dict or {}).get("materials", {}).get("liquids", [])
    looks = [str(liquid.get("look", "glassy")).upper() for liquid in liquids]
    scene.gloop.opened_look = looks[0] if looks and looks[0] in {"GLASSY", "OPAQUE"} else ""
    glassy = [liquid for liquid, look in zip(liquids, looks) if look == "GLASSY"]
    if glassy and len(glassy[0].get("colour", [])) == 3:
        scene.gloop.opened_colour = glassy[0]["colour"]


def open_cache(scene, cache_dir):
    """Opens the cache for playback. Returns (obstacles made, note): the note says why no
    obstacles could be made, or is empty. Raises CacheError when the cache cannot be opened."""
    cache_dir = os.path.normpath(os.path.abspath(cache_dir))
    manifest = read_manifest(cache_dir)
    scene.gloop.cache_dir = cache_dir
    scene.frame_start = manifest["frame_start"]
    last = manifest.get("last_complete_frame")
    scene.frame_end = last if isinstance(last, int) else manifest["frame_end"]
    radius = manifest.get("particle_radius")
    if isinstance(radius, (int, float)) and radius > 0:
        # The points draw at the bake's size, and the panel and a new bake of the opened
        # scene use its resolution (setting it turns Automatic Resolution off).
        scene.gloop.particle_radius = radius
    fps = manifest.get("fps")
    if isinstance(fps, (int, float)) and fps > 0:
        scene.render.fps = max(1, round(fps))
        scene.render.fps_base = scene.render.fps / fps
    obstacles, note, scene_dict = [], "", None
    try:
        scene_dict, _path = read_scene(cache_dir)
    except CacheError as e:
        note = f"Obstacles could not be made: {e}"
    set_opened_look(scene, scene_dict)
    playback.ensure_liquid_object(scene)
    if scene_dict is not None:
        try:
            obstacles = make_obstacles(scene, scene_dict)
        except CacheError as e:
            note = f"Obstacles could not be made: {e}"
    playback.STATE.clear_warning()
    scene.frame_set(scene.frame_start)
    return obstacles, note


class GLOOP_OT_open_cache(bpy.types.Operator):
    """Open a Gloop cache folder (a Blender bake, `gloop bake` or `gloop demo`) to play it
    back: makes the liquid object and, where the cache holds its scene, the obstacles"""

    bl_idname = "gloop.open_cache"
    bl_label = "Open Cache"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (Blender reads a plain set)

    directory: bpy.props.StringProperty(subtype="DIR_PATH")

    @classmethod
    def poll(cls, context):
        from . import operators

        return context.scene is not None and operators.running_job() is None

    def invoke(self, context, _event):
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        scene = context.scene
        try:
            obstacles, note = open_cache(scene, bpy.path.abspath(self.directory))
        except CacheError as e:
            scene.gloop.status_text = f"Cannot open cache: {e}"
            self.report({"ERROR"}, f"Cannot open the Gloop cache: {e}")
            return {"CANCELLED"}
        except ImportError as e:
            self.report({"ERROR"}, f"The Gloop core module is missing: {e}")
            return {"CANCELLED"}
        scene.gloop.stats_text = ""
        if note:
            scene.gloop.status_text = note
            self.report({"WARNING"}, f"Opened the liquid only. {note}")
        else:
            scene.gloop.status_text = f"Opened {os.path.basename(scene.gloop.cache_dir)}"
            self.report({"INFO"}, f"Opened the Gloop cache with {len(obstacles)} obstacle(s)")
        return {"FINISHED"}


def _menu_import(self, _context):
    self.layout.operator(GLOOP_OT_open_cache.bl_idname, text="Gloop Cache")


def register():
    bpy.utils.register_class(GLOOP_OT_open_cache)
    bpy.types.TOPBAR_MT_file_import.append(_menu_import)


def unregister():
    bpy.types.TOPBAR_MT_file_import.remove(_menu_import)
    bpy.utils.unregister_class(GLOOP_OT_open_cache)
