"""bench/learning_speed.py: when each run first reached each target, in minutes of its wall
time, or of its CPU from its steps (``--cpu-rate``) for a run that shared its cores."""
from __future__ import annotations

import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import learning_speed  # noqa: E402

CSV = """steps,wall_time_s,opponent,games,wins,win_rate,ci_low,ci_high
0,150,heuristic,10000,4900,0.49,0.48,0.50
1000000,900,heuristic,10000,5320,0.532,0.522,0.542
2000000,1800,heuristic,10000,5560,0.556,0.546,0.566
2000000,1800,random,10000,7700,0.77,0.76,0.78
"""


def table_row(capsys, label):
    return next(ln for ln in capsys.readouterr().out.splitlines() if ln.startswith(f"| {label} |"))


def test_minutes_are_the_runs_wall_time_or_its_cpu_from_its_steps(tmp_path, capsys):
    path = tmp_path / "eval.csv"
    path.write_text(CSV)
    assert learning_speed.main([f"a={path}", "--targets", "0.55"]) == 0
    assert "| 30 min, 2.0M / - |" in table_row(capsys, "a")  # 1,800 s of wall time
    assert learning_speed.main([f"a={path}", "--targets", "0.55", "--cpu-rate", "a=2000+120"]) == 0
    assert "| 19 min, 2.0M / - |" in table_row(capsys, "a")  # (120 + 2e6 / 2000) / 60 = 18.7


@pytest.mark.parametrize("args,words", [
    (["--cpu-rate", "b=2000"], "--cpu-rate for no run: b"),
    (["--cpu-rate", "a=fast"], "--cpu-rate is LABEL=STEPS_PER_CPU_S"),
    (["--cpu-rate", "a=0+5"], "rate > 0"),
])
def test_a_bad_cpu_rate_is_named(tmp_path, capsys, args, words):
    path = tmp_path / "eval.csv"
    path.write_text(CSV)
    with pytest.raises(SystemExit):
        learning_speed.main([f"a={path}", *args])
    assert words in capsys.readouterr().err
