"""The batched engine's first use compiles its kernels (about 2 minutes on 2 cores): the first
call says so once when it runs long, and ``python -m uno_env.game.batched --compile`` (run by
scripts/setup.sh) compiles everything ahead."""
from __future__ import annotations

import inspect
import logging
import os
import re
import subprocess
import sys
import time

import pytest

pytest.importorskip("numba")

from uno_env.game.batched import _jit  # noqa: E402
from uno_env.game.batched.engine import BatchedEngine  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def fresh_process(monkeypatch):
    """The notice's state as in a process that has called nothing yet."""
    monkeypatch.setattr(_jit, "_called", set())
    monkeypatch.setattr(_jit, "_noticed", _jit.threading.Event())
    monkeypatch.setattr(_jit, "COMPILE_NOTICE_AFTER_S", 0.05)


def test_a_first_call_that_runs_long_says_it_is_compiling_and_how_long_it_takes_once(fresh_process, caplog):
    @_jit.announces_compiling
    def slow_first():
        time.sleep(0.5)
        return 7

    @_jit.announces_compiling
    def slow_too():
        time.sleep(0.5)

    with caplog.at_level(logging.WARNING, logger="uno_env.game.batched"):
        assert slow_first() == 7
        slow_too()
    notices = [r.getMessage() for r in caplog.records]
    assert notices == [_jit.COMPILE_NOTICE]
    assert "about 2 minutes" in notices[0] and "--compile" in notices[0]


def test_a_quick_first_call_says_nothing(fresh_process, monkeypatch, caplog):
    monkeypatch.setattr(_jit, "COMPILE_NOTICE_AFTER_S", 5.0)

    @_jit.announces_compiling
    def quick():
        return 1

    with caplog.at_level(logging.WARNING, logger="uno_env.game.batched"):
        assert quick() == 1
        time.sleep(0.1)
    assert caplog.records == []


def test_every_public_method_that_runs_a_kernel_announces_its_compilation():
    runs_kernel = [name for name, fn in vars(BatchedEngine).items()
                   if inspect.isfunction(fn) and not name.startswith("_")
                   and re.search(r"\bK\.[a-z_]+\(", inspect.getsource(fn))]  # a call of a kernel
    assert {"reset", "step", "legal_masks", "observe"} <= set(runs_kernel)
    assert [name for name in runs_kernel if not hasattr(vars(BatchedEngine)[name], "__wrapped__")] == []


def test_compile_ahead_runs_every_kernel_and_setup_runs_it():
    done = subprocess.run([sys.executable, "-m", "uno_env.game.batched", "--compile"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900, env=dict(os.environ, PYTHONPATH=ROOT))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "kernels ready in" in done.stdout
    from uno_env.game.batched.__main__ import compile_kernels
    source = inspect.getsource(compile_kernels)  # it calls every public method that runs a kernel
    wrapped = [name for name, fn in vars(BatchedEngine).items() if inspect.isfunction(fn) and hasattr(fn, "__wrapped__")]
    assert [name for name in wrapped if f"eng.{name}(" not in source] == []
    with open(os.path.join(ROOT, "scripts", "setup.sh"), encoding="utf-8") as fh:
        assert "python -m uno_env.game.batched --compile" in fh.read()
