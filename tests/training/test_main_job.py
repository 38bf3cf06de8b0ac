"""The main job's table in docs/training.md is what the seeded main job prints: this runs
``training/train.py --config configs/train/quick.yaml`` as ``scripts/main.sh`` does (a fresh
process, seed 0; its folders in a temporary directory) and compares the table with the
documented one. The run is the same run after run on one set of libraries and CPU, but its
figures move with torch's kernels (bf16 on this CPU or another) and library versions, so the
win rates must lie within :data:`TOLERANCE` of the documented ones (10,000 games: a 95%
interval of about +-1 point), and what learning added (the final agent against its random
start on the same deals) must lie above zero, as documented. Minutes of CPU: slow suite."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^│\s*(random|heuristic)\s*│\s*(\d+)\s*│\s*(\d+)\s*│\s*([\d.]+)%\s*│.*│\s*$")
ADDED = re.compile(r"^learning added vs (\w+): ([+-][\d.]+) points \(.*95% CI ([+-][\d.]+) to ([+-][\d.]+), "
                   r"paired on the same (\d+) deals\)$", re.M)
TOLERANCE = 4.0  # points of win rate: other CPUs' bf16 kernels and other library versions train another agent


def table_rows(text: str) -> dict[str, tuple[int, float]]:
    """``{opponent: (games, win rate in %)}`` of the results table in ``text``."""
    rows = {}
    for line in text.split("\n"):
        m = ROW.match(line.strip())
        if m:
            rows[m.group(1)] = (int(m.group(2)), float(m.group(4)))
    return rows


@pytest.mark.slow
def test_the_docs_main_job_table_is_what_the_seeded_main_job_prints(tmp_path):
    docs = (ROOT / "docs" / "training.md").read_text(encoding="utf-8")
    documented = table_rows(docs)
    assert set(documented) == {"random", "heuristic"}, "docs/training.md lost the main job's table"
    doc_added = ADDED.search(docs)
    assert doc_added and float(doc_added.group(3)) > 0, "docs/training.md lost what learning added"
    done = subprocess.run([sys.executable, "training/train.py", "--config", "configs/train/quick.yaml",
                           "--run", "quick", "--checkpoint-dir", str(tmp_path / "checkpoints"),
                           "--runs-dir", str(tmp_path / "runs")],
                          cwd=ROOT, capture_output=True, text=True, timeout=3600,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr[-3000:]
    printed = table_rows(done.stdout)
    assert set(printed) == set(documented)
    for opponent, (games, rate) in documented.items():
        assert printed[opponent][0] == games
        assert abs(printed[opponent][1] - rate) <= TOLERANCE, (opponent, printed[opponent], rate)
    added = ADDED.search(done.stdout)
    assert added and added.group(1) == doc_added.group(1) and float(added.group(3)) > 0  # above zero
    assert f"checkpoint:{tmp_path / 'checkpoints' / 'quick'}" in done.stdout  # the closing next steps
