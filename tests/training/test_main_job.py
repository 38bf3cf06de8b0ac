"""The main job's table in docs/training.md is what the seeded main job prints: this runs
``training/train.py --config configs/train/quick.yaml`` as ``scripts/main.sh`` does (a fresh
process, seed 0; its folders in a temporary directory) and compares the table's rows. Minutes
of CPU: slow suite."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^│\s*(random|heuristic)\s*│.*│\s*$")


def table_rows(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.split("\n") if ROW.match(line.strip())]


@pytest.mark.slow
def test_the_docs_main_job_table_is_what_the_seeded_main_job_prints(tmp_path):
    documented = table_rows((ROOT / "docs" / "training.md").read_text(encoding="utf-8"))
    assert len(documented) == 2, "docs/training.md lost the main job's table"
    done = subprocess.run([sys.executable, "training/train.py", "--config", "configs/train/quick.yaml",
                           "--run", "quick", "--checkpoint-dir", str(tmp_path / "checkpoints"),
                           "--runs-dir", str(tmp_path / "runs")],
                          cwd=ROOT, capture_output=True, text=True, timeout=3600,
                          env={**os.environ, "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr[-3000:]
    assert table_rows(done.stdout) == documented
    assert f"checkpoint:{tmp_path / 'checkpoints' / 'quick'}" in done.stdout  # the closing next steps

