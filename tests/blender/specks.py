"""Specks: what decimation may not add to a render (issue 41), measured against the render's
own noise. Shared by tests/blender/test_decimation_render.py and tools/decimation_diff.py.

An artist calls a speck a small, compact spot where the decimated liquid looks different from
the undecimated one. A path tracer's image is noisy, and two renders of the SAME mesh already
differ, most where light is hard to sample (the sun's glints, caustics through the liquid):
there a difference says nothing about the mesh. So a pixel only counts where the decimated
render differs from the undecimated one both visibly and by more than re-rendering the
undecimated mesh changes that part of the picture:

- `decimated` and `undecimated` are rendered with the same seed: Cycles then draws the same
  random numbers in every pixel, so where the two meshes agree the two pictures agree nearly
  to the bit, and what differs comes from the geometry. Where the geometry differs even
  slightly, paths fork and the noise no longer cancels, which is why a floor is still needed.
- the floor is measured, not guessed: `undecimated` against `reseeded` (the undecimated mesh
  with another seed) is pure render noise. Its local RMS (over a box of 2 NOISE_RADIUS + 1
  pixels a side, so that one pixel's sample does not set it) is the size of the difference a
  re-render alone makes there; a difference of NOISE_FACTOR times that is not noise.
- and a visible step: the displayed value differs by more than SPECK_STEP in some channel.
- not an outline moved by a pixel: each pixel of the decimated render is compared with the
  nearest value the undecimated render has within SHIFT pixels of it (per channel, how far it
  lies outside their range). An edge of a glint, a caustic or the silhouette that moved by
  sub-pixel amounts changes the pixels along it by up to its full contrast, which is no spot;
  a spot the decimated picture adds (a dark dot, a pale fleck) is outside that range however
  small it is (unless it lies within a pixel of something as dark or as bright in the
  undecimated picture), so the tolerance hides moved outlines, not specks.

Such pixels, 8-connected, make a group; a speck is a group of at most SPECK_PIXELS pixels (a
larger one is a patch, reported beside the specks: the mean difference answers for those).

Judged on tools/decimation_diff.py's renders of honey-drop frames 50 and 150 (640 x 400, 64
samples, denoised): the null (two seeds of one mesh, the same measure) counts no group.
"""

import numpy as np

# Displayed value (0..1) by which some channel must differ for the eye to see a spot.
SPECK_STEP = 0.1
# How many times the local render noise a difference must exceed. Render noise is not
# Gaussian (a firefly is one pixel at many sigma); 4 (with SHIFT) keeps two renders of the same
# mesh with other seeds at no speck on both honey-drop shots (without SHIFT: 1 and 3 single
# pixels); tools/decimation_diff.py reports that null count beside the real one.
NOISE_FACTOR = 4.0
# Half the side of the box over which the noise's RMS is taken.
NOISE_RADIUS = 4
# How far (pixels) an outline may move before its change counts.
SHIFT = 1
# The largest group still called a speck.
SPECK_PIXELS = 400


def box_mean(values, radius):
    """Mean of `values` (h, w) over the box of side 2 radius + 1 around each pixel, cut at the
    image's border (the mean of the pixels that are there)."""
    h, w = values.shape
    padded = np.zeros((h + 1, w + 1), dtype=np.float64)
    padded[1:, 1:] = np.cumsum(np.cumsum(values, axis=0), axis=1)
    ones = np.zeros((h + 1, w + 1), dtype=np.float64)
    ones[1:, 1:] = np.cumsum(np.cumsum(np.ones_like(values, dtype=np.float64), 0), 1)
    rows = np.arange(h)
    cols = np.arange(w)
    r0, r1 = np.clip(rows - radius, 0, h), np.clip(rows + radius + 1, 0, h)
    c0, c1 = np.clip(cols - radius, 0, w), np.clip(cols + radius + 1, 0, w)

    def window(table):
        return table[r1][:, c1] - table[r0][:, c1] - table[r1][:, c0] + table[r0][:, c0]

    return window(padded) / window(ones)


def channel_difference(a, b):
    """The largest per-channel difference |a - b| of two displayed images (h, w, 3)."""
    return np.abs(a[..., :3] - b[..., :3]).max(axis=-1)


def noise_floor(undecimated, reseeded, radius=NOISE_RADIUS):
    """The local RMS of the difference between two renders of the same mesh, other seeds."""
    noise = channel_difference(undecimated, reseeded).astype(np.float64)
    return np.sqrt(np.maximum(box_mean(noise * noise, radius), 0.0))  # cumsums round below 0


def beyond_nearby(a, b, shift=SHIFT):
    """How far each pixel of `a` (h, w, 3) lies outside the range of the values `b` has within
    `shift` pixels of it, in its worst channel (0 inside the range)."""
    padded = np.pad(b[..., :3], ((shift, shift), (shift, shift), (0, 0)), mode="edge")
    side = 2 * shift + 1
    windows = np.lib.stride_tricks.sliding_window_view(padded, (side, side), axis=(0, 1))
    low, high = windows.min(axis=(-2, -1)), windows.max(axis=(-2, -1))
    return np.maximum(low - a[..., :3], a[..., :3] - high).clip(0.0).max(axis=-1)


def connected_groups(flags):
    """The 8-connected groups of True pixels, largest first, each as an array of (row, column)."""
    todo = {(int(r), int(c)) for r, c in zip(*np.nonzero(flags))}
    groups = []
    while todo:
        stack = [todo.pop()]
        members = []
        while stack:
            r, c = stack.pop()
            members.append((r, c))
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    n = (r + dr, c + dc)
                    if n in todo:
                        todo.remove(n)
                        stack.append(n)
        groups.append(np.array(members))
    groups.sort(key=len, reverse=True)
    return groups


def luminance(display):
    return display[..., :3] @ np.array([0.2126, 0.7152, 0.0722], dtype=np.float32)


def differing_groups(decimated, undecimated, floor, inside):
    """The groups of the liquid's pixels (`inside`) where `decimated` differs from `undecimated`
    (moved by up to SHIFT pixels) visibly and by more than NOISE_FACTOR times the local
    `floor`, each described: its size,
    centre and bounding box (rows and columns, bottom row first as Blender stores images), the
    mean difference and floor over it, and whether the decimated render is darker there."""
    difference = beyond_nearby(decimated, undecimated)
    flags = inside & (difference > SPECK_STEP) & (difference > NOISE_FACTOR * floor)
    described = []
    for members in connected_groups(flags):
        rows, cols = members[:, 0], members[:, 1]
        brighter = luminance(decimated[rows, cols]) - luminance(undecimated[rows, cols])
        described.append(
            {
                "pixels": len(members),
                "row_col": (float(rows.mean()), float(cols.mean())),
                "box": (int(rows.min()), int(rows.max()), int(cols.min()), int(cols.max())),
                "difference": float(difference[rows, cols].mean()),
                "floor": float(floor[rows, cols].mean()),
                "darker": bool(brighter.mean() < 0.0),
            }
        )
    return described


def specks_and_patches(decimated, undecimated, floor, inside):
    """(specks, patches): the differing groups of at most SPECK_PIXELS pixels, and the rest."""
    groups = differing_groups(decimated, undecimated, floor, inside)
    return (
        [g for g in groups if g["pixels"] <= SPECK_PIXELS],
        [g for g in groups if g["pixels"] > SPECK_PIXELS],
    )
