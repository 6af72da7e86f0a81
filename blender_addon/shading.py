"""The liquid's material and the particle-points node group.

Two looks, one material each (the liquid object shows every liquid of the scene):
- Glassy (honey, syrup, gel): a smooth transmissive surface (IOR 1.5) over a homogeneous
  absorbing volume, so the tint follows the thickness light crosses (Beer–Lambert): thick
  honey is deep amber, a thread pale. The liquid's colour is read as the light that gets
  through `REFERENCE_DEPTH` of it. Cycles gives a volume shader no mesh attributes
  (measured: an Attribute node reads 0 there), so the volume takes the scene's glassy liquid
  colour; the per-vertex `gloop_colour` attribute tints the surface as a skin `SKIN_DEPTH`
  thick, which keeps mixed liquids their own hue without darkening thin threads. Shadow and
  diffuse rays pass the surface straight (see `_light_through`).
- Opaque (paint, chocolate): a coated diffuse surface whose base colour is the per-vertex
  `gloop_colour` attribute, so mixed paints show their mixed colour.

Materials are found by name. What the add-on wrote is stamped on the material
(`gloop_recipe`, `gloop_absorption`), so it updates only values nobody edited since; a glassy
material an older Gloop made is rebuilt in place only if it is exactly as that version left it.
"""

import math

import bpy

from .material_presets import LIQUIDS
from .mesh_update import COLOUR_ATTRIBUTE

MATERIAL_NAMES = {"GLASSY": "Gloop Glassy", "OPAQUE": "Gloop Opaque"}
POINTS_GROUP = "Gloop Particles To Points"

# The liquid's colour is the light that gets through this much of it (metres = Blender units,
# as the solver takes them). The presets' colours come from measured absorption spectra
# (spectral.py): light amber honey's (0.70, 0.34, 0.031) makes a 1 mm thread pale (0.97, 0.90,
# 0.71), a 5 mm puddle on a white plate golden (tests/blender/test_honey_colour.py) and a 3 cm
# block deep red-brown (0.35, 0.04, 0.00), and each darker Pfund grade redder and darker.
REFERENCE_DEPTH = 0.01
# The surface tint stands for this path through the liquid at each crossing: a thread's two
# crossings add the tint of half a millimetre of it, a puddle's next to nothing.
SKIN_DEPTH = 0.00025
# Transmission below 1e-6 through the reference layer is black anyway; it bounds the density
# (1380 per metre: a dark honey's blue, 733 per metre, still lets 23% through a 2 mm thread).
MIN_TRANSMISSION = 1e-6

# Version of each look's node recipe, stamped on materials this add-on builds.
RECIPES = {"GLASSY": 2, "OPAQUE": 1}
ABSORPTION_NODE = "Gloop Absorption"
HONEY_COLOUR = LIQUIDS["HONEY"][3]
SKIN_NODE = "Gloop Skin Tint"
LIGHT_THROUGH_NODE = "Gloop Light Through"


def _liquid_look(scene):
    for ob in scene.objects:
        if ob.gloop.type in {"LIQUID", "EMITTER"}:
            return ob.gloop.look
    return scene.gloop.opened_look or "GLASSY"


def _glassy_colour(scene):
    """The colour of the scene's first glassy liquid (honey's if there is none)."""
    for ob in scene.objects:
        if ob.gloop.type in {"LIQUID", "EMITTER"} and ob.gloop.look == "GLASSY":
            return tuple(ob.gloop.colour)
    if scene.gloop.opened_look == "GLASSY":  # an opened cache's honey, syrup or gel
        return tuple(scene.gloop.opened_colour)
    return HONEY_COLOUR


def _set_input(node, names, value):
    """Sets the first input that exists: socket names differ between Blender versions."""
    for name in names:
        if name in node.inputs:
            node.inputs[name].default_value = value
            return


def absorption(colour, reference_depth=REFERENCE_DEPTH):
    """(node colour, density per metre) of a Volume Absorption node that lets `colour` through
    `reference_depth` (Beer–Lambert). Cycles absorbs (1 − colour) × density per unit length,
    so the most absorbed channel sets the density and the others scale down from it."""
    sigma = [-math.log(max(c, MIN_TRANSMISSION)) / reference_depth for c in colour]
    density = max(max(sigma), 1e-6)
    return tuple(1.0 - s / density for s in sigma), density


def _new_material(name):
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # before 5.0 new materials start without nodes
        mat.use_nodes = True
    return mat


def _colour_attribute(nodes, bsdf):
    attribute = nodes.new("ShaderNodeAttribute")
    attribute.attribute_type = "GEOMETRY"
    attribute.attribute_name = COLOUR_ATTRIBUTE
    attribute.location = (bsdf.location.x - 500, bsdf.location.y)
    return attribute


def _build_glassy(mat, colour):
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    output = next(n for n in nodes if n.type == "OUTPUT_MATERIAL")
    attribute = _colour_attribute(nodes, bsdf)
    # colour ** (skin / reference) is the light a skin of that thickness lets through.
    skin = nodes.new("ShaderNodeGamma")
    skin.name = skin.label = SKIN_NODE
    skin.inputs["Gamma"].default_value = SKIN_DEPTH / REFERENCE_DEPTH
    skin.location = (bsdf.location.x - 250, bsdf.location.y)
    links.new(attribute.outputs["Color"], skin.inputs["Color"])
    links.new(skin.outputs["Color"], bsdf.inputs["Base Color"])
    _set_input(bsdf, ("Transmission Weight", "Transmission"), 1.0)
    _set_input(bsdf, ("Roughness",), 0.05)
    _set_input(bsdf, ("IOR",), 1.5)  # honey 1.49–1.50, glucose syrups about the same
    _light_through(nodes, links, bsdf, output)
    volume = nodes.new("ShaderNodeVolumeAbsorption")
    volume.name = volume.label = ABSORPTION_NODE
    volume.location = (bsdf.location.x, bsdf.location.y - 450)
    links.new(volume.outputs["Volume"], output.inputs["Volume"])
    if hasattr(mat, "cycles") and hasattr(mat.cycles, "homogeneous_volume"):
        # One density everywhere: Cycles then integrates it exactly instead of stepping.
        mat.cycles.homogeneous_volume = True
    mat.diffuse_color = (*colour, 0.8)  # the solid-mode viewport colour, set once
    _write_absorption(mat, colour)


def _light_through(nodes, links, bsdf, output):
    """Light reaches what lies under the liquid straight through its surface, tinted by the
    volume: shadow rays and rays bounced off diffuse surfaces see the surface as transparent;
    the camera and reflections still see glass. Otherwise the ground under a puddle is lit
    only by refractive caustics, which path tracing finds by chance: with a sun and a dim sky
    it rendered black with sparkles (8% near-black pixels in the puddle, measured)."""
    light_path = nodes.new("ShaderNodeLightPath")
    either = nodes.new("ShaderNodeMath")
    either.operation = "MAXIMUM"
    links.new(light_path.outputs["Is Shadow Ray"], either.inputs[0])
    links.new(light_path.outputs["Is Diffuse Ray"], either.inputs[1])
    clear = nodes.new("ShaderNodeBsdfTransparent")
    mix = nodes.new("ShaderNodeMixShader")
    mix.name = mix.label = LIGHT_THROUGH_NODE
    links.new(either.outputs["Value"], mix.inputs["Fac"])
    links.new(bsdf.outputs["BSDF"], mix.inputs[1])
    links.new(clear.outputs["BSDF"], mix.inputs[2])
    links.new(mix.outputs["Shader"], output.inputs["Surface"])
    x, y = output.location
    mix.location, clear.location = (x - 200, y), (x - 450, y + 150)
    light_path.location, either.location = (x - 750, y + 400), (x - 450, y + 400)


def _build_opaque(mat):
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    attribute = _colour_attribute(nodes, bsdf)
    links.new(attribute.outputs["Color"], bsdf.inputs["Base Color"])
    _set_input(bsdf, ("Roughness",), 0.35)
    _set_input(bsdf, ("Coat Weight",), 0.3)


def _absorption_values(node):
    return [*node.inputs["Color"].default_value[:3], node.inputs["Density"].default_value]


def _write_absorption(mat, colour):
    node = mat.node_tree.nodes[ABSORPTION_NODE]
    node_colour, density = absorption(colour)
    node.inputs["Color"].default_value = (*node_colour, 1.0)
    node.inputs["Density"].default_value = density
    mat["gloop_absorption"] = _absorption_values(node)  # as stored (float32), to compare


def _absorption_untouched(mat):
    node = mat.node_tree.nodes.get(ABSORPTION_NODE) if mat.node_tree else None
    written = mat.get("gloop_absorption")
    if node is None or written is None or node.type != "VOLUME_ABSORPTION":
        return False
    return all(
        abs(a - b) < 1e-6 * max(1.0, abs(b)) for a, b in zip(_absorption_values(node), written)
    )


def _is_stock_glassy_v1(mat):
    """True if `mat` is the glassy material of Gloop before absorption, unedited: its three
    nodes, links and values as that version set them."""
    tree = mat.node_tree
    if tree is None or "gloop_recipe" in mat:
        return False
    if sorted(n.type for n in tree.nodes) != ["ATTRIBUTE", "BSDF_PRINCIPLED", "OUTPUT_MATERIAL"]:
        return False
    if len(tree.links) != 2:  # attribute → base colour, BSDF → surface
        return False
    bsdf = next(n for n in tree.nodes if n.type == "BSDF_PRINCIPLED")
    attribute = next(n for n in tree.nodes if n.type == "ATTRIBUTE")
    transmission = next(
        bsdf.inputs[n] for n in ("Transmission Weight", "Transmission") if n in bsdf.inputs
    )
    return (
        attribute.attribute_name == COLOUR_ATTRIBUTE
        and bsdf.inputs["Base Color"].is_linked
        and abs(transmission.default_value - 1.0) < 1e-6
        and abs(bsdf.inputs["Roughness"].default_value - 0.05) < 1e-6
        and abs(bsdf.inputs["IOR"].default_value - 1.5) < 1e-6
    )


def _rebuild(mat, look, colour):
    """Replaces `mat`'s nodes by this version's recipe (the datablock, and so every slot that
    uses it, stays)."""
    tree = mat.node_tree
    output = next((n for n in tree.nodes if n.type == "OUTPUT_MATERIAL"), None)
    for node in [n for n in tree.nodes if n != output]:
        tree.nodes.remove(node)
    if output is None:
        output = tree.nodes.new("ShaderNodeOutputMaterial")
    bsdf = tree.nodes.new("ShaderNodeBsdfPrincipled")
    bsdf.location = (output.location.x - 450, output.location.y)
    tree.links.new(bsdf.outputs["BSDF"], output.inputs["Surface"])
    if look == "GLASSY":
        _build_glassy(mat, colour)
    else:
        _build_opaque(mat)
    mat["gloop_recipe"] = RECIPES[look]


def outdated(mat, look):
    """True if `mat` is a Gloop material of an older recipe that the artist has edited, so the
    add-on leaves it alone and the panel offers to rebuild it."""
    return mat is not None and mat.get("gloop_recipe", 1) < RECIPES[look]


def liquid_material(look, colour=None):
    """The look's material: made if missing, brought up to date where nobody edited it."""
    colour = HONEY_COLOUR if colour is None else colour
    name = MATERIAL_NAMES[look]
    mat = bpy.data.materials.get(name)
    if mat is None:
        mat = _new_material(name)
        _rebuild(mat, look, colour)
    elif look == "GLASSY" and _is_stock_glassy_v1(mat):
        _rebuild(mat, look, colour)
    elif look == "GLASSY" and _absorption_untouched(mat):
        _write_absorption(mat, colour)  # follows the liquid's colour until edited by hand
    return mat


def rebuild_liquid_material(look, colour):
    """Rebuilds the look's material in place; a copy of the old one is kept (with a fake user)
    so an artist's edits can be taken back."""
    mat = bpy.data.materials.get(MATERIAL_NAMES[look])
    if mat is None:
        return liquid_material(look, colour), None
    backup = mat.copy()
    backup.name = f"{mat.name} (before update)"
    backup.use_fake_user = True
    _rebuild(mat, look, colour)
    return mat, backup


def scene_material_outdated(scene):
    """True if the scene's liquid material is an older Gloop recipe kept for the artist's edits."""
    look = _liquid_look(scene)
    return outdated(bpy.data.materials.get(MATERIAL_NAMES[look]), look)


def rebuild_scene_material(scene):
    return rebuild_liquid_material(_liquid_look(scene), _glassy_colour(scene))


def assign_liquid_material(ob, scene):
    mat = liquid_material(_liquid_look(scene), _glassy_colour(scene))
    if ob.data.materials:
        ob.data.materials[0] = mat
    else:
        ob.data.materials.append(mat)
    return mat


def points_node_group():
    """Geometry nodes: vertices → points of the particle radius, keeping the material."""
    group = bpy.data.node_groups.get(POINTS_GROUP)
    if group is not None:
        return group
    group = bpy.data.node_groups.new(POINTS_GROUP, "GeometryNodeTree")
    group.interface.new_socket("Geometry", in_out="INPUT", socket_type="NodeSocketGeometry")
    group.interface.new_socket("Geometry", in_out="OUTPUT", socket_type="NodeSocketGeometry")
    nodes, links = group.nodes, group.links
    inp = nodes.new("NodeGroupInput")
    out = nodes.new("NodeGroupOutput")
    to_points = nodes.new("GeometryNodeMeshToPoints")
    to_points.name = "Mesh to Points"
    to_points.mode = "VERTICES"
    # Points do not inherit the mesh's material slots reliably across versions: set it.
    set_material = nodes.new("GeometryNodeSetMaterial")
    set_material.name = "Set Material"
    inp.location, to_points.location = (-300, 0), (0, 0)
    set_material.location, out.location = (200, 0), (400, 0)
    links.new(inp.outputs[0], to_points.inputs["Mesh"])
    links.new(to_points.outputs["Points"], set_material.inputs["Geometry"])
    links.new(set_material.outputs["Geometry"], out.inputs[0])
    return group


def set_points_material(group, material):
    node = group.nodes.get("Set Material")
    if node is not None and node.inputs["Material"].default_value != material:
        node.inputs["Material"].default_value = material
