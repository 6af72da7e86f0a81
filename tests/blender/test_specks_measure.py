"""The speck measure (tests/blender/specks.py) on made-up pictures: it counts a dot the
decimated render adds, and neither render noise nor an outline moved by a pixel.

A smooth gradient stands for the undecimated render. Noise: Gaussian, strong (0.08) in a
'glint' square, faint (0.005) elsewhere, drawn independently for each render, as another seed
would.
"""

import numpy as np
import specks

SIZE = (80, 120)
GLINT = (slice(10, 40), slice(10, 50))


def picture(seed, noise_in_glint=0.08):
    rng = np.random.default_rng(seed)
    h, w = SIZE
    base = np.linspace(0.3, 0.7, w, dtype=np.float32)[None, :, None].repeat(h, 0).repeat(3, 2)
    sigma = np.full((h, w, 1), 0.005, dtype=np.float32)
    sigma[GLINT] = noise_in_glint
    return np.clip(base + sigma * rng.standard_normal((h, w, 3)).astype(np.float32), 0, 1)


def count(decimated, undecimated, reseeded):
    inside = np.ones(SIZE, dtype=bool)
    floor = specks.noise_floor(undecimated, reseeded)
    found, patches = specks.specks_and_patches(decimated, undecimated, floor, inside)
    return found, patches


def test_noise_alone_is_no_speck():
    found, patches = count(picture(1), picture(2), picture(3))
    assert not found and not patches


def test_a_dark_dot_is_a_speck_even_where_the_render_is_noisy_nearby():
    decimated = picture(1)
    decimated[60:63, 80:83] *= 0.5  # a 3 x 3 dark dot, outside the glint
    found, patches = count(decimated, picture(2), picture(3))
    assert [g["pixels"] for g in found] == [9] and not patches
    assert found[0]["darker"]


def test_a_dot_as_strong_as_the_glints_noise_is_not_told_from_it():
    decimated = picture(1)
    decimated[20:23, 20:23] += 0.15  # inside the glint: within 4 sigma of its noise
    found, _ = count(decimated, picture(2), picture(3))
    assert not found


def test_an_edge_moved_by_a_pixel_is_no_speck_and_one_moved_further_is():
    def band(seed, start):
        shown = picture(seed)
        shown[:, start:] = 0.95  # a bright band's edge
        return shown

    undecimated, reseeded = band(1, 90), band(2, 90)
    assert count(band(1, 89), undecimated, reseeded) == ([], [])
    found, patches = count(band(1, 87), undecimated, reseeded)
    # the two columns it moved past the one it may
    assert [g["pixels"] for g in found + patches] == [SIZE[0] * 2]
