#!/usr/bin/env bash
# Create .venv (if missing), install uno_env with the training and test extras and compile the
# batched engine's kernels (cached: seconds after the first time).
# torch is pinned (torch==2.13.0, a CPU build) in pyproject.toml's `train` extra.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[train,dev]"
# numba compiles the batched engine's kernels on first use (about 2 minutes on 2 cores) and caches
# them next to the package: do it here, once, rather than in the first batched call of a program.
.venv/bin/python -m uno_env.game.batched --compile
