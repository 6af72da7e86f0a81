"""Honey drop (issue 3) and pour (issue 32) benchmarks, Gloop against SPlisHSPlasH, in one run.

For each size (30k and 100k particles) both simulators drop the same block of honey
(1420 kg/m³, 19 Pa·s → ν = 0.0134 m²/s), its lowest layer 12.5 mm above a 1.2 m × 1.2 m × 3 cm
plate, particle radius r = 2.5 mm on a 2r lattice, 24 fps, 2 threads each. SPlisHSPlasH runs DFSPH
with Weiler et al. 2018 implicit viscosity, Akinci 2012 particle boundaries (Gloop's obstacles
are particles too), its default CFL-adaptive time step and no exporters. Gloop runs
`examples/honey_drop_bench.rs` with the same block. The first frame of each run is left out
(it includes set-up); the table gives the median of the remaining frames and the viscosity
solve's share of their wall time, and for Gloop the largest compression a substep's density
correction left over those frames and how many substeps stopped at the pass cap (short of the
1% tolerance). SPlisHSPlasH's DFSPH solves to its default average density error of 0.01%.

Run (from the repository root; the venv lives outside the repo):

    python3.11 -m venv --copies /work/venv-splish
    /work/venv-splish/bin/pip install 'pysplishsplash==2.19.*' numpy
    /work/venv-splish/bin/python tools/compare_splishsplash.py [--frames 6] [--threads 2]

`--copies` matters for the pour: SPlisHSPlasH finds its emitter's nozzle mesh
(resources/emitter_boundary) beside the running executable, which in a venv of symlinks is the
base interpreter's folder; without it the emitter has no nozzle wall (the child warns).

`--pour` compares the honey pour of issue 32 instead: `tools/splishsplash_pour.py` says how.

Gloop is built as it ships, for any x86-64 (SSE2), its hottest loops with AVX2 copies chosen
at run time (src/sim/avx2.rs, the same bits). The pysplishsplash 2.19.0 wheel itself
is built with AVX and FMA (its code holds ~20,000 ymm and ~9,000 vfmadd instructions);
`--gloop-cpu x86-64-v3` (or `native`) builds Gloop for such a CPU too, in a target folder of
its own, to compare like with like.

The pysplishsplash 2.19.0 wheel segfaults on import (in __glDispatchInit) when the system's
libGLX is loaded next to its bundled libGLdispatch; the SPlisHSPlasH child process therefore
runs with the system libGLdispatch.so.0 in LD_PRELOAD when it exists.
"""

import argparse
import itertools
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FPS = 24.0
# Must match examples/honey_drop_bench.rs: radius, the block's lowest face (z = 0.01 m) and
# the plate (-0.6..0.6 in x and y, -0.03..0 in z).
RADIUS = 0.0025
BLOCK_BOTTOM = 0.01
PLATE = (1.2, 0.03, 1.2)
HONEY_DENSITY = 1420.0
HONEY_KINEMATIC_VISCOSITY = 19.0 / 1420.0
# Block sizes in lattice cells (x, y, z up), as honey_drop_bench takes them; 4k is a smoke test.
SIZES = {"4k": (16, 16, 16), "30k": (34, 34, 26), "100k": (50, 50, 40)}
# SPlisHSPlasH boundary handling: Akinci et al. 2012 samples the plate with particles, as
# Gloop does; Bender et al. 2019 volume maps cost nothing per plate particle.
BOUNDARY_METHODS = {"particles": 0, "volume-maps": 2}
SYSTEM_GLDISPATCH = "/lib/x86_64-linux-gnu/libGLdispatch.so.0"
UNIT_BOX_OBJ = """v -0.5 -0.5 -0.5
v 0.5 -0.5 -0.5
v 0.5 0.5 -0.5
v -0.5 0.5 -0.5
v -0.5 -0.5 0.5
v 0.5 -0.5 0.5
v 0.5 0.5 0.5
v -0.5 0.5 0.5
f 1 3 2
f 1 4 3
f 5 6 7
f 5 7 8
f 1 2 6
f 1 6 5
f 4 8 7
f 4 7 3
f 1 5 8
f 1 8 4
f 2 3 7
f 2 7 6
"""


def splishsplash_scene(cells, workdir, boundary):
    """The SPlisHSPlasH scene (y up) holding the same block and plate as honey_drop_bench."""
    nx, ny, nz = cells
    d = 2.0 * RADIUS
    # Gloop fills a global lattice at (k + 0.5)·2r: its lowest layer is the first one above
    # BLOCK_BOTTOM. A SPlisHSPlasH fluid block of extent (n + 1)·2r holds n particles, the
    # first at its minimum corner + 2r.
    lowest = (int(-(-(BLOCK_BOTTOM / d - 0.5) // 1)) + 0.5) * d
    lo = [-(nx + 1) * RADIUS, lowest - d, -(ny + 1) * RADIUS]
    hi = [lo[0] + (nx + 1) * d, lo[1] + (nz + 1) * d, lo[2] + (ny + 1) * d]
    box = workdir / "unit_box.obj"
    box.write_text(UNIT_BOX_OBJ)
    return {
        "Configuration": configuration(RADIUS, boundary),
        "Materials": [honey_material()],
        "RigidBodies": [plate(box, PLATE)],
        "FluidBlocks": [{"id": "Honey", "denseMode": 0, "start": lo, "end": hi}],
    }


def configuration(radius, boundary):
    """SPlisHSPlasH's settings for both comparisons: DFSPH, its default CFL step (at most
    5 ms), y up, no exporters."""
    return {
        "particleRadius": radius,
        "simulationMethod": 4,  # DFSPH
        "boundaryHandlingMethod": BOUNDARY_METHODS[boundary],
        "gravitation": [0.0, -9.81, 0.0],
        "cflMethod": 1,
        "enablePartioExport": False,
        "enableVTKExport": False,
        "enableRigidBodyExport": False,
        "enableRigidBodyVTKExport": False,
        "enableStateExport": False,
    }


def honey_material(**extra):
    """Honey with Weiler et al. 2018's viscosity, the same at the boundary (no slip)."""
    return {
        "id": "Honey",
        "density0": HONEY_DENSITY,
        "viscosityMethod": 6,  # Weiler et al. 2018
        "viscosity": HONEY_KINEMATIC_VISCOSITY,
        "viscosityBoundary": HONEY_KINEMATIC_VISCOSITY,
        **extra,
    }


def plate(box, extent):
    """A static plate of `extent` (x, thickness, z) whose top is y = 0, from the unit box."""
    return {
        "geometryFile": str(box),
        "translation": [0.0, -extent[1] / 2.0, 0.0],
        "scale": list(extent),
        "isDynamic": False,
        "isWall": False,
    }


def build_example(name, gloop_cpu):
    """Builds a Gloop example as it ships, or for `gloop_cpu` in a target folder of its own;
    returns its binary."""
    env, target = dict(os.environ), REPO / "target"
    if gloop_cpu:
        env["RUSTFLAGS"] = f"-C target-cpu={gloop_cpu}"
        target = target / f"cpu-{gloop_cpu}"
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--example", name],
        cwd=REPO,
        env=dict(env, CARGO_TARGET_DIR=str(target)),
        check=True,
    )
    return target / "release" / "examples" / name


def frame_walls(marks, frames, fps=FPS):
    """Wall clock at the end of each frame from (sim time, wall time) after every step."""
    ends, k = [], 1
    for sim_time, wall in marks:
        if k <= frames and sim_time >= k / fps - 1e-6:
            ends.append(wall)
            k += 1
    return ends


def run_splishsplash_child(cells, frames, workdir, boundary):
    """Runs inside the child process: simulates and prints one RESULT line of JSON."""
    import pysplishsplash as sph

    workdir = Path(workdir)
    scene_file = workdir / "honey_drop.json"
    scene_file.write_text(json.dumps(splishsplash_scene(cells, workdir, boundary), indent=1))
    base = sph.Exec.SimulatorBase()
    # The boundary sampling cache (next to the scene) is shared by both sizes: it is set-up.
    base.init(
        useGui=False,
        sceneFile=str(scene_file),
        outputDir=str(workdir / "out"),
        initialPause=False,
        useCache=True,
        stopAt=frames / FPS,
    )
    base.setValueFloat(base.STOP_AT, frames / FPS)
    base.initSimulation()
    for exporter in list(base.getParticleExporters()) + list(base.getRigidBodyExporters()):
        base.activateExporter(exporter.name, False)

    timing = sph.Utilities.Timing
    marks, after_first = [], {}

    def totals():
        return {t.name: t.totalTime for t in timing.m_averageTimes.values()}

    def after_step():
        now = time.perf_counter()
        marks.append((sph.TimeManager.getCurrent().getTime(), now))
        if not after_first and marks[-1][0] >= 1.0 / FPS - 1e-6:
            after_first.update(totals())

    base.setTimeStepCB(after_step)
    base.runSimulation()
    ends = frame_walls(marks, frames)
    end = totals()
    # Milliseconds in the timed sections after the first frame.
    spent = {k: end[k] - after_first.get(k, 0.0) for k in end}
    fluid = sph.Simulation.getCurrent().getFluidModel(0)
    result = {
        "particles": fluid.numActiveParticles(),
        "frame_s": [b - a for a, b in itertools.pairwise(ends)],
        "steps_after_first": sum(1 for t, _ in marks if 1.0 / FPS < t <= frames / FPS + 1e-6),
        "viscosity_s": spent.get("computeNonPressureForces", 0.0) / 1000.0,
        "cg_s": spent.get("CG solve", 0.0) / 1000.0,
        "sections_s": {k: round(v / 1000.0, 2) for k, v in spent.items() if v > 0.0},
        "counts": {k: round(c.sum, 4) for k, c in sph.Utilities.Counting.m_averageCounts.items()},
    }
    print("RESULT " + json.dumps(result), flush=True)
    base.cleanup()


def child_env(threads):
    """The environment of a SPlisHSPlasH child: its OpenMP threads, and the system's GL
    dispatch library preloaded where it exists (the wheel's own clashes with it)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    if Path(SYSTEM_GLDISPATCH).exists():
        env["LD_PRELOAD"] = SYSTEM_GLDISPATCH
    return env


def run_splishsplash(python, cells, frames, threads, workdir, boundary):
    env = child_env(threads)
    args = [
        python,
        __file__,
        "--splish-child",
        *map(str, cells),
        str(frames),
        str(workdir),
        boundary,
    ]
    out = subprocess.run(args, env=env, check=False, capture_output=True, text=True)
    for line in out.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT ") :])
    sys.exit(
        f"SPlisHSPlasH run failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    )


def run_gloop(binary, cells, frames, threads):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))
    args = [str(binary), *map(str, cells), str(frames)]
    out = subprocess.run(args, env=env, check=False, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"honey_drop_bench failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    frame_s, viscosity_s, worst, capped, particles = [], [], [], [], None
    for line in out.stdout.splitlines():
        if line.startswith("Implicit:"):
            particles = int(line.split()[1])
        if line.startswith("frame"):
            fields = line.split(":", 1)[1].split(",")
            frame_s.append(float(fields[0].split()[0]))
            viscosity_s.append(float(fields[1].split()[2]))
            worst.append(float(fields[4].split()[1]))
            capped.append(int(fields[5].split()[1]))
    if len(frame_s) != frames:
        sys.exit(
            f"honey_drop_bench printed {len(frame_s)} frames, expected {frames}:\n{out.stdout}"
        )
    return {
        "particles": particles,
        "frame_s": frame_s[1:],
        "viscosity_s": sum(viscosity_s[1:]),
        "worst_compression": max(worst[1:]),
        "capped_substeps": sum(capped[1:]),
        "log": out.stdout,
    }


def children_cpu():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def describe(args):
    """Which SPlisHSPlasH and Gloop, and how they run."""
    version = subprocess.run(
        [args.python, "-c", "import importlib.metadata as m; print(m.version('pysplishsplash'))"],
        check=False,
        capture_output=True,
        text=True,
    ).stdout.strip()
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=REPO,
        check=False,
        capture_output=True,
        text=True,
    )
    return (
        f"pysplishsplash {version} ({args.boundary} boundary); gloop {commit.stdout.strip()} "
        f"(target-cpu {args.gloop_cpu or 'x86-64, as shipped'}); {args.threads} threads"
    )


def load():
    return subprocess.run(["uptime"], check=False, capture_output=True, text=True).stdout.strip()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--frames", type=int, default=6, help="frames per run, the first is left out"
    )
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--sizes", default="30k,100k", help=f"comma-separated, of {list(SIZES)}")
    parser.add_argument("--python", default=sys.executable, help="interpreter with pysplishsplash")
    parser.add_argument(
        "--boundary", choices=list(BOUNDARY_METHODS), default="particles", help="SPlisHSPlasH's"
    )
    parser.add_argument(
        "--gloop-cpu",
        help="build Gloop with -C target-cpu=CPU (x86-64-v3, native); default: as it ships",
    )
    parser.add_argument(
        "--pour", action="store_true", help="compare the honey pour (issue 32) instead"
    )
    parser.add_argument("--pour-seconds", type=float, default=1.5, help="seconds of pour")
    parser.add_argument("--pour-fps", type=float, default=60.0)
    parser.add_argument("--pour-radius", type=float, default=0.0005, help="particle radius (m)")
    parser.add_argument(
        "--pour-watch", type=float, default=1.0, help="seconds at the end the coil is judged over"
    )
    parser.add_argument("--splish-child", nargs=6, help=argparse.SUPPRESS)
    parser.add_argument("--pour-child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.splish_child:
        *cells, frames, workdir, boundary = args.splish_child
        run_splishsplash_child(tuple(map(int, cells)), int(frames), workdir, boundary)
        return
    if args.pour_child or args.pour:
        # Imported here: the pour's module imports this one for what the two share.
        import splishsplash_pour

        if args.pour_child:
            radius, fps, seconds, workdir = args.pour_child
            splishsplash_pour.run_splishsplash_child(
                float(radius), float(fps), float(seconds), workdir
            )
        elif args.boundary != "particles":
            parser.error("the pour compares with particle boundaries only")
        else:
            splishsplash_pour.run(args)
        return
    if args.frames < 3:
        parser.error("--frames must be at least 3 (the first frame is left out)")

    binary = build_example("honey_drop_bench", args.gloop_cpu)
    print(f"{describe(args)}; {args.frames} frames per run, median of frames 2..{args.frames}")
    print(f"load before: {load()}", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="gloop-splish-") as tmp:
        for name in args.sizes.split(","):
            cells = SIZES[name]
            started = time.perf_counter()
            splish = run_splishsplash(
                args.python, cells, args.frames, args.threads, Path(tmp), args.boundary
            )
            print(
                f"  SPlisHSPlasH {name}: {splish['particles']} particles, frames "
                f"{[round(s, 2) for s in splish['frame_s']]} s, "
                f"{splish['steps_after_first'] / (args.frames - 1):.1f} steps/frame "
                f"({time.perf_counter() - started:.0f} s wall)\n"
                f"    timed sections after frame 1 (s): {splish['sections_s']}\n"
                f"    counter sums over all steps: {splish['counts']}",
                flush=True,
            )
            started = time.perf_counter()
            gloop = run_gloop(binary, cells, args.frames, args.threads)
            print(
                f"  Gloop {name}: {gloop['particles']} particles, frames "
                f"{[round(s, 2) for s in gloop['frame_s']]} s ({time.perf_counter() - started:.0f} s wall)",
                flush=True,
            )
            rows.append((name, splish, gloop))
    print(f"load after: {load()}\n")
    header = (
        "N",
        "SPH particles",
        "SPH s/frame",
        "SPH visc share",
        "Gloop particles",
        "Gloop s/frame",
        "Gloop visc share",
        "Gloop/SPH",
        "Gloop worst ρ error (capped substeps)",
    )
    print(" | ".join(header))
    for name, splish, gloop in rows:
        s_med, g_med = statistics.median(splish["frame_s"]), statistics.median(gloop["frame_s"])
        s_share = splish["viscosity_s"] / sum(splish["frame_s"])
        cg_share = splish["cg_s"] / sum(splish["frame_s"])
        g_share = gloop["viscosity_s"] / sum(gloop["frame_s"])
        print(
            f"{name} | {splish['particles']} | {s_med:.2f} | {100 * s_share:.0f}% (CG {100 * cg_share:.0f}%) | "
            f"{gloop['particles']} | {g_med:.2f} | {100 * g_share:.0f}% | {g_med / s_med:.2f} | "
            f"{100 * gloop['worst_compression']:.1f}% ({gloop['capped_substeps']})"
        )


if __name__ == "__main__":
    main()
