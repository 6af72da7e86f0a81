"""Object > Quick Effects > Quick Honey: one click from selected meshes to a scene that bakes,
as Blender's own Quick Liquid does for its fluid.

The selected meshes become Gloop Liquid with the chosen preset; a Gloop Domain box is made
around them with room to fall and spread; a wooden floor is laid under them when the scene has
no Gloop obstacle to land on; Automatic Resolution is turned on. Sizes follow the liquid's own
size L (its bounds' largest side), so a 3 cm drop and a 2 m cube both get a scene to scale:
honey falls L onto the floor and, being viscous, spreads about its own size in the few seconds
a bake lasts, so 1.5 L of floor on every side holds it.
"""

import tempfile

import bpy
import numpy as np
from bpy.props import EnumProperty

from . import domain, material_presets, open_cache, preflight, temporary_cache

# Room around the liquid, in multiples of its size L.
SPREAD = 1.5  # floor and domain beyond the liquid on each side
FALL = 1.0  # from the liquid's bottom down to the floor
HEADROOM = 0.25  # domain above the liquid's top
BELOW_FLOOR = 0.1  # domain below the floor, so the floor's particles lie inside
DOMAIN_NAME = "Gloop Domain"
FLOOR_NAME = "Gloop Floor"


def _box_mesh(name):
    """A cube from −1 to 1 (as Blender's Add > Cube), closed and outward-facing."""
    verts = [(x, y, z) for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]
    faces = [
        (0, 1, 3, 2),
        (4, 6, 7, 5),
        (0, 4, 5, 1),
        (2, 3, 7, 6),
        (0, 2, 6, 4),
        (1, 5, 7, 3),
    ]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.update()
    return mesh


def _plane_mesh(name):
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([(-1, -1, 0), (1, -1, 0), (1, 1, 0), (-1, 1, 0)], [], [(0, 1, 2, 3)])
    mesh.update()
    return mesh


def _new_object(context, name, mesh):
    ob = bpy.data.objects.new(name, mesh)
    (context.collection or context.scene.collection).objects.link(ob)
    return ob


def fit_to_box(ob, lo, hi):
    """Places, unrotated, an object so that its mesh's bounds become the world box lo..hi."""
    local = domain.points_bounds([v.co for v in ob.data.vertices])
    span = np.where(local[1] > local[0], local[1] - local[0], 1.0)
    scale = (np.asarray(hi) - np.asarray(lo)) / span
    ob.rotation_euler = (0.0, 0.0, 0.0)
    ob.scale = scale.tolist()
    ob.location = (np.asarray(lo) - scale * local[0]).tolist()


def union_bounds(boxes):
    return np.min([b[0] for b in boxes], axis=0), np.max([b[1] for b in boxes], axis=0)


def room_around(liquid):
    """(domain box, floor height) for liquid with bounds `liquid`: see the module docstring."""
    lo, hi = liquid
    size = float(np.max(hi - lo))
    centre = (lo + hi) / 2.0
    half = max(hi[0] - lo[0], hi[1] - lo[1]) / 2.0 + SPREAD * size
    floor = lo[2] - FALL * size
    box_lo = np.array([centre[0] - half, centre[1] - half, floor - BELOW_FLOOR * size])
    box_hi = np.array([centre[0] + half, centre[1] + half, hi[2] + HEADROOM * size])
    return (box_lo, box_hi), floor


def _selection_problem(context):
    """(meshes to turn into liquid, None) or (None, why not)."""
    scene = context.scene
    selected = list(context.selected_objects)
    meshes = [
        ob
        for ob in selected
        if ob.type == "MESH" and ob != scene.gloop.liquid_object and ob.gloop.type != "DOMAIN"
    ]
    if meshes:
        return meshes, None
    if not selected:
        return None, "Select the mesh objects to turn into liquid"
    names = ", ".join(f"'{ob.name}'" for ob in selected[:3]) + (", …" if len(selected) > 3 else "")
    return None, f"Quick Honey turns selected meshes into liquid; {names}: not one"


class GLOOP_OT_quick_honey(bpy.types.Operator):
    """Make the selected meshes Gloop liquid, with a domain around them and a floor under
    them, ready to bake"""

    bl_idname = "gloop.quick_honey"
    bl_label = "Quick Honey"
    bl_options = {"REGISTER", "UNDO"}  # noqa: RUF012 (Blender reads a plain set)

    liquid: EnumProperty(
        name="Liquid",
        items=material_presets.enum_items(material_presets.LIQUIDS)[:-1],  # no Custom
        default="HONEY",
        description="The liquid preset the selected meshes get",
    )

    @classmethod
    def poll(cls, context):
        return context.scene is not None and context.mode == "OBJECT"

    def execute(self, context):
        scene = context.scene
        meshes, problem = _selection_problem(context)
        domains = domain.domain_objects(scene)
        if problem is None and len(domains) > 1:
            problem = domain.too_many(domains)
        if problem is not None:
            self.report({"ERROR"}, problem)
            return {"CANCELLED"}
        context.view_layer.update()  # matrix_world follows locations set just before
        for ob in meshes:
            if ob.gloop.type != "EMITTER":  # an emitter keeps pouring, with the new liquid
                ob.gloop.type = "LIQUID"
            ob.gloop.liquid_preset = self.liquid
            ob.display_type = "WIRE"  # the baked Gloop Liquid object shows the liquid
            ob.hide_render = True
        liquid_bounds = [b for b in map(domain.world_bounds, meshes) if b is not None]
        if not liquid_bounds:
            self.report({"ERROR"}, "The selected meshes have no vertices")
            return {"CANCELLED"}
        liquid = union_bounds(liquid_bounds)
        box, floor_height = room_around(liquid)
        floor = None
        if not any(ob.gloop.type == "OBSTACLE" for ob in scene.objects if ob.type == "MESH"):
            floor = self._add_floor(context, box, floor_height)
        else:
            # The domain reaches down past what the liquid may land on.
            obstacles = [
                domain.world_bounds(ob)
                for ob in scene.objects
                if ob.type == "MESH" and ob.gloop.type == "OBSTACLE"
            ]
            below = BELOW_FLOOR * float(np.max(liquid[1] - liquid[0]))
            box[0][2] = min([box[0][2]] + [b[0][2] - below for b in obstacles if b is not None])
        dom = self._domain(context, domains, box)
        scene.gloop.use_auto_radius = True
        self._cache_for_unsaved_file(scene)
        for ob in context.selected_objects:
            ob.select_set(False)
        for ob in meshes:
            ob.select_set(True)
        context.view_layer.objects.active = meshes[0]
        context.view_layer.update()
        self._report_outcome(scene, meshes, dom, floor)
        return {"FINISHED"}

    @staticmethod
    def _add_floor(context, box, height):
        floor = _new_object(context, FLOOR_NAME, _plane_mesh(FLOOR_NAME))
        lo, hi = box
        floor.location = ((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0, height)
        floor.scale = ((hi[0] - lo[0]) / 2.0, (hi[1] - lo[1]) / 2.0, 1.0)
        floor.gloop.type = "OBSTACLE"
        floor.gloop.solid_preset = "WOOD"
        # It renders as wood too, not as Blender's default grey.
        floor.data.materials.append(open_cache.solid_material(floor.gloop.solid_name))
        return floor

    @staticmethod
    def _domain(context, domains, box):
        """The scene's domain, grown to hold `box` too, or a new one that is `box`."""
        if domains:
            dom = domains[0]
            old = domain.world_bounds(dom)
            if old is not None:
                box = union_bounds([old, box])
        else:
            dom = _new_object(context, DOMAIN_NAME, _box_mesh(DOMAIN_NAME))
        fit_to_box(dom, *box)
        dom.gloop.type = "DOMAIN"
        domain.show_as_domain(dom)
        return dom

    def _cache_for_unsaved_file(self, scene):
        """Bake needs a cache folder: beside the .blend once it is saved (the default //),
        until then a new temporary folder, as Blender's own fluid bakes do, which moves
        beside the .blend on the first save (`temporary_cache`)."""
        if bpy.data.filepath or not scene.gloop.cache_dir.startswith("//"):
            return
        temporary_cache.remember(scene, tempfile.mkdtemp(prefix="gloop_cache_"))
        self.report(
            {"INFO"},
            f"Unsaved file: the bake goes to {scene.gloop.cache_dir} until the file is saved, "
            "then beside it",
        )

    def _report_outcome(self, scene, meshes, dom, floor):
        found = preflight.preflight(scene).problems
        for problem in found:
            self.report({"WARNING"}, problem)
        if found:
            return
        names = ", ".join(f"'{ob.name}'" for ob in meshes)
        floor_text = f" over '{floor.name}'" if floor is not None else ""
        self.report(
            {"INFO"},
            f"{names}: {material_presets.LIQUIDS[self.liquid][0].lower()} in '{dom.name}'"
            f"{floor_text}. Bake in Physics > Gloop Bake",
        )


def menu_entry(self, _context):
    self.layout.separator()
    self.layout.operator(GLOOP_OT_quick_honey.bl_idname, icon="MOD_FLUIDSIM")


def register():
    bpy.utils.register_class(GLOOP_OT_quick_honey)
    bpy.types.VIEW3D_MT_object_quick_effects.append(menu_entry)


def unregister():
    bpy.types.VIEW3D_MT_object_quick_effects.remove(menu_entry)
    bpy.utils.unregister_class(GLOOP_OT_quick_honey)
