"""A poured honey rope on real Blender: set up as an artist would (a downward disc emitter
pouring 10 mL/s of honey onto a board), baked through the operator, its liquid mesh is one
connected piece from the nozzle to the pile."""

import math

import bpy
import numpy as np
import pytest

NOZZLE_HEIGHT = 0.06


def downward_disc(radius):
    bpy.ops.mesh.primitive_circle_add(
        vertices=32, radius=radius, fill_type="NGON", location=(0.0, 0.0, NOZZLE_HEIGHT)
    )
    nozzle = bpy.context.object
    nozzle.name = "Nozzle"
    nozzle.rotation_euler.x = math.pi  # facing down
    return nozzle


def test_the_automatic_resolution_of_an_emitter_pours_a_rope(addon, empty_scene):
    scene = empty_scene
    nozzle = downward_disc(0.008)
    nozzle.gloop.type = "EMITTER"
    radius = addon.resolution.particle_radius(scene, addon.export.gloop_objects(scene))
    # 8 particles across a nozzle of radius 8 mm (a 32-gon's area, a shade under the circle's).
    assert radius == pytest.approx(0.001, rel=0.01)


def test_a_resolution_the_artist_chose_is_kept_and_the_panel_offers_the_rope_one(empty_scene):
    scene = empty_scene
    scene.gloop.particle_radius = 0.01
    nozzle = downward_disc(0.008)
    nozzle.gloop.type = "EMITTER"
    assert scene.gloop.particle_radius == pytest.approx(0.01)
    bpy.context.view_layer.objects.active = nozzle
    assert bpy.ops.gloop.match_pour_resolution() == {"FINISHED"}
    assert scene.gloop.particle_radius == pytest.approx(0.001, rel=0.01)


def test_a_baked_pour_is_one_piece_from_nozzle_to_pile(empty_scene):
    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 12
    scene.render.fps = 24
    scene.gloop.particle_radius = 0.0005
    scene.gloop.domain_margin = 0.02
    nozzle = downward_disc(0.004)
    nozzle.gloop.type = "EMITTER"
    nozzle.gloop.liquid_preset = "HONEY"
    nozzle.gloop.emit_flow = 10.0
    nozzle.gloop.emit_frame_start, nozzle.gloop.emit_frame_end = 1, 12
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=(0.0, 0.0, -0.003))
    board = bpy.context.object
    board.name = "Board"
    board.scale = (0.06, 0.06, 0.006)
    board.gloop.type = "OBSTACLE"
    board.gloop.solid_preset = "WOOD"

    assert bpy.ops.gloop.bake() == {"FINISHED"}, scene.gloop.status_text
    scene.frame_set(12)
    mesh = scene.gloop.liquid_object.data
    assert len(mesh.vertices) > 0
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    z = co.reshape(-1, 3)[:, 2]
    edges = np.empty(len(mesh.edges) * 2, dtype=np.int64)
    mesh.edges.foreach_get("vertices", edges)
    component = connected_components(len(z), edges.reshape(-1, 2))
    top = component[np.argmax(z)]
    piece = component == top
    # The piece under the nozzle reaches down to the board.
    assert z[piece].max() > NOZZLE_HEIGHT - 0.004
    assert z[piece].min() < 0.002, f"the rope's piece ends {z[piece].min():.4f} m up"


def connected_components(count, edges):
    """Each vertex's component label, by union-find over the mesh's edges."""
    parent = np.arange(count)

    def root(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in edges:
        ra, rb = root(a), root(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    return np.array([root(i) for i in range(count)])
