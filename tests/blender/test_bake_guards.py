"""No silent empty or runaway bakes (issue 42 point 4), as the artist meets them: an emitter
without flow is red in the Bake panel and Bake refuses it; a liquid below the resolution and an
unscaled floor of millions of object particles are red and Bake asks before it starts (from a
script: refused unless confirmed=True). Each sentence names the object and the fix, and the
core judges the exported scene the same way."""

import os
import warnings

import bpy
import pytest
from test_bake_consent import RecordingLayout, draw_bake_panel, labels


def mark(ob, kind, name, **settings):
    ob.name = name
    ob.gloop.type = kind
    for key, value in settings.items():
        setattr(ob.gloop, key, value)
    return ob


def nozzle(**settings):
    """A 4 mm round nozzle 6 cm up, facing down (r = 0.5 mm by Automatic Resolution)."""
    bpy.ops.mesh.primitive_circle_add(radius=0.004, fill_type="NGON", location=(0, 0, 0.06))
    ob = bpy.context.object
    ob.rotation_euler = (3.14159265, 0.0, 0.0)
    return mark(ob, "EMITTER", "Nozzle", **settings)


def floor(size):
    bpy.ops.mesh.primitive_plane_add(size=size)
    return mark(bpy.context.object, "OBSTACLE", "Floor", solid_preset="WOOD")


def is_red(layout):
    while layout is not None:
        if layout.attrs.get("alert"):
            return True
        layout = layout.parent
    return False


def red_sentences(log):
    """The red rows of a drawn panel, their wrapped lines joined back into sentences (a new
    sentence starts at a row with an icon other than BLANK1)."""
    sentences = []
    for name, _args, kwargs, child in log:
        if name != "label" or not is_red(child.parent):
            continue
        if kwargs.get("icon", "NONE") == "BLANK1" and sentences:
            sentences[-1] += " " + kwargs["text"]
        else:
            sentences.append(kwargs["text"])
    return sentences


def panel(addon):
    """The Bake panel's red sentences once the obstacles are counted; no numpy warning may
    arise drawing it (a 2 mm cube once raised 'invalid value encountered in add')."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        draw_bake_panel(addon, bpy.context)  # starts the obstacle counts
        addon.obstacle_count.wait()
        log = draw_bake_panel(addon, bpy.context)
    return red_sentences(log), labels(log)


def no_bake_started(scene):
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    return not os.path.exists(os.path.join(cache, "bake.log"))


def exported(addon, scene):
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    return addon.export.export_scene(scene, bpy.context.evaluated_depsgraph_get(), cache)


@pytest.mark.parametrize(
    ("settings", "said", "core_said"),
    [
        (
            {"emit_mode": "FLOW", "emit_flow": 0.0},
            "Emitter 'Nozzle' has no flow: set Flow above 0 mL/s",
            "emission flow is 0 m³/s",
        ),
        (
            {"emit_mode": "FLOW_SPEED", "emit_flow": 0.0, "emit_speed": 0.1},
            "Emitter 'Nozzle' has no flow: set Flow above 0 mL/s",
            "emission flow is 0 m³/s",
        ),
        (
            {"emit_mode": "SPEED", "emit_speed": 0.0},
            "Emitter 'Nozzle' has no speed: set Speed above 0 m/s",
            "emission speed is 0 m/s",
        ),
    ],
    ids=["flow", "flow-and-speed", "speed"],
)
def test_an_emitter_without_flow_is_red_and_bake_refuses_it(
    addon, empty_scene, settings, said, core_said
):
    import gloop_core

    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 3
    nozzle(**settings)
    floor(0.2)
    red, _shown = panel(addon)
    print("\nBake panel, red:", *red, sep="\n  ")
    assert said in red, red
    # The Emission panel says it in red too.
    log = []

    class Emission:
        layout = RecordingLayout(log)

    bpy.context.view_layer.objects.active = bpy.data.objects["Nozzle"]
    addon.panels.PHYSICS_PT_gloop_emitter.draw(Emission(), bpy.context)
    emission_red = red_sentences(log)
    print("Emission panel, red:", *emission_red, sep="\n  ")
    lacks = said.split(" has ", 1)[1]  # "no flow: set Flow above 0 mL/s"
    assert emission_red == [lacks[0].upper() + lacks[1:]], emission_red
    # Bake refuses it in the panel's words, before a bake process starts; so would the core.
    with pytest.raises(RuntimeError, match=f"Cannot bake: {said}"):
        bpy.ops.gloop.bake()
    with pytest.raises(RuntimeError, match=f"Cannot bake: {said}"):
        bpy.ops.gloop.bake(confirmed=True)
    assert no_bake_started(scene)
    with pytest.raises(gloop_core.GloopError, match=f"'Nozzle'.*{core_said}"):
        gloop_core.validate_scene(exported(addon, scene))


def test_an_emitter_running_outside_the_frames_is_red_and_refused(addon, empty_scene):
    import gloop_core

    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 12
    nozzle(emit_frame_start=20, emit_frame_end=40)
    floor(0.2)
    said = (
        "Nothing is emitted in frames 1–12 (emitting: 'Nozzle' 20–40): set the emitter's "
        "Frame Start and End within the bake's frames, or raise its Flow"
    )
    red, _shown = panel(addon)
    assert red == [said], red
    with pytest.raises(RuntimeError, match="Nothing is emitted in frames 1–12"):
        bpy.ops.gloop.bake()
    assert no_bake_started(scene)
    with pytest.raises(gloop_core.GloopError, match="no liquid in frames 1..12.*'Nozzle'"):
        gloop_core.validate_scene(exported(addon, scene))
    # Emitting from frame 12 on is still nothing within frames 1–12; from 11, a frame's worth.
    bpy.data.objects["Nozzle"].gloop.emit_frame_start = 12
    assert len(panel(addon)[0]) == 1
    bpy.data.objects["Nozzle"].gloop.emit_frame_start = 11
    assert panel(addon)[0] == []


def drop(size, name="Drop"):
    bpy.ops.mesh.primitive_cube_add(size=size, location=(0.0, 0.0, 0.05))
    return mark(bpy.context.object, "LIQUID", name)


def test_a_liquid_below_the_resolution_is_red_and_baked_only_once_confirmed(addon, empty_scene):
    import gloop_core

    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 3
    drop(0.002)  # Automatic Resolution goes no finer than 0.5 mm: 8 particles
    floor(0.2)
    red, shown = panel(addon)
    print("\nBake panel, red:", *red, sep="\n  ")
    said = (
        "Liquid 'Drop' gets ≈ 8 particles at radius 0.50 mm, too few to flow as a liquid "
        "(50 at least): it is 2.0 mm across and Gloop works to scale (1 unit = 1 m); scale it "
        "up (the finest radius is 0.50 mm)"
    )
    assert red == [said + " Bake Liquid asks before it starts"], red
    # Automatic Resolution says what the drop gets, not the 2,000 it asks for.
    assert "'Drop': ≈ 8 particles in it (the finest radius)" in shown, shown
    # From a script Bake refuses it, naming it; confirmed, it bakes the 8 particles.
    with pytest.raises(RuntimeError, match=r"asks to confirm: Liquid 'Drop' gets ≈ 8 particles"):
        bpy.ops.gloop.bake()
    assert no_bake_started(scene)
    # The core asks the same of the exported scene.
    (core_said,) = gloop_core.scene_cautions(exported(addon, scene))
    assert "liquid object 'Drop' holds only 8 particles" in core_said, core_said
    assert bpy.ops.gloop.bake(confirmed=True) == {"FINISHED"}, scene.gloop.status_text
    cache = bpy.path.abspath(scene.gloop.cache_dir)
    assert gloop_core.read_particles(os.path.join(cache, "particles_00003.ply"))["count"] == 8
    # Resume continues that bake without asking again.
    scene.frame_end = 4
    assert bpy.ops.gloop.bake_resume() == {"FINISHED"}, scene.gloop.status_text


def test_a_liquid_below_a_radius_set_by_hand_is_told_the_radius_that_fits(addon, empty_scene):
    scene = empty_scene
    drop(0.02)
    scene.gloop.particle_radius = 0.005  # 8 particles in the 2 cm cube
    (said,) = panel(addon)[0]
    assert said.startswith("Liquid 'Drop' gets ≈ 8 particles at radius 5.00 mm"), said
    # 50 at (8/50)^⅓ of the radius.
    assert "set the Particle Radius to 2.71 mm or less, or enlarge it" in said, said
    scene.gloop.particle_radius = 0.0025  # 64 particles
    assert panel(addon)[0] == []


def test_an_unscaled_floor_is_red_with_its_time_and_bake_asks_first(addon, empty_scene):
    import gloop_core

    scene = empty_scene
    scene.frame_start, scene.frame_end = 1, 12
    nozzle(emit_mode="FLOW_SPEED", emit_flow=5.0, emit_speed=0.1)
    floor(2.0)  # Blender's default plane, unscaled
    red, shown = panel(addon)
    print("\nBake panel, red:", *red, sep="\n  ")
    print("Bake panel, estimate:", *[s for s in shown if s.startswith("≈")], sep="\n  ")
    (said,) = red
    assert said.startswith("Obstacle 'Floor' makes ≈ 4,198,401 object particles, over 1,000,000"), (
        said
    )
    assert "Scale it down to where the liquid lands, or set a coarser Particle Radius" in said
    assert said.endswith("Bake Liquid asks before it starts"), said
    # The estimate counts them (issue 42: 5 s estimated, 40 s taken): the bake's start samples
    # the floor, three validations count it again (its bounds exceed Max Particles), every
    # frame copies it. This bake took 41 CPU seconds; without the floor the pour takes 2.5.
    figures = addon.preflight.preflight(scene)
    e, estimate = figures.estimate, addon.estimate
    assert e.solid == 4_198_401
    objects = addon.export.gloop_objects(scene)
    assert estimate.counted_in_validation(scene, objects, figures.radius, (1, 12))
    floor_seconds = estimate.object_particle_seconds(e.solid, (1, 12), True)
    assert f"≈ {estimate.human_duration(floor_seconds)} of the bake" in said
    assert 30 < floor_seconds < e.seconds < 50, (floor_seconds, e.seconds)
    assert f"≈ {estimate.human_duration(e.seconds)} to bake (rough)" in shown
    # Refused from a script, before anything is exported; confirmed it may start (not run
    # here: it takes the 40 s the panel warns of).
    with pytest.raises(RuntimeError, match="asks to confirm: Obstacle 'Floor' makes ≈ 4,198,401"):
        bpy.ops.gloop.bake()
    assert no_bake_started(scene)
    assert addon.operators.refusal_in_panel_words(figures, True, True) is None
    title, message, button = addon.operators.confirmation("", figures.cautions)
    assert (title, button) == ("Bake Anyway?", "Bake")
    assert message.startswith("Obstacle 'Floor'") and message.endswith("Bake anyway?")
    title, message, button = addon.operators.confirmation("a finished bake (frames 1–12)", red)
    assert message.startswith("The cache folder holds a finished bake") and button == "Bake"
    # The core asks the same of the exported scene.
    (core_said,) = gloop_core.scene_cautions(exported(addon, scene))
    assert "obstacle 'Floor' makes 4198401 object particles" in core_said, core_said
    # Scaled to the 20 cm where the pour lands, nothing is asked, and the estimate is the
    # pour's.
    bpy.data.objects["Floor"].scale = (0.1, 0.1, 0.1)
    bpy.context.view_layer.update()
    assert panel(addon)[0] == []
    assert addon.preflight.preflight(scene).estimate.seconds < 5
