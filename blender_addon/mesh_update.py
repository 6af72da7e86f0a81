"""Rewrites a mesh in place from flat arrays, as fast as Blender allows.

BLENDER_NOTES §3: `clear_geometry` + `add` + `foreach_set` on the `position` and
`.corner_vert` attributes is 2.6–7× faster than the classic `vertices.co` / `loops.vertex_index`
path and creates no datablocks (nothing orphaned, material slots kept). The classic path stays
as a fallback for a Blender that refuses the internal `.corner_vert` attribute.
"""

import bpy
import numpy as np

COLOUR_ATTRIBUTE = "gloop_colour"
# Blender 4.5+ reads a FLOAT_VECTOR point attribute with this name as free custom normals
# (0.4 ms at 300k vertices); 4.2–4.4 ignore it and take them through the classic
# `normals_split_custom_set_from_vertices` instead (about 2.6 µs a vertex: 0.26 s at 100k
# vertices on the 2-core test machine, so playback there is slower, but renders shade alike).
WRITE_CUSTOM_NORMALS = bpy.app.version >= (4, 5, 0)


def _set_topology_fast(mesh, positions, triangles, edges, corner_edges):
    mesh.attributes["position"].data.foreach_set("vector", positions)
    mesh.attributes[".corner_vert"].data.foreach_set("value", triangles)
    if edges is not None:
        mesh.attributes[".edge_verts"].data.foreach_set("value", edges)
        mesh.attributes[".corner_edge"].data.foreach_set("value", corner_edges)


def _set_topology_classic(mesh, positions, triangles):
    mesh.vertices.foreach_set("co", positions)
    mesh.loops.foreach_set("vertex_index", triangles)


def _point_attribute(mesh, name, data_type, key, values):
    attr = mesh.attributes.get(name) or mesh.attributes.new(name, data_type, "POINT")
    attr.data.foreach_set(key, values)


def replace_mesh(
    mesh,
    positions,
    triangles=None,
    normals=None,
    colours=None,
    velocities=None,
    edges=None,
    corner_edges=None,
):
    """Sets `mesh` to the given vertices (float32 N×3 flat) and triangles (int32 T×3 flat).

    `edges` (int32 E×2 flat) with `corner_edges` (int32 per corner), as gloop_core computes
    them, spare `update()` from deriving the edges on the main thread: about 3× faster at 300k
    triangles, where that derivation was the largest cost. Without them Blender derives them.

    `normals` (N×3 flat, unit), where a file has them (caches from before issue 33), are set
    as custom normals. `colours` are linear RGB (N×3 flat), stored as a FLOAT_COLOR point attribute;
    `velocities` (scene units per second) as the `velocity` point attribute that Cycles uses for
    motion blur. Without triangles the mesh is a vertex cloud.
    """
    n_verts = len(positions) // 3
    n_tris = 0 if triangles is None else len(triangles) // 3
    mesh.clear_geometry()
    if n_verts == 0:
        mesh.update()
        return
    mesh.vertices.add(n_verts)
    if n_tris:
        if edges is not None:
            mesh.edges.add(len(edges) // 2)
        mesh.loops.add(3 * n_tris)
        mesh.polygons.add(n_tris)
        corner_verts = np.asarray(triangles, dtype=np.int32)
        try:
            _set_topology_fast(mesh, positions, corner_verts, edges, corner_edges)
        except (KeyError, AttributeError, TypeError):
            # A Blender without these internal attributes: the classic path, edges derived.
            mesh.clear_geometry()
            mesh.vertices.add(n_verts)
            mesh.loops.add(3 * n_tris)
            mesh.polygons.add(n_tris)
            _set_topology_classic(mesh, positions, corner_verts)
        mesh.polygons.foreach_set("loop_start", np.arange(0, 3 * n_tris, 3, dtype=np.int32))
    else:
        mesh.attributes["position"].data.foreach_set("vector", positions)
    if velocities is not None:
        _point_attribute(mesh, "velocity", "FLOAT_VECTOR", "vector", velocities)
    if colours is not None:
        rgba = np.ones((n_verts, 4), dtype=np.float32)
        rgba[:, :3] = np.asarray(colours, dtype=np.float32).reshape(-1, 3)
        _point_attribute(mesh, COLOUR_ATTRIBUTE, "FLOAT_COLOR", "color", rgba.ravel())
    if normals is not None and n_tris and WRITE_CUSTOM_NORMALS:
        _point_attribute(mesh, "custom_normal", "FLOAT_VECTOR", "vector", normals)
    mesh.update()
    if normals is not None and n_tris and not WRITE_CUSTOM_NORMALS:
        mesh.normals_split_custom_set_from_vertices(
            np.asarray(normals, dtype=np.float32).reshape(-1, 3)
        )
