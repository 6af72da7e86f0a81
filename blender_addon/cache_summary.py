"""What the Bake panel says about a cache opened with Open Cache: its radius, frame rate,
frames, particles and size on disk.

An opened cache has no Liquid or Emitter objects behind it (its liquid is the playback
object), so the panel cannot estimate a bake; it describes the cache instead (issue 43). The
figures come from the manifest and from the last baked frame's PLY header, read again only when
the manifest changes (a Re-mesh or a resume writes it), so a redraw costs a `stat`.
"""

import json
import os
from typing import NamedTuple


class Summary(NamedTuple):
    name: str  # the cache folder's name
    radius: float  # m
    fps: float
    frame_start: int
    frame_end: int
    last_baked: int | None  # the last frame with particles; None before the first
    particles: int | None  # particles in the last baked frame, when its header is readable
    surfaces: int  # frames with a surface mesh
    disk_bytes: int  # the frame files the manifest records


# cache folder → (manifest stamp, Summary or None)
_SEEN = {}


def _manifest_stamp(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def summary(cache_dir):
    """The opened cache's Summary, or None when `cache_dir` holds no readable manifest."""
    if not cache_dir:
        return None
    path = os.path.join(cache_dir, "manifest.json")
    stamp = _manifest_stamp(path)
    if stamp is None:
        return None
    seen = _SEEN.get(cache_dir)
    if seen is not None and seen[0] == stamp:
        return seen[1]
    result = _read(cache_dir, path)
    _SEEN[cache_dir] = (stamp, result)
    return result


def _read(cache_dir, path):
    try:
        with open(path, encoding="utf-8") as f:
            manifest = json.load(f)
        radius = float(manifest["particle_radius"])
        fps = float(manifest.get("fps") or 0.0)
        first, end = int(manifest["frame_start"]), int(manifest["frame_end"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    last = manifest.get("last_complete_frame")
    last = last if isinstance(last, int) else None
    frames = manifest.get("frames") if isinstance(manifest.get("frames"), dict) else {}
    disk, surfaces = 0, 0
    for record in frames.values():
        if not isinstance(record, dict):
            continue
        for kind in ("particles", "surface"):
            entry = record.get(kind)
            if isinstance(entry, dict) and isinstance(entry.get("size"), int):
                disk += entry["size"]
                surfaces += kind == "surface"
    particles = None
    if last is not None:
        particles = _vertex_count(os.path.join(cache_dir, f"particles_{last:05d}.ply"))
    return Summary(
        name=os.path.basename(os.path.normpath(cache_dir)),
        radius=radius,
        fps=fps,
        frame_start=first,
        frame_end=end,
        last_baked=last,
        particles=particles,
        surfaces=surfaces,
        disk_bytes=disk,
    )


def _vertex_count(ply_path):
    """The `element vertex N` of a PLY file's header, or None."""
    try:
        with open(ply_path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    for line in head.split(b"\n"):
        if line.startswith(b"element vertex "):
            try:
                return int(line.split()[2])
            except (IndexError, ValueError):
                return None
        if line.strip() == b"end_header":
            break
    return None


def lines(s):
    """The panel's rows for Summary `s`."""
    from .estimate import human_bytes

    if s.last_baked is None:
        frames = f"Frames {s.frame_start}–{s.frame_end}, none baked yet"
    elif s.last_baked >= s.frame_end:
        frames = f"Frames {s.frame_start}–{s.frame_end}, all baked"
    else:
        frames = f"Frames {s.frame_start}–{s.frame_end}, baked to {s.last_baked}"
    rows = [
        f"Particle radius {s.radius * 1e3:.2f} mm, {s.fps:g} fps",
        frames,
    ]
    if s.particles is not None:
        rows.append(f"{s.particles:,} particles at frame {s.last_baked}")
    if s.surfaces:
        rows.append(f"{human_bytes(s.disk_bytes)} on disk, {s.surfaces} surface meshes")
    else:
        rows.append(f"{human_bytes(s.disk_bytes)} on disk, particles only: Re-mesh adds surfaces")
    return rows
