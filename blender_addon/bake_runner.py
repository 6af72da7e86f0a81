"""Runs a bake in a child process and reads its progress.

The solver runs in a separate Python process (Blender's own interpreter with `gloop_core` on
its path), so a crash or out-of-memory in the solver cannot take Blender or unsaved work down.
Progress comes from the `status.json` the bake rewrites atomically; cancelling creates the
`cancel` file, which the bake checks every substep (finished frames are kept).

No bpy here: the modal operator and the blocking `execute()` both drive a `BakeJob`, and the
tests can use it directly.
"""

import json
import os
import subprocess
import sys
import time

from . import cache_lock

CHILD_CODE = """
import json
import sys
import gloop_core
try:
    options = json.loads(sys.argv[4])
    gloop_core.bake(sys.argv[1], sys.argv[2], resume=sys.argv[3] == "1", **options)
except gloop_core.GloopError as e:
    print(f"gloop bake failed: {e}", file=sys.stderr)
    sys.exit(2)
except BaseException as e:  # a Rust panic arrives as PanicException, a BaseException
    print(f"gloop bake failed: the solver crashed: {type(e).__name__}: {e}", file=sys.stderr)
    sys.exit(3)
"""
# How the child starts the one line that says why it failed (`BakeJob.last_words`).
CHILD_FAILURE_PREFIX = "gloop bake failed: "

# Files a bake may create in its cache folder; "Free" deletes only these.
CACHE_FILE_PREFIXES = ("particles_", "surface_")
CACHE_FILE_NAMES = (
    "manifest.json",
    "scene.gloop",
    "scene.json",
    "status.json",
    "cancel",
    "bake.log",
    "remesh.log",
)


def module_search_path():
    """The folder to put on PYTHONPATH so a child interpreter finds gloop_core."""
    import gloop_core

    path = os.path.dirname(os.path.abspath(gloop_core.__file__))
    if os.path.basename(gloop_core.__file__).startswith("__init__"):
        path = os.path.dirname(path)
    return path


class CacheInUse(RuntimeError):
    """Another live process holds the cache folder's lock."""


def existing_bake(cache_dir):
    """What a fresh bake into `cache_dir` would replace, for the confirm dialog and the refusal:
    "a finished bake (frames 1–250)", "an unfinished bake (frames 1–40 of 1–250)", "baked
    frames" (no readable manifest), or "" when the folder holds no baked frame."""
    try:
        names = os.listdir(cache_dir)
    except OSError:
        return ""
    if not any(n.startswith("particles_") and n.endswith(".ply") for n in names):
        return ""
    manifest = read_manifest(cache_dir)
    try:
        first, end = int(manifest["frame_start"]), int(manifest["frame_end"])
        last = manifest.get("last_complete_frame")
    except (ValueError, KeyError, TypeError):  # TypeError: no readable manifest (None)
        return "baked frames"
    if last is None:
        return "baked frames"
    if last >= end:
        return f"a finished bake (frames {first}–{end})"
    return f"an unfinished bake (frames {first}–{last} of {first}–{end})"


def read_manifest(cache_dir):
    """The cache's manifest.json as a dict, or None if absent or unreadable."""
    try:
        with open(os.path.join(cache_dir, "manifest.json"), encoding="utf-8") as f:
            manifest = json.load(f)
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) else None


def _status_stamp(cache_dir):
    """Which status.json is there (inode and modification time), or None."""
    try:
        st = os.stat(os.path.join(cache_dir, "status.json"))
    except OSError:
        return None
    return (st.st_ino, st.st_mtime_ns)


def read_status(cache_dir):
    """The bake's status.json as a dict, or None if absent or unreadable right now."""
    try:
        with open(os.path.join(cache_dir, "status.json"), encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


class BakeJob:
    """One bake child process."""

    # The child's log, in the cache folder.
    log_name = "bake.log"

    def __init__(self, scene_path, cache_dir, resume=False, options=None):
        """`options`: further keyword arguments of `gloop_core.bake` (surface meshing)."""
        self._start_child(
            cache_dir, CHILD_CODE, [scene_path, cache_dir, "1" if resume else "0"], options
        )

    def _start_child(self, cache_dir, code, args, options):
        """Starts `python -c code args… options-as-JSON` with gloop_core on its path, its
        output to the log; `options` (keyword arguments of the gloop_core call) gets
        `started_at`. Subclasses run other gloop_core work this way (`remesh.RemeshJob`).
        Raises CacheInUse, touching nothing, while another live process holds the folder."""
        self.cache_dir = cache_dir
        self.started = time.monotonic()
        # Said before the bake starts (`validate_scene`'s warnings), and again when it ends.
        self.scene_warnings = []
        # Its files (status, cancel, log) are not ours to touch while another bake runs.
        holder = cache_lock.holder_now(cache_dir)
        if holder:
            raise CacheInUse(f"The cache folder is in use by {holder}")
        # A cancel request or status.json left by an earlier bake must not end or describe
        # this one. The child clears them once it holds the lock (a cancel made after
        # `started_at`, while it starts up, is kept); until then the old status is ignored.
        started_at = time.time()
        self._stale_status = _status_stamp(cache_dir)
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (module_search_path(), env.get("PYTHONPATH")) if p
        )
        self.log_path = os.path.join(cache_dir, self.log_name)
        # Open for the child's whole life (closed in poll() once it exits), not a `with` block.
        self._log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115
        # The cancel file's time comes from the file system's clock, which can lag time.time()
        # by a tick (a Cancel pressed just after this would look older than `started_at` and
        # be cleared): `started_at` is no later than the log's time, just set by that clock.
        log_time = os.fstat(self._log.fileno()).st_mtime_ns / 1e9 - 1e-6
        options = {**(options or {}), "started_at": min(started_at, log_time)}
        self.process = subprocess.Popen(
            [sys.executable, "-c", code, *args, json.dumps(options)],
            env=env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
        )
        self.status = None

    def _own_status(self):
        """This bake's status.json, or None while only an earlier bake's is there."""
        if _status_stamp(self.cache_dir) == self._stale_status:
            return None
        return read_status(self.cache_dir)

    def poll(self):
        """Refreshes `self.status`; returns True while the child runs."""
        self.status = self._own_status() or self.status
        running = self.process.poll() is None
        if not running:
            self._log.close()
        return running

    def cancel(self):
        """Asks the bake to stop within a substep; finished frames stay."""
        try:
            with open(os.path.join(self.cache_dir, "cancel"), "w"):
                pass
        except OSError:
            self.process.terminate()

    def wait(self, on_poll=None, interval=0.1):
        while self.poll():
            if on_poll:
                on_poll(self)
            time.sleep(interval)
        self.poll()

    def outcome(self):
        """(state, message) once the child has exited: state is finished, cancelled or failed."""
        status = self._own_status() or {}
        state = status.get("state")
        code = self.process.returncode
        if state in {"finished", "cancelled"} and code == 0:
            return state, ""
        if state == "failed" and status.get("error"):
            return "failed", status["error"]
        said = self.last_words()
        if said:
            return "failed", said
        # The child died without saying why (killed, out of memory): say how it ended.
        return "failed", f"bake process exited with code {code}; see {self.log_path}"

    def last_words(self):
        """The child's own one-line account of a failure, if it gave one, without the
        prefix that marks it: the caller says "failed" once, in its own words."""
        try:
            with open(self.log_path, encoding="utf-8", errors="replace") as f:
                lines = [line.strip() for line in f if line.startswith(CHILD_FAILURE_PREFIX)]
        except OSError:
            return ""
        return lines[-1].removeprefix(CHILD_FAILURE_PREFIX) if lines else ""


def progress_text(status):
    """A one-line summary of a status.json dict for the panel."""
    if not status:
        return "Starting…"
    done = status.get("frames_done", 0)
    total = status.get("frames_total", 0) or 1
    parts = [f"Frame {status.get('frame', '?')} ({done}/{total})"]
    if status.get("liquid_particles") is not None:
        parts.append(f"{status['liquid_particles']:,} particles")
    if status.get("substeps"):
        # Which bound set them (speed, stretch, adhesion, or the scene's floor).
        set_by = status.get("substeps_set_by")
        parts.append(f"{status['substeps']} substeps" + (f" ({set_by})" if set_by else ""))
    capped = status.get("substeps_capped_frames", 0)
    if capped:
        parts.append(f"{capped} frame{'s' if capped != 1 else ''} at Max Substeps")
    eta = status.get("eta_s")
    if eta is not None and status.get("state") == "running":
        parts.append(f"ETA {int(eta) // 60}:{int(eta) % 60:02d}")
    return ", ".join(parts)


def stats_text(status):
    """The stats line of the latest frame whose figures are all in (as FLIP Fluids shows):
    "Frame 12: 1.23 s, 9,220 particles, 8 substeps, 99,464 triangles". Empty before one."""
    line = (status or {}).get("last_frame_stats")
    if not isinstance(line, dict) or "frame" not in line:
        return ""
    text = f"Frame {line['frame']}: {line.get('seconds', 0.0):.2f} s"
    text += f", {line.get('liquid_particles', 0):,} particles"
    if line.get("substeps") is not None:
        text += f", {line['substeps']} substeps"
    if line.get("triangles") is not None:
        text += f", {line['triangles']:,} triangles"
    return text


def squeeze_warning(status):
    """What to tell the artist when the bake's density correction stopped short: in some frames
    the liquid was left squeezed beyond the tolerance (status.json's `capped_frames` and
    `worst_compression`). Empty when it never did."""
    frames = (status or {}).get("capped_frames", 0)
    if not frames:
        return ""
    worst = 100.0 * status.get("worst_compression", 0.0)
    plural = "s" if frames != 1 else ""
    return (
        f"{frames} frame{plural} left the liquid up to {worst:.0f}% squeezed: raise Density Passes"
    )


def progress_fraction(status):
    if not status:
        return 0.0
    total = status.get("frames_total") or 0
    return min(1.0, status.get("frames_done", 0) / total) if total else 0.0


def free_cache(cache_dir):
    """Deletes the files a bake writes (never anything else); removes the folder if empty."""
    if not os.path.isdir(cache_dir):
        return 0
    removed = 0
    for name in os.listdir(cache_dir):
        base = name.removesuffix(".tmp")
        ours = base in CACHE_FILE_NAMES or (
            base.startswith(CACHE_FILE_PREFIXES) and base.endswith(".ply")
        )
        if ours:
            os.remove(os.path.join(cache_dir, name))
            removed += 1
    if not os.listdir(cache_dir):
        os.rmdir(cache_dir)
    return removed
