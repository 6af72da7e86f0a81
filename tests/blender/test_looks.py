"""The liquid materials: honey's absorption in physical units, paint's colour attribute, and
how materials made by an older Gloop, or edited by the artist, are treated."""

import math

import bpy
import pytest

HONEY = (0.7016, 0.3445, 0.03066)  # light amber: material_presets.LIQUIDS["HONEY"]


def add_liquid(preset="HONEY"):
    bpy.ops.mesh.primitive_uv_sphere_add(radius=0.02, location=(0.0, 0.0, 0.03))
    ob = bpy.context.object
    ob.gloop.type = "LIQUID"
    ob.gloop.liquid_preset = preset
    return ob


def linked_from(socket):
    return socket.links[0].from_node if socket.is_linked else None


def output_node(mat):
    return next(n for n in mat.node_tree.nodes if n.type == "OUTPUT_MATERIAL")


def transmittance(mat, path):
    """What white light keeps through `path` metres of the material's absorbing volume."""
    volume = linked_from(output_node(mat).inputs["Volume"])
    colour = volume.inputs["Color"].default_value
    density = volume.inputs["Density"].default_value
    return [math.exp(-(1.0 - colour[i]) * density * path) for i in range(3)]


def old_glassy_material():
    """The glassy material as Gloop made it before absorption (shading.py at 7222cdf)."""
    mat = bpy.data.materials.new("Gloop Glassy")
    if mat.node_tree is None:
        mat.use_nodes = True
    nodes, links = mat.node_tree.nodes, mat.node_tree.links
    bsdf = next(n for n in nodes if n.type == "BSDF_PRINCIPLED")
    attribute = nodes.new("ShaderNodeAttribute")
    attribute.attribute_type = "GEOMETRY"
    attribute.attribute_name = "gloop_colour"
    links.new(attribute.outputs["Color"], bsdf.inputs["Base Color"])
    bsdf.inputs["Transmission Weight"].default_value = 1.0
    bsdf.inputs["Roughness"].default_value = 0.05
    bsdf.inputs["IOR"].default_value = 1.5
    return mat


def test_honey_is_deep_amber_where_thick_and_pale_where_thin(addon, empty_scene):
    add_liquid("HONEY")
    ob = addon.playback.ensure_liquid_object(empty_scene)
    mat = ob.data.materials[0]
    assert mat.name == "Gloop Glassy"
    # Light through 1 cm of honey has honey's colour.
    assert transmittance(mat, 0.01) == pytest.approx(HONEY, rel=1e-3)
    thread = transmittance(mat, 0.001)  # across a 1 mm thread: pale
    assert min(thread) > 0.6 and thread[0] > 0.95, thread
    layer = transmittance(mat, 0.02)  # a 1 cm layer on white, light in and out: deep amber
    assert 0.35 < layer[0] < 0.55 and 0.05 < layer[1] < 0.15 and layer[2] < 0.01, layer
    jar = transmittance(mat, 0.07)  # across a 7 cm jar: dark red-brown
    assert jar[0] > 0.03 and jar[1] < 0.001, jar
    # The colour attribute still tints the surface, as a thin skin.
    bsdf = linked_from(output_node(mat).inputs["Surface"])
    principled = next(n for n in mat.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    skin = linked_from(principled.inputs["Base Color"])
    assert skin.type == "GAMMA" and linked_from(skin.inputs["Color"]).attribute_name == (
        "gloop_colour"
    )
    assert bsdf.type == "MIX_SHADER"  # glass to the eye, see-through to light (see shading.py)


def test_paint_is_opaque_and_takes_the_mixed_colour_attribute(addon, empty_scene):
    add_liquid("PAINT_RED")
    mat = addon.playback.ensure_liquid_object(empty_scene).data.materials[0]
    assert mat.name == "Gloop Opaque"
    principled = linked_from(output_node(mat).inputs["Surface"])
    assert principled.type == "BSDF_PRINCIPLED"
    assert linked_from(principled.inputs["Base Color"]).attribute_name == "gloop_colour"
    assert principled.inputs["Transmission Weight"].default_value == 0.0
    assert not output_node(mat).inputs["Volume"].is_linked


def test_an_unedited_old_glassy_material_is_upgraded_in_place(addon, empty_scene):
    old = old_glassy_material()
    add_liquid("HONEY")
    ob = addon.playback.ensure_liquid_object(empty_scene)
    assert ob.data.materials[0] == old  # the same datablock, so other users follow
    assert old["gloop_recipe"] == 2
    assert transmittance(old, 0.01) == pytest.approx(HONEY, rel=1e-3)
    assert not addon.shading.scene_material_outdated(empty_scene)


def test_an_edited_old_material_is_kept_until_the_artist_rebuilds_it(addon, empty_scene):
    old = old_glassy_material()
    principled = next(n for n in old.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    principled.inputs["Roughness"].default_value = 0.2  # the artist's edit
    add_liquid("HONEY")
    addon.playback.ensure_liquid_object(empty_scene)
    assert principled.inputs["Roughness"].default_value == pytest.approx(0.2)
    assert not output_node(old).inputs["Volume"].is_linked
    assert addon.shading.scene_material_outdated(empty_scene)  # the Bake panel offers a rebuild

    assert bpy.ops.gloop.update_liquid_material() == {"FINISHED"}
    assert transmittance(old, 0.01) == pytest.approx(HONEY, rel=1e-3)
    backup = bpy.data.materials["Gloop Glassy (before update)"]
    kept = next(n for n in backup.node_tree.nodes if n.type == "BSDF_PRINCIPLED")
    assert kept.inputs["Roughness"].default_value == pytest.approx(0.2)
    assert backup.use_fake_user
    assert not bpy.ops.gloop.update_liquid_material.poll()


def test_absorption_follows_the_liquid_colour_until_edited_by_hand(addon, empty_scene):
    honey = add_liquid("HONEY")
    mat = addon.playback.ensure_liquid_object(empty_scene).data.materials[0]
    honey.gloop.colour = (0.9, 0.7, 0.3)  # a paler syrup
    addon.playback.ensure_liquid_object(empty_scene)
    assert transmittance(mat, 0.01) == pytest.approx((0.9, 0.7, 0.3), rel=1e-3)
    volume = mat.node_tree.nodes["Gloop Absorption"]
    volume.inputs["Density"].default_value = 5.0  # the artist's edit
    honey.gloop.colour = HONEY
    addon.playback.ensure_liquid_object(empty_scene)
    assert volume.inputs["Density"].default_value == pytest.approx(5.0)


def render_slab(scene, mat, thickness, folder):
    """Mean linear colour of an orthographic view straight through a honey slab `thickness`
    metres thick (an object scale, not a mesh edit) in front of a white sky."""
    for ob in [o for o in scene.objects if o.type == "MESH"]:
        bpy.data.objects.remove(ob)
    bpy.ops.mesh.primitive_cube_add(size=1.0)
    slab = bpy.context.object
    slab.scale = (0.2, 0.2, thickness)
    colour = slab.data.attributes.new("gloop_colour", "FLOAT_COLOR", "POINT")
    colour.data.foreach_set("color", [*HONEY, 1.0] * len(slab.data.vertices))
    slab.data.materials.append(mat)
    scene.render.filepath = str(folder / f"slab_{thickness}.exr")
    bpy.ops.render.render(write_still=True)
    image = bpy.data.images.load(scene.render.filepath)
    pixels = list(image.pixels)
    bpy.data.images.remove(image)
    return [sum(pixels[c::4]) / (len(pixels) // 4) for c in range(3)]


def test_cycles_absorbs_honey_per_metre_of_the_scene(addon, empty_scene, tmp_path):
    scene = empty_scene
    mat = addon.shading.liquid_material("GLASSY", HONEY)
    world = bpy.data.worlds.new("White")
    scene.world = world
    if world.node_tree is None:
        world.use_nodes = True
    world.node_tree.nodes["Background"].inputs["Color"].default_value = (1, 1, 1, 1)
    cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
    cam.data.type, cam.data.ortho_scale = "ORTHO", 0.05
    cam.location = (0.0, 0.0, 1.0)
    scene.collection.objects.link(cam)
    scene.camera = cam
    scene.render.engine = "CYCLES"
    scene.cycles.samples, scene.cycles.use_denoising = 32, False
    scene.render.resolution_x = scene.render.resolution_y = 8
    scene.render.image_settings.file_format = "OPEN_EXR"
    seen = [render_slab(scene, mat, t, tmp_path) for t in (0.005, 0.01, 0.015)]
    # Each further 5 mm keeps √colour of the light (Beer–Lambert; measured 0.902, 0.640, 0.222
    # against 0.894, 0.648, 0.224); the differences cancel what the faces reflect.
    for c in range(3):
        step = (seen[2][c] - seen[1][c]) / (seen[1][c] - seen[0][c])
        assert step == pytest.approx(math.sqrt(HONEY[c]), rel=0.05), (c, seen)


def test_presets_keep_the_numbers_older_files_saved(addon, empty_scene):
    """Blender saves an enum as its number: the honey grades came in after Custom, so the
    presets an older Gloop saved (0 honey … 6 white paint, 7 Custom) must read back as such."""
    honey = add_liquid("HONEY")
    for number, key in ((0, "HONEY"), (1, "CHOCOLATE"), (6, "PAINT_WHITE"), (7, "CUSTOM")):
        honey.gloop["liquid_preset"] = number  # as an older file holds it
        assert honey.gloop.liquid_preset == key
    honey.gloop.liquid_preset = "HONEY_DARK_AMBER"
    dark = addon.material_presets.LIQUIDS["HONEY_DARK_AMBER"][3]
    assert tuple(honey.gloop.colour) == pytest.approx(dark, rel=1e-6)
    honey.gloop.viscosity = 5.0  # an edit makes it the artist's own
    assert honey.gloop.liquid_preset == "CUSTOM" and honey.gloop["liquid_preset"] == 7
