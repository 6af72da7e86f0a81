"""gloop_core's cache readers against files written independently (numpy, ASCII by hand)."""

import os

import numpy as np
import plyfiles
import pytest


@pytest.fixture(scope="module")
def core(addon):
    import gloop_core

    return gloop_core


def test_read_surface_returns_the_file_and_blender_style_edges(core, tmp_path):
    pos, tris, normals = plyfiles.uv_sphere((1.0, 2.0, 3.0), 0.5, 6, 8)
    n = len(pos)
    colours = np.linspace(0, 1, n * 3, dtype=np.float32).reshape(n, 3)
    vel = -colours
    path = str(tmp_path / "surface_00001.ply")
    plyfiles.write_surface(path, pos, tris, normals, colours, vel)
    data = core.read_surface(path)
    assert data["vertex_count"] == n and data["triangle_count"] == len(tris)
    for key, expected in (("position", pos), ("normal", normals), ("colour", colours)):
        assert np.array_equal(np.frombuffer(data[key], "<f4").reshape(-1, 3), expected), key
    assert np.array_equal(np.frombuffer(data["velocity"], "<f4").reshape(-1, 3), vel)
    got_tris = np.frombuffer(data["triangles"], "<i4").reshape(-1, 3)
    assert np.array_equal(got_tris, tris.astype(np.int32))
    # Edges: every undirected triangle edge once; each corner points at its outgoing edge.
    edges = np.frombuffer(data["edges"], "<i4").reshape(-1, 2)
    corner_edges = np.frombuffer(data["corner_edges"], "<i4")
    a, b = got_tris.ravel(), np.roll(got_tris, -1, axis=1).ravel()
    expected = {(min(x, y), max(x, y)) for x, y in zip(a, b)}
    assert {tuple(e) for e in edges} == expected and len(edges) == len(expected)
    assert (edges[corner_edges] == np.stack([np.minimum(a, b), np.maximum(a, b)], 1)).all()
    # Euler characteristic of a sphere: V − E + F = 2.
    assert n - len(edges) + len(tris) == 2


def test_read_surface_of_todays_files_decodes_srgb_colours_and_has_no_normals(core, tmp_path):
    pos, tris, _ = plyfiles.uv_sphere((1.0, 2.0, 3.0), 0.5, 6, 8)
    n = len(pos)
    colours = np.tile(np.float32([0.8, 0.42, 0.05]), (n, 1))  # honey, linear
    vel = np.tile(np.float32([0.0, 0.0, -1.5]), (n, 1))
    path = str(tmp_path / "surface_00001.ply")
    plyfiles.write_slim_surface(path, pos, tris, colours, vel)
    data = core.read_surface(path)
    assert data["vertex_count"] == n and data["normal"] is None
    assert np.array_equal(np.frombuffer(data["position"], "<f4").reshape(-1, 3), pos)
    assert np.array_equal(np.frombuffer(data["velocity"], "<f4").reshape(-1, 3), vel)
    # Linear again, within the 8-bit rounding (2% of the value in the dark blue).
    got = np.frombuffer(data["colour"], "<f4").reshape(-1, 3)
    assert np.allclose(got, colours, rtol=0.02, atol=0)
    assert np.array_equal(np.frombuffer(data["triangles"], "<i4").reshape(-1, 3), tris)


def test_read_particles_and_frame_comment(core, tmp_path):
    rng = np.random.default_rng(3)
    pos = rng.normal(size=(64, 3)).astype(np.float32)
    path = str(tmp_path / "particles_00012.ply")
    plyfiles.write_particles(path, 12, pos, pos * 2, np.abs(pos) % 1, material=7)
    data = core.read_particles(path)
    assert data["count"] == 64 and data["frame"] == 12
    assert np.array_equal(np.frombuffer(data["position"], "<f4").reshape(-1, 3), pos)
    assert np.array_equal(np.frombuffer(data["velocity"], "<f4").reshape(-1, 3), pos * 2)
    assert (np.frombuffer(data["material"], "<f4") == 7).all()


def test_read_particles_gives_each_particle_its_materials_colour(core, tmp_path):
    """Files that store colours once per material (`gloop material_colour` comments) read as
    if every particle had its own."""
    rng = np.random.default_rng(4)
    pos = rng.normal(size=(90, 3)).astype(np.float32)
    material = np.arange(90) % 3 * 5  # materials 0, 5 and 10
    colours = {0: (0.8, 0.42, 0.05), 5: (0.1, 0.2, 0.3), 10: (1.0, 1.0, 1.0)}
    path = str(tmp_path / "particles_00003.ply")
    plyfiles.write_particles_by_material(path, 3, pos, -pos, material, colours)
    data = core.read_particles(path)
    assert data["count"] == 90 and data["frame"] == 3
    assert np.array_equal(np.frombuffer(data["position"], "<f4").reshape(-1, 3), pos)
    assert np.array_equal(np.frombuffer(data["material"], "<f4"), material)
    expected = np.array([colours[m] for m in material], dtype=np.float32)
    assert np.array_equal(np.frombuffer(data["colour"], "<f4").reshape(-1, 3), expected)

    del colours[10]
    plyfiles.write_particles_by_material(path, 3, pos, -pos, material, colours)
    with pytest.raises(core.GloopError, match="no colour for material 10") as error:
        core.read_particles(path)
    assert path in str(error.value)


def test_ascii_ply_with_quads_from_another_tool(core, tmp_path):
    path = tmp_path / "surface_00001.ply"
    path.write_text(
        "ply\nformat ascii 1.0\nelement vertex 4\n"
        "property float x\nproperty float y\nproperty float z\n"
        "element face 1\nproperty list uchar int vertex_indices\nend_header\n"
        "0 0 0\n1 0 0\n1 1 0\n0 1 0\n4 0 1 2 3\n"
    )
    data = core.read_surface(str(path))
    assert data["triangle_count"] == 2 and data["normal"] is None
    assert list(np.frombuffer(data["triangles"], "<i4")) == [0, 1, 2, 0, 2, 3]


@pytest.mark.parametrize(
    ("mangle", "message"),
    [
        (lambda b: b[: len(b) - 7], "truncated"),
        (lambda b: b"junk" + b, "not a valid PLY"),
        (lambda b: b.replace(b"element face 2", b"element face 3"), "truncated"),
    ],
)
def test_bad_files_raise_gloop_error_naming_the_file(core, tmp_path, mangle, message):
    pos, tris, normals = plyfiles.uv_sphere((0, 0, 0), 1.0, 3, 3)
    good = tmp_path / "good.ply"
    plyfiles.write_surface(str(good), pos, tris[:2], normals, pos, pos)
    bad = tmp_path / "surface_00009.ply"
    bad.write_bytes(mangle(good.read_bytes()))
    with pytest.raises(core.GloopError, match=message) as info:
        core.read_surface(str(bad))
    assert "surface_00009.ply" in str(info.value)


def test_face_index_beyond_the_vertices_is_refused(core, tmp_path):
    pos, tris, normals = plyfiles.uv_sphere((0, 0, 0), 1.0, 3, 3)
    tris = tris.copy()
    tris[0, 1] = len(pos) + 5
    path = str(tmp_path / "surface_00001.ply")
    plyfiles.write_surface(path, pos, tris, normals, pos, pos)
    with pytest.raises(core.GloopError, match="beyond"):
        core.read_surface(path)


def test_missing_file_raises(core, tmp_path):
    with pytest.raises(core.GloopError, match="nothing_here.ply"):
        core.read_particles(os.path.join(str(tmp_path), "nothing_here.ply"))


def test_surface_sample_count_counts_as_the_bake_samples(core):
    # A 1 cm square of two triangles at 1 mm spacing: about 1.3 samples per spacing² on a
    # large flat face (`obstacle_count`), so well over the 100 cells of its area.
    square = np.array([[0, 0, 0], [0.01, 0, 0], [0.01, 0.01, 0], [0, 0.01, 0]], dtype="<f4")
    triangles = np.array([[0, 1, 2], [0, 2, 3]], dtype="<u4")
    count = core.surface_sample_count(square.tobytes(), triangles.tobytes(), 0.001)
    assert 100 < count < 200
    # Twice the spacing: about a quarter of the samples.
    coarse = core.surface_sample_count(square.tobytes(), triangles.tobytes(), 0.002)
    assert count / 5 < coarse < count / 3


@pytest.mark.parametrize(
    ("vertices", "triangles", "spacing", "message"),
    [
        (b"\0" * 13, b"", 0.001, "vertices holds 13 bytes"),
        (b"\0" * 12, np.array([[0, 0, 5]], dtype="<u4").tobytes(), 0.001, "indexes past"),
        (b"\0" * 12, b"", float("nan"), "spacing must be a positive number"),
        (np.full(3, np.inf, dtype="<f4").tobytes(), b"", 0.001, "not a finite number"),
    ],
)
def test_surface_sample_count_refuses_bad_buffers(core, vertices, triangles, spacing, message):
    with pytest.raises(core.GloopError, match=message):
        core.surface_sample_count(vertices, triangles, spacing)
