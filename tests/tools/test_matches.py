"""Games in worker processes (``uno_env.tools.matches``): how many processes a run starts."""

from __future__ import annotations

from uno_env import _processes as processes
from uno_env.tools import matches as matches_module
from uno_env.tools.matches import worker_plan


def test_workers_are_capped_at_the_tasks_and_the_cpus(monkeypatch):
    monkeypatch.setattr(matches_module, "usable_cpus", lambda: 2)
    monkeypatch.setattr(processes, "usable_cpus", lambda: 2)
    assert worker_plan(40, 2, 2) == (1, 2, 1)  # 2 games: one task, no process to start
    assert worker_plan(40, 2000, 2) == (2, 125, 16)  # the CPUs
    assert worker_plan(1, 2000, 2) == (1, 250, 8)
    assert worker_plan(3, 2000, 4, matches=3)[0] == 2
