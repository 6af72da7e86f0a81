"""Who else is using a cache folder: the "in use by …" line of the Bake panel.

Another Blender, or a `gloop` command in a terminal, may be baking or meshing into the same
folder; the core's cache lock (`gloop.lock`) names that process. The panel reads this on every
redraw, so the answer is kept for a second per folder: one small file read a second at most.
No bpy here.
"""

import time

# How long an answer is reused. A redraw is a few ms; a lock changes hands over seconds.
TTL_S = 1.0

_answers = {}  # folder -> (monotonic time asked, description or "")


def in_use_by(cache_dir, now=None):
    """The process holding the cache lock of `cache_dir`, described ("gloop bake (pid 1234 on
    host studio-3, for 42 s)"), or "" when the folder is free. A lock whose holder is known to be
    gone is free: the next bake takes it over. Asks the core at most once per `TTL_S`."""
    if not cache_dir:
        return ""
    now = time.monotonic() if now is None else now
    asked = _answers.get(cache_dir)
    if asked is not None and now - asked[0] < TTL_S:
        return asked[1]
    answer = holder_now(cache_dir)
    _answers[cache_dir] = (now, answer)
    return answer


def forget():
    """Drops every kept answer (after this Blender takes or frees a lock itself)."""
    _answers.clear()


def holder_now(cache_dir):
    """`in_use_by` without the kept answer: for the moment an operator is about to write."""
    try:
        import gloop_core

        holder = gloop_core.cache_lock_holder(cache_dir)
    except ImportError:
        return ""
    except (gloop_core.GloopError, OSError) as e:
        # A lock file that cannot be read: some process is writing it right now.
        return f"another process ({e})"
    if not holder or holder["stale"]:
        return ""
    return holder["description"]
