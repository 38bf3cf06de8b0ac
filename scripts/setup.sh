#!/usr/bin/env bash
# Create .venv (if missing) and install uno_env with the training and test extras.
# torch is pinned (torch==2.13.0, a CPU build) in pyproject.toml's `train` extra.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".[train,dev]"
