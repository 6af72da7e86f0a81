"""The shape of an emitter's pour over time, for the estimate of its surface (and so of the
cache): a stream falling from the nozzle, thinning as it speeds up, onto what lies below.

The stream is steady and free-falling: at depth z below the nozzle it moves at
v(z) = sqrt(v0² + 2 g z), so to carry the flow Q its radius is a(z) = a0 sqrt(v0 / v(z)). Its
side area down to depth h is ∫ 2π a dz = 2π a0 sqrt(v0) (2 / 3g) (v(h)^1.5 − v0^1.5). Once it
lands, what has poured beyond the column lies as a rope as thick as the stream where it lands,
coiled, with about half its side against the board and its other turns (`PILE_SHARE`; its
spreading afterwards is not foreseen). A nozzle of 4 mm radius pouring
honey from 6 cm lands at 1.1 m/s, 3.3 times thinner than it left: most of the surface a pour
writes is the thin falling column, three times what a rope of the nozzle's width would have.

No bpy here: the caller measures the nozzle and the fall.
"""

import numpy as np

# The share of a landed rope's side that is open surface: its coils rest on the board and
# against each other. Measured over three pours (`tests/blender/test_estimates.py`: 6 and 15 cm
# falls, 5 mm and 8 mm nozzles, 5 and 15 mL/s), a half puts each within 14% of the surface
# meshes the bake wrote; the whole side put them 42–82% over.
PILE_SHARE = 0.5


def _speed(v0, g, depth):
    return np.sqrt(v0 * v0 + 2.0 * g * depth)


def _column_area(a0, v0, g, depth):
    if g <= 0.0:
        return 2.0 * np.pi * a0 * depth
    return (
        2.0 * np.pi * a0 * np.sqrt(v0) * (2.0 / (3.0 * g)) * (_speed(v0, g, depth) ** 1.5 - v0**1.5)
    )


def volume_and_area(times, nozzle_area, flow, speed, gravity, fall):
    """(liquid volume m³, surface area m²) of the pour at each of `times` (seconds since it
    started pouring; negative before), for a nozzle of `nozzle_area` m² pouring `flow` m³/s at
    `speed` m/s, under `gravity` m/s², onto something `fall` m below."""
    volume, column, pile = volume_column_pile(times, nozzle_area, flow, speed, gravity, fall)
    return volume, column + pile


def volume_column_pile(times, nozzle_area, flow, speed, gravity, fall):
    """`volume_and_area` with the area split: (volume, the falling column's area, the landed
    rope's open area), each per time."""
    times = np.maximum(np.asarray(times, dtype=np.float64), 0.0)
    volume = flow * times
    if nozzle_area <= 0.0 or flow <= 0.0 or speed <= 0.0:
        return volume, np.zeros_like(times), np.zeros_like(times)
    a0 = np.sqrt(nozzle_area / np.pi)
    depth = np.minimum(speed * times + 0.5 * gravity * times**2, fall)
    column_area = _column_area(a0, speed, gravity, depth)
    landed_speed = _speed(speed, gravity, fall)
    time_to_land = (landed_speed - speed) / gravity if gravity > 0.0 else fall / speed
    pile_volume = np.maximum(volume - flow * time_to_land, 0.0)
    landed_radius = a0 * np.sqrt(speed / landed_speed)
    return volume, column_area, PILE_SHARE * 2.0 * pile_volume / landed_radius
