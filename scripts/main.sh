#!/usr/bin/env bash
# The main job: set up .venv, train the lean PPO on the batched engine for about 3 minutes on
# the default config (configs/train/quick.yaml: classic rules, 2 players, 2 CPU cores), then
# evaluate the trained agent against the scripted bots (random, heuristic) and against its own
# random start on the same deals, and print the results.
# The run lands in checkpoints/quick/ (card.json + safetensors policy weights,
# learner.safetensors for --resume, eval.csv, learning curve) and runs/quick/ (TensorBoard,
# self-play snapshots, the start).
# Extra arguments go to training/train.py (e.g. --total-steps 100000).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python training/train.py --config configs/train/quick.yaml --run quick --force "$@"
