"""The Gloop Domain (issue 34, points 2 and 7): a box object whose bounds at the first frame are
the exported domain; one that does not hold the liquid, or a second one, is named in red before
Bake and refused by it; without one the domain is automatic, a quarter of the scene's size
around it; domains and emitters stay out of Cycles renders."""

import json
import os

import bpy
import harness
import pytest
from test_first_hour import honey_sphere, problems, wooden_plane


def domain_box(name="Box", location=(0.0, 0.0, 0.1), size=(0.3, 0.4, 0.25)):
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=location)
    ob = bpy.context.object
    ob.name = name
    ob.scale = size
    ob.gloop.type = "DOMAIN"
    bpy.context.view_layer.update()  # as before a redraw: matrix_world follows the transform
    return ob


def exported(addon, scene):
    return addon.export.build_scene(scene, bpy.context.evaluated_depsgraph_get())


def test_a_domain_objects_bounds_at_the_first_frame_become_the_domain(addon, empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 4
    honey_sphere()  # 3 cm at z = 0.1
    wooden_plane()  # 40 cm, z = 0: wider than the domain, which is fine for an obstacle
    box = domain_box(location=(0.05, 0.0, 0.1))
    assert (box.display_type, box.hide_render) == ("BOUNDS", True)
    # Where it is at the first frame counts, not where the playhead has it.
    box.keyframe_insert("location", frame=1)
    box.location.z = 0.5
    box.keyframe_insert("location", frame=4)
    scene.frame_set(4)
    assert problems(addon, scene) == []  # moved away from the honey, but only after frame 1

    data = exported(addon, scene)
    domain = data["settings"]["domain"]
    assert domain["min"] == pytest.approx([-0.1, -0.2, -0.025], abs=1e-6)
    assert domain["max"] == pytest.approx([0.2, 0.2, 0.225], abs=1e-6)
    assert [o["name"] for o in data["objects"]] == ["Honey", "Board"]  # not the domain

    # Set back to None, it is drawn and rendered again, and the domain is automatic.
    box.gloop.type = "NONE"
    assert (box.display_type, box.hide_render) == ("TEXTURED", False)
    assert exported(addon, scene)["settings"]["domain"]["min"][2] < -0.05


def test_a_domain_not_holding_the_liquid_is_named_before_bake_and_refused(addon, empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 4
    honey_sphere()  # top at z = 0.13
    wooden_plane()
    domain_box(location=(0.0, 0.0, 0.0), size=(0.3, 0.3, 0.24))  # top at z = 0.12
    (found,) = problems(addon, scene)
    assert "Liquid 'Honey' is not inside Domain 'Box'" in found, found
    assert "10.0 mm past the domain's top side" in found, found
    # The bake refuses it before a bake process starts, with the same sentence.
    with pytest.raises(RuntimeError, match="Liquid 'Honey' is not inside Domain 'Box'"):
        bpy.ops.gloop.bake()
    assert not os.path.exists(os.path.join(bpy.path.abspath(scene.gloop.cache_dir), "bake.log"))


def test_an_emitter_partly_outside_the_domain_is_named(addon, empty_scene):
    scene = empty_scene
    honey_sphere()
    bpy.ops.mesh.primitive_cube_add(size=0.02, location=(0.145, 0.0, 0.1))
    nozzle = bpy.context.object
    nozzle.name = "Nozzle"
    nozzle.gloop.type = "EMITTER"
    domain_box(location=(0.0, 0.0, 0.1), size=(0.3, 0.3, 0.3))  # +X side at 0.15
    (found,) = problems(addon, scene)
    assert "Emitter 'Nozzle' is not inside Domain 'Box'" in found and "+X side" in found, found


def test_two_domains_are_named_before_bake_and_refused(addon, empty_scene):
    scene = empty_scene
    honey_sphere()
    domain_box("Box A")
    domain_box("Box B", size=(0.5, 0.5, 0.5))
    (found,) = problems(addon, scene)
    assert "'Box A' and 'Box B'" in found and "one domain" in found, found
    with pytest.raises(RuntimeError, match="'Box A' and 'Box B'"):
        bpy.ops.gloop.bake()


def test_without_a_domain_the_margin_is_a_quarter_of_the_scene(addon, empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 2
    honey_sphere()  # z 0.07 … 0.13
    wooden_plane()  # 40 cm square at z = 0: the scene's largest side
    domain = exported(addon, scene)["settings"]["domain"]
    margin = 0.25 * 0.4
    assert domain["min"] == pytest.approx([-0.2 - margin, -0.2 - margin, -margin], abs=1e-5)
    assert domain["max"] == pytest.approx([0.2 + margin, 0.2 + margin, 0.13 + margin], abs=1e-5)
    # A margin set by hand is used as before (and turns Automatic Margin off).
    scene.gloop.domain_margin = 0.3
    assert not scene.gloop.use_auto_margin
    assert exported(addon, scene)["settings"]["domain"]["min"][2] == pytest.approx(-0.3)


def test_domains_and_emitters_are_hidden_in_a_cycles_render(addon, empty_scene, tmp_path):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 2
    scene.gloop.particle_radius = 0.01
    bpy.ops.mesh.primitive_cube_add(size=0.1)
    nozzle = bpy.context.object
    nozzle.name = "Nozzle"
    nozzle.gloop.type = "EMITTER"
    # A particle (8 mL at r = 1 cm) a frame: a bake that would emit nothing is refused.
    nozzle.gloop.emit_flow = 200.0
    box = domain_box(location=(0.0, 0.0, 0.0), size=(0.6, 0.6, 0.6))
    seen = {"camera_location": (0.0, -0.8, 0.0), "look_at": (0.0, 0.0, 0.0)}

    def coverage():
        return harness.render_coverage(scene, folder=tmp_path, resolution=(32, 32), **seen)

    # Shown, the domain would fill the middle of the frame: a render can see it.
    box.hide_render = False
    assert coverage() > 0.3
    # Made a domain, it is hidden at once; only the nozzle, much smaller, is left.
    box.gloop.type = "NONE"
    box.gloop.type = "DOMAIN"
    nozzle_only = coverage()
    assert 0.0 < nozzle_only < 0.1

    # Bake hides both again, even after an artist showed the domain.
    box.hide_render = False
    assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
    assert box.hide_render and nozzle.hide_render
    scene.gloop.liquid_object.hide_render = True  # the poured liquid is not this test's subject
    assert coverage() == 0.0
    with open(os.path.join(bpy.path.abspath(scene.gloop.cache_dir), "scene.json")) as f:
        assert json.load(f)["settings"]["domain"]["max"] == pytest.approx([0.3] * 3, abs=1e-6)
