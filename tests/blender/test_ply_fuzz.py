"""Mutation fuzzing of gloop_core's PLY readers inside Blender (issue 35).

A real bake of a small scene gives a particle and a surface file; thousands of variants of them
(header counts made absurd, types and formats swapped, lines dropped, payloads truncated or
scribbled on) go to `read_particles` and `read_surface`. Each must raise `GloopError` or return
arrays consistent with the counts it reports: never crash Blender, never allocate from a header
it has not checked against the file's size.
"""

import json
import random
import re

import numpy as np
import pytest

SEED = 35
VARIANTS_PER_FILE = 1500


@pytest.fixture(scope="module")
def core(addon):
    import gloop_core

    return gloop_core


def box(lo, hi):
    """A closed box, triangles counter-clockwise seen from outside."""
    v = [
        [(hi if x else lo)[0], (hi if y else lo)[1], (hi if z else lo)[2]]
        for z in (0, 1)
        for y in (0, 1)
        for x in (0, 1)
    ]
    quads = [[0, 2, 3, 1], [4, 5, 7, 6], [0, 1, 5, 4], [2, 6, 7, 3], [1, 3, 7, 5], [0, 4, 6, 2]]
    tris = [t for q in quads for t in ([q[0], q[1], q[2]], [q[0], q[2], q[3]])]
    return {"vertices": v, "triangles": tris}


def small_scene():
    """A 12 cm honey block over a slab at r = 1 cm: 216 particles, two frames."""
    identity = [1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0, 0, 0, 0, 0, 1.0]
    return {
        "version": 2,
        "settings": {
            "fps": 24.0,
            "frame_start": 1,
            "frame_end": 2,
            "particle_radius": 0.01,
            "substeps": 2,
            "moves": 3,
            "gravity": [0, 0, -9.81],
            "density_tolerance": 0.01,
            "elastic_coefficient": 0.5,
            "domain": {"min": [-2, -2, -2], "max": [2, 2, 2]},
            "max_particles": 20000,
        },
        "materials": {
            "liquids": [
                {"name": "honey", "density": 1420.0, "viscosity": 10.0, "colour": [0.8, 0.4, 0.05]}
            ],
            "solids": [{"name": "steel", "friction": 0.5}],
        },
        "objects": [
            {
                "name": "Slab",
                "role": {"type": "obstacle", "material": "steel"},
                "mesh": box([-0.15, -0.15, -0.03], [0.15, 0.15, 0.0]),
                "motion": {"static": {"matrix": identity}},
            },
            {
                "name": "Blob",
                "role": {"type": "liquid", "material": "honey"},
                "mesh": box([-0.06, -0.06, 0.03], [0.06, 0.06, 0.15]),
            },
        ],
    }


@pytest.fixture(scope="module")
def baked(core, tmp_path_factory):
    folder = tmp_path_factory.mktemp("ply_fuzz")
    scene = folder / "scene.json"
    scene.write_text(json.dumps(small_scene()))
    cache = folder / "cache"
    core.bake(str(scene), str(cache), surface=True)
    return {
        "particles": (cache / "particles_00002.ply").read_bytes(),
        "surface": (cache / "surface_00002.ply").read_bytes(),
    }


ABSURD_COUNTS = [
    "4000000000",
    "4294967295",
    "2147483647",
    "2147483648",
    "0",
    "1",
    "-1",
    "18446744073709551615",
    "99999999999999999999",
    "3.5",
    "1e9",
    "x",
]
TYPES = [
    "char",
    "uchar",
    "short",
    "ushort",
    "int",
    "uint",
    "float",
    "double",
    "int8",
    "float64",
    "list uchar float",
    "list uint uint",
    "list int float",
    "bogus",
]


def split_header(data):
    end = data.find(b"end_header\n")
    if end < 0:
        return data, b""
    end += len(b"end_header\n")
    return data[:end], data[end:]


def mutate_header(header, rng):
    lines = header.decode("latin-1").split("\n")
    k = rng.randrange(len(lines))
    choice = rng.randrange(6)
    if choice == 0:
        lines[k] = re.sub(r"\b\d+\b", rng.choice(ABSURD_COUNTS), lines[k], count=1)
    elif choice == 1 and lines[k].startswith("property"):
        words = lines[k].split()
        lines[k] = "property " + rng.choice(TYPES) + " " + words[-1]
    elif choice == 2:
        del lines[k]
    elif choice == 3:
        lines.insert(k, lines[rng.randrange(len(lines))])
    elif choice == 4:
        fmt = rng.choice(["ascii", "binary_big_endian", "binary_little_endian", "text"])
        lines = [f"format {fmt} 1.0" if l.startswith("format") else l for l in lines]
    else:
        lines.insert(
            k,
            rng.choice(
                [
                    "element vertex 4000000000",
                    "element face 4000000000",
                    "comment gloop frame 99999999999999999999",
                    "property list uchar uint vertex_indices",
                ]
            ),
        )
    return "\n".join(lines).encode("latin-1")


def mutate_payload(payload, rng):
    data = bytearray(payload)
    choice = rng.randrange(5)
    at = rng.randrange(len(data) + 1)
    if choice == 0:
        return bytes(data[:at])
    if choice == 1 and data:
        for _ in range(1 + rng.randrange(8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
    elif choice == 2:
        data[at:at] = bytes(rng.randrange(256) for _ in range(1 + rng.randrange(16)))
    elif choice == 3 and data:
        data[at : at + 4] = np.array(
            [rng.choice([np.nan, np.inf, -np.inf, 1e38, -1.0])], "<f4"
        ).tobytes()
    else:
        data[at : at + 5] = b"\xff\xff\xff\xff\xff"
    return bytes(data)


def variant(original, rng):
    header, payload = split_header(original)
    for _ in range(1 + rng.randrange(3)):
        if rng.random() < 0.5:
            header = mutate_header(header, rng)
        else:
            payload = mutate_payload(payload, rng)
    return header + payload


def check_particles(data):
    n = data["count"]
    assert isinstance(n, int) and n >= 0
    assert len(data["position"]) == 12 * n
    for key in ("velocity", "colour"):
        assert data[key] is None or len(data[key]) == 12 * n, key
    assert data["material"] is None or len(data["material"]) == 4 * n


def check_surface(data):
    n, t = data["vertex_count"], data["triangle_count"]
    assert len(data["position"]) == 12 * n
    for key in ("normal", "colour", "velocity"):
        assert data[key] is None or len(data[key]) == 12 * n, key
    triangles = np.frombuffer(data["triangles"], "<i4")
    assert len(triangles) == 3 * t
    assert t == 0 or (triangles.min() >= 0 and triangles.max() < n)
    edges = np.frombuffer(data["edges"], "<i4")
    assert len(edges) == 0 or (edges.min() >= 0 and edges.max() < n)
    assert len(data["corner_edges"]) == 4 * 3 * t


@pytest.mark.parametrize("kind", ["particles", "surface"])
def test_mutated_ply_files_raise_or_read_consistently(core, baked, tmp_path, kind):
    read, check = {
        "particles": (core.read_particles, check_particles),
        "surface": (core.read_surface, check_surface),
    }[kind]
    original = baked[kind]
    check(read(str(_write(tmp_path / "original.ply", original))))
    rng = random.Random(f"{SEED}-{kind}")
    outcomes = {"read": 0, "refused": 0}
    for i in range(VARIANTS_PER_FILE):
        path = _write(tmp_path / f"v{i % 8}.ply", variant(original, rng))
        try:
            data = read(str(path))
        except core.GloopError as e:
            assert str(path) in str(e), e
            outcomes["refused"] += 1
            continue
        check(data)
        outcomes["read"] += 1
    print(kind, outcomes)
    # Both ends are reached: damage that is refused, and damage the reader survives.
    assert outcomes["refused"] > VARIANTS_PER_FILE // 4 and outcomes["read"] > 0


def test_absurd_vertex_count_raises_without_allocating(core, baked, tmp_path):
    header, payload = split_header(baked["particles"])
    header = re.sub(rb"element vertex \d+", b"element vertex 4000000000", header)
    path = _write(tmp_path / "absurd.ply", header + payload)
    with pytest.raises(core.GloopError, match="truncated"):
        core.read_particles(str(path))
    header, payload = split_header(baked["surface"])
    header = re.sub(rb"element face \d+", b"element face 4000000000", header)
    path = _write(tmp_path / "absurd_faces.ply", header + payload)
    with pytest.raises(core.GloopError, match="truncated"):
        core.read_surface(str(path))


def _write(path, data):
    path.write_bytes(data)
    return path
