"""Gloop: bake highly viscous liquids (honey, paint, gel) with a Rust solver.

Mark objects as Liquid, Emitter or Obstacle in the Physics tab, press Bake Liquid, scrub the
cached animation on the "Gloop Liquid" object, render with Cycles. The solver is the
`gloop_core` module (a PyO3 wheel bundled through blender_manifest.toml); bakes run in a child
process so a solver failure never takes Blender down.
"""

from . import (
    open_cache,
    operators,
    panels,
    playback,
    properties,
    quick_honey,
    remesh,
    temporary_cache,
)

# remesh after panels: its Surface panel is a child of the Bake panel.
_MODULES = (
    properties,
    operators,
    panels,
    remesh,
    open_cache,
    playback,
    quick_honey,
    temporary_cache,
)


def register():
    for module in _MODULES:
        module.register()


def unregister():
    for module in reversed(_MODULES):
        module.unregister()
