"""Exact object-particle counts for the Bake panel, counted off the UI thread.

How many particles the bake puts on an obstacle is not a constant of its area: the sampler's
greedy thinning packs a large flat triangle at about 1.3 particles per spacing² and a finely
tessellated ball at 0.9–1.2, so an area rule was up to 25% off (a plane: 17,777 estimated,
23,412 made). `gloop_core.surface_sample_count` runs the bake's own sampler instead. That
takes seconds for a metre-wide plane at millimetre spacing, so it runs on one worker thread
(the GIL released inside) while the panel shows the area rule's figure, marked as provisional.

No bpy here beyond what the caller passes: the triangles are read on the main thread.
"""

import concurrent.futures
import threading

import numpy as np

# Samples per spacing² the panel shows until the exact count arrives: the middle of the
# sampler's range (0.9 on a small, finely tessellated ball to 1.3 on a large flat face).
PROVISIONAL_DENSITY = 1.1

_worker = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="gloop-count")
_lock = threading.Lock()
_counts = {}  # object name -> (key, Future): one count per object, the newest asked


def _count(vertices, triangles, spacing):
    import gloop_core

    return gloop_core.surface_sample_count(vertices, triangles, spacing)


def count(name, key, triangles, area, spacing):
    """(particles, exact): object `name`'s particle count at `spacing` if counted, else the
    area rule's figure and False while the count runs. `key` is what the count depends on
    (mesh, scale, spacing); `triangles()` gives the T×3×3 triangles to count on (called on this
    thread, only when `key` changed). A newer key replaces a count not yet started, so
    scaling an object in the viewport does not queue a count per redraw."""
    with _lock:
        asked = _counts.get(name)
        if asked is None or asked[0] != key:
            if asked is not None:
                asked[1].cancel()
            tris = np.ascontiguousarray(triangles(), dtype="<f4")
            vertices = tris.reshape(-1, 3).tobytes()
            indices = np.arange(len(tris) * 3, dtype="<u4").tobytes()
            asked = (key, _worker.submit(_count, vertices, indices, spacing))
            _counts[name] = asked
        future = asked[1]
    if future.done() and future.exception() is None:
        return future.result(), True
    return int(PROVISIONAL_DENSITY * area / spacing**2), False


def upper_bound(triangles, spacing):
    """The sampler's upper bound on the particles it keeps on the T×3×3 `triangles` at
    `spacing` (`geometry::sampling_cost` in src/geometry/sampling.rs): per triangle, Oler's
    bound on points 0.85 spacing apart, at most its candidates. The bake counts an obstacle
    exactly (sampling it once more) whenever these bounds exceed Max Particles."""
    a, b, c = (triangles[:, k, :].astype(np.float64) for k in range(3))
    edges = np.stack(
        [
            np.linalg.norm(b - a, axis=1),
            np.linalg.norm(c - b, axis=1),
            np.linalg.norm(a - c, axis=1),
        ]
    )
    longest = edges.max(axis=0)
    usable = np.isfinite(longest) & (longest > 0.0)
    rows = np.clip(np.ceil(longest[usable] / (0.25 * spacing)), 1, 4096)
    candidates = (rows + 1) * (rows + 2) / 2
    d = 0.85 * spacing * (1.0 - 1e-4)
    area = 0.5 * np.linalg.norm(np.cross(b - a, c - a), axis=1)[usable]
    packed = np.floor(2.0 / np.sqrt(3.0) * area / d**2 + edges.sum(axis=0)[usable] / (2 * d) + 1)
    return int(np.minimum(packed, candidates).sum())


def pending():
    """True while some count is still running (the panel redraws until none is)."""
    with _lock:
        return any(not f.done() for _, f in _counts.values())


def wait(timeout=None):
    """Blocks until every count has finished (tests; a bake does not need them)."""
    with _lock:
        futures = [f for _, f in _counts.values()]
    concurrent.futures.wait(futures, timeout=timeout)


def forget():
    """Drops every count (the add-on's unregister)."""
    with _lock:
        _counts.clear()
