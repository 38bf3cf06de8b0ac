#!/usr/bin/env bash
# Set up .venv, then run the default test suite (slow tests excluded; add `-m slow` to run them).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -m "not slow and not examples and not rllib" -q "$@"
