#!/usr/bin/env bash
# Every test of the project, from a fresh machine with Rust and Python 3.11:
#   1. the Rust crate: unit, integration and CLI tests (release profile: they run real bakes);
#   2. the Blender extension on real Blender: `bpy` 4.5 (then 5.0) from PyPI in private venvs, the
#      `gloop_core` wheel built by maturin, pytest under a timeout (bpy 4.5 can hang at exit).
# Set GLOOP_VENV to reuse a venv elsewhere; GLOOP_SKIP_BLENDER=1 runs only the Rust tests.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== Rust tests"
cargo test --release --locked

if [ "${GLOOP_SKIP_BLENDER:-0}" = "1" ]; then
    exit 0
fi

echo "== Blender extension tests (bpy 4.5)"
venv="${GLOOP_VENV:-$PWD/.venv}"
if [ ! -x "$venv/bin/python" ]; then
    python3.11 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet "bpy==4.5.*" "maturin>=1.9.4,<2" ziglang pytest numpy ruff
"$venv/bin/ruff" check blender_addon tests/blender tools
"$venv/bin/ruff" format --check blender_addon tests/blender tools
# The gloop_core wheel (manylinux_2_28, as Blender's glibc) into blender_addon/wheels/, and the
# installable zips into dist/: Linux x64, and cross-built with zig Windows x64, macOS arm64 and
# x64 (test_platform_zips.py reads them). The three cross builds took 3-4 CPU-minutes each
# from cold here, so about 5-10 min of the run on 2 cores.
rustup target add x86_64-pc-windows-gnu aarch64-apple-darwin x86_64-apple-darwin
"$venv/bin/python" blender_addon/build.py --zig --all-platforms
timeout 1200 "$venv/bin/python" -m pytest tests/blender -q -p no:cacheprovider

echo "== Blender extension tests (bpy 5.0)"
venv50="${GLOOP_VENV_50:-$PWD/.venv50}"
if [ ! -x "$venv50/bin/python" ]; then
    python3.11 -m venv "$venv50"
fi
"$venv50/bin/python" -m pip install --quiet "bpy==5.0.*" pytest numpy
timeout 1200 "$venv50/bin/python" -m pytest tests/blender -q -p no:cacheprovider
