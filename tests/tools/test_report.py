"""The evaluation tool's reports (``uno_env.tools.report``): how a rate is printed, and tables
that keep every agent's name whole when printed to a pipe or a file."""
from __future__ import annotations

import io
import os
import subprocess
import sys
from fractions import Fraction

from uno_env.tools.report import percent, print_tables

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_a_rate_and_its_complement_sum_to_a_hundred_percent():
    assert (percent(953 / 2000), percent(1047 / 2000)) == ("47.6%", "52.4%")  # float formatting: 47.6% and 52.3%
    for games in (2000, 1000, 400, 10000):
        for wins in range(games + 1):
            a, b = percent(wins / games), percent((games - wins) / games)
            assert Fraction(a[:-1]) + Fraction(b[:-1]) == 100, (wins, games, a, b)


def test_a_rate_is_rounded_half_to_even_from_its_decimal_digits():
    assert [percent(x) for x in (0.4765, 0.4775, 0.7055, 0.0005, 0.5, 1.0, 0.0)] == \
        ["47.6%", "47.8%", "70.6%", "0.0%", "50.0%", "100.0%", "0.0%"]
    assert percent(1 / 3) == "33.3%" and percent(2 / 3) == "66.7%"


def test_a_table_printed_to_a_pipe_keeps_long_agent_names_whole():
    name = "checkpoint:/a/rather/long/path/to/the/users/own/training/run/checkpoints/quick-explicit-uno"
    out = io.StringIO()  # not a terminal
    print_tables([("title", ["agent", "wins", "win rate", "95% CI (Wilson)", "mean points", "mean rank"],
                   [[name, "953", "47.6%", "45.5% - 49.8%", "40.1", "1.52"]])], file=out)
    assert name in out.getvalue()


def test_uno_evaluate_piped_prints_whole_names():
    long_name = "heuristic:hold_wild=3,bluff=0,attack=2,challenge=1,danger=1"
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("COLUMNS", None)
    done = subprocess.run([sys.executable, "-m", "uno_env.tools.evaluate_cli", "--agents", long_name, "random",
                           "--games", "4", "--workers", "1"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert long_name in done.stdout
