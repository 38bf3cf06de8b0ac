#!/usr/bin/env bash
# The Ray RLlib tests (pytest -m rllib): the integration, a tiny PPO training on a simulated
# two-node Ray cluster, export and evaluation, the examples/rllib_ppo.py recipe.
# ray[rllib] 2.60 pins gymnasium 1.2.2, so they run in a virtual environment of their own,
# .venvs/rllib (created and installed here: pip install -e ".[rllib]" with torch==2.13.0).
# Ray is kept small: 1 CPU per node, 100 MB of object store per node. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venvs/rllib/bin/python ]; then
  python3 -m venv .venvs/rllib
fi
.venvs/rllib/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
.venvs/rllib/bin/python -m pip install -q --disable-pip-version-check -e ".[rllib]" "pytest>=8"
export RAY_DEDUP_LOGS=1 RAY_USAGE_STATS_ENABLED=0
exec .venvs/rllib/bin/python -m pytest -m rllib -q -p no:cacheprovider tests/integrations "$@"
