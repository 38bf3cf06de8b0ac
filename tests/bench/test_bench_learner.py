"""bench/bench_learner.py runs its cases and prints one table row each (a smoke run: one
rollout of the fast preset; the figures of docs/speed.md come from its full run)."""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import bench_learner  # noqa: E402


def test_the_bench_prints_a_row_per_case_with_its_time_split(capsys):
    bench_learner.main(["--league", "random", "--cases", "fast", "--rounds", "1", "--rollouts", "1"])
    out = capsys.readouterr().out
    row = [line for line in out.splitlines() if line.startswith("| fast |")]
    assert len(row) == 1
    rate = float(row[0].split("|")[2].split("(")[0].replace(",", ""))
    assert rate > 0
    split = row[0].split("|")[4].strip().split(" / ")
    assert len(split) == 3 and all(p.endswith("%") for p in split)  # env / forward / update


def test_a_baseline_lean_ppo_runs_beside_each_batched_case(capsys):
    baseline = os.path.join(ROOT, "uno_env", "learn", "lean_ppo.py")  # any version of the file
    bench_learner.main(["--league", "random", "--cases", "fast", "--rounds", "1", "--rollouts", "1",
                        "--baseline", baseline])
    rows = [line.split("|")[1].strip() for line in capsys.readouterr().out.splitlines()
            if line.startswith("| fast")]
    assert rows == ["fast-baseline", "fast"]
