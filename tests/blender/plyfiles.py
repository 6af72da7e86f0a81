"""Writes cache files in the TEAM_BRIEF layout (binary little-endian PLY) for tests that need
a cache without running the solver, and for the playback benchmark."""

import numpy as np

PARTICLE_DTYPE = np.dtype(
    [
        ("x", "<f4"),
        ("y", "<f4"),
        ("z", "<f4"),
        ("vx", "<f4"),
        ("vy", "<f4"),
        ("vz", "<f4"),
        ("material", "<u2"),
        ("red", "<f4"),
        ("green", "<f4"),
        ("blue", "<f4"),
    ]
)
SURFACE_VERTEX_DTYPE = np.dtype(
    [
        ("x", "<f4"),
        ("y", "<f4"),
        ("z", "<f4"),
        ("nx", "<f4"),
        ("ny", "<f4"),
        ("nz", "<f4"),
        ("red", "<f4"),
        ("green", "<f4"),
        ("blue", "<f4"),
        ("vx", "<f4"),
        ("vy", "<f4"),
        ("vz", "<f4"),
    ]
)
FACE_DTYPE = np.dtype([("n", "u1"), ("i", "<u4", 3)])


def write_particles(path, frame, positions, velocities, colours, material=None):
    n = len(positions)
    rec = np.zeros(n, dtype=PARTICLE_DTYPE)
    for k, name in enumerate("xyz"):
        rec[name] = positions[:, k]
        rec["v" + name] = velocities[:, k]
    for k, name in enumerate(("red", "green", "blue")):
        rec[name] = colours[:, k]
    rec["material"] = 0 if material is None else material
    header = (
        "ply\nformat binary_little_endian 1.0\n"
        f"comment gloop frame {frame}\n"
        f"element vertex {n}\n"
        "property float x\nproperty float y\nproperty float z\n"
        "property float vx\nproperty float vy\nproperty float vz\n"
        "property ushort material\n"
        "property float red\nproperty float green\nproperty float blue\n"
        "end_header\n"
    )
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(rec.tobytes())


PARTICLE_BY_MATERIAL_DTYPE = np.dtype(
    [
        ("x", "<f4"),
        ("y", "<f4"),
        ("z", "<f4"),
        ("vx", "<f4"),
        ("vy", "<f4"),
        ("vz", "<f4"),
        ("material", "<u2"),
        ("density_step", "<f4"),
    ]
)


def write_particles_by_material(path, frame, positions, velocities, material, colours):
    """A particle file as Gloop writes them since issue 41 when every particle has its
    material's colour: no per-particle colour, one `gloop material_colour` comment per entry of
    `colours` ({material: (r, g, b)})."""
    n = len(positions)
    rec = np.zeros(n, dtype=PARTICLE_BY_MATERIAL_DTYPE)
    for k, name in enumerate("xyz"):
        rec[name] = positions[:, k]
        rec["v" + name] = velocities[:, k]
    rec["material"] = material
    comments = "".join(
        f"comment gloop material_colour {m} {r!r} {g!r} {b!r}\n"
        for m, (r, g, b) in sorted(colours.items())
    )
    header = (
        "ply\nformat binary_little_endian 1.0\n"
        f"comment gloop frame {frame}\n"
        f"{comments}"
        f"element vertex {n}\n"
        "property float x\nproperty float y\nproperty float z\n"
        "property float vx\nproperty float vy\nproperty float vz\n"
        "property ushort material\nproperty float density_step\n"
        "end_header\n"
    )
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(rec.tobytes())


def write_surface(path, positions, triangles, normals, colours, velocities):
    n = len(positions)
    rec = np.zeros(n, dtype=SURFACE_VERTEX_DTYPE)
    for k, name in enumerate("xyz"):
        rec[name] = positions[:, k]
        rec["n" + name] = normals[:, k]
        rec["v" + name] = velocities[:, k]
    for k, name in enumerate(("red", "green", "blue")):
        rec[name] = colours[:, k]
    faces = np.zeros(len(triangles), dtype=FACE_DTYPE)
    faces["n"] = 3
    faces["i"] = triangles
    header = (
        "ply\nformat binary_little_endian 1.0\n"
        f"element vertex {n}\n"
        "property float x\nproperty float y\nproperty float z\n"
        "property float nx\nproperty float ny\nproperty float nz\n"
        "property float red\nproperty float green\nproperty float blue\n"
        "property float vx\nproperty float vy\nproperty float vz\n"
        f"element face {len(triangles)}\n"
        "property list uchar uint vertex_indices\n"
        "end_header\n"
    )
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(rec.tobytes())
        f.write(faces.tobytes())


SLIM_SURFACE_VERTEX_DTYPE = np.dtype(
    [
        ("x", "<f4"),
        ("y", "<f4"),
        ("z", "<f4"),
        ("red", "u1"),
        ("green", "u1"),
        ("blue", "u1"),
        ("vx", "<f4"),
        ("vy", "<f4"),
        ("vz", "<f4"),
    ]
)


def srgb_codes(linear):
    """Linear 0..1 colours as 8-bit sRGB codes (what Gloop writes since issue 33)."""
    c = np.clip(np.asarray(linear, dtype=np.float64), 0.0, 1.0)
    s = np.where(c <= 0.0031308, 12.92 * c, 1.055 * c ** (1 / 2.4) - 0.055)
    return np.round(s * 255).astype(np.uint8)


def write_slim_surface(path, positions, triangles, colours, velocities):
    """A surface file as Gloop writes them since issue 33: no normals, colours as sRGB bytes."""
    n = len(positions)
    rec = np.zeros(n, dtype=SLIM_SURFACE_VERTEX_DTYPE)
    codes = srgb_codes(colours)
    for k, name in enumerate("xyz"):
        rec[name] = positions[:, k]
        rec["v" + name] = velocities[:, k]
    for k, name in enumerate(("red", "green", "blue")):
        rec[name] = codes[:, k]
    faces = np.zeros(len(triangles), dtype=FACE_DTYPE)
    faces["n"] = 3
    faces["i"] = triangles
    header = (
        "ply\nformat binary_little_endian 1.0\n"
        f"element vertex {n}\n"
        "property float x\nproperty float y\nproperty float z\n"
        "property uchar red\nproperty uchar green\nproperty uchar blue\n"
        "property float vx\nproperty float vy\nproperty float vz\n"
        f"element face {len(triangles)}\n"
        "property list uchar uint vertex_indices\n"
        "end_header\n"
    )
    with open(path, "wb") as f:
        f.write(header.encode("ascii"))
        f.write(rec.tobytes())
        f.write(faces.tobytes())


def uv_sphere(center, radius, rings, segments):
    """A closed UV sphere: (positions V×3, triangles T×3 counter-clockwise from outside,
    normals V×3)."""
    theta = np.linspace(0.0, np.pi, rings + 1)[1:-1]
    phi = np.linspace(0.0, 2 * np.pi, segments, endpoint=False)
    t, p = np.meshgrid(theta, phi, indexing="ij")
    ring = np.stack([np.sin(t) * np.cos(p), np.sin(t) * np.sin(p), np.cos(t)], axis=-1)
    normals = np.concatenate([[[0, 0, 1]], ring.reshape(-1, 3), [[0, 0, -1]]])
    tris = []
    top, bottom = 0, len(normals) - 1
    idx = lambda r, s: 1 + r * segments + (s % segments)
    for s in range(segments):
        tris.append([top, idx(0, s), idx(0, s + 1)])
        tris.append([bottom, idx(rings - 2, s + 1), idx(rings - 2, s)])
    for r in range(rings - 2):
        for s in range(segments):
            a, b, c, d = idx(r, s), idx(r + 1, s), idx(r + 1, s + 1), idx(r, s + 1)
            tris += [[a, b, c], [a, c, d]]
    positions = np.asarray(center, dtype=np.float32) + radius * normals
    return (
        positions.astype(np.float32),
        np.array(tris, dtype=np.uint32),
        normals.astype(np.float32),
    )
