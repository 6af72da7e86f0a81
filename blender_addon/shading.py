"""The liquid's material and the particle-points node group.

Both looks take the base colour from the per-vertex `gloop_colour` attribute, which carries the
liquids' colours (mixed, for paints):
- Glassy (honey, gel): fully transmissive, smooth, IOR 1.5, so honey reads as clear amber.
- Opaque (paint, chocolate): a diffuse-ish coat whose colour is the attribute.
"""

import bpy

from .mesh_update import COLOUR_ATTRIBUTE

MATERIAL_NAMES = {"GLASSY": "Gloop Glassy", "OPAQUE": "Gloop Opaque"}
POINTS_GROUP = "Gloop Particles To Points"


def _liquid_look(scene):
    for ob in scene.objects:
        if ob.gloop.type in {"LIQUID", "EMITTER"}:
            return ob.gloop.look
    return "GLASSY"


def _set_input(node, names, value):
    """Sets the first input that exists: socket names differ between Blender versions."""
    for name in names:
        if name in node.inputs:
            node.inputs[name].default_value = value
            return


def liquid_material(look):
    name = MATERIAL_NAMES[look]
    mat = bpy.data.materials.get(name)
    if mat is not None:
        return mat
    mat = bpy.data.materials.new(name)
    if mat.node_tree is None:  # before 5.0 new materials start without nodes
        mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    attribute = nodes.new("ShaderNodeAttribute")
    attribute.attribute_type = "GEOMETRY"
    attribute.attribute_name = COLOUR_ATTRIBUTE
    attribute.location = (bsdf.location.x - 300, bsdf.location.y)
    links.new(attribute.outputs["Color"], bsdf.inputs["Base Color"])
    if look == "GLASSY":
        _set_input(bsdf, ("Transmission Weight", "Transmission"), 1.0)
        _set_input(bsdf, ("Roughness",), 0.05)
        _set_input(bsdf, ("IOR",), 1.5)
        mat.diffuse_color = (0.8, 0.42, 0.05, 0.8)
    else:
        _set_input(bsdf, ("Roughness",), 0.35)
        _set_input(bsdf, ("Coat Weight",), 0.3)
    return mat


def assign_liquid_material(ob, scene):
    mat = liquid_material(_liquid_look(scene))
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
