"""Worker processes: the one choice of start method for every process pool of the package,
and of how many processes a pool may have.

    with mp_context().Pool(pool_size(workers, len(tasks)), initializer=ignore_interrupts) as pool: ...

``fork`` where the platform has it (fast, no ``__main__`` guard needed), unless torch is
already loaded in this process (forking its thread pools is unsafe): then ``spawn``. Used by
the evaluation tool (:mod:`uno_env.tools.evaluate`) and the demonstration collector
(:mod:`uno_env.learn.imitation`).

Ctrl-C at a terminal sends SIGINT to every process of the job; it is the parent's to handle
(a training script saves and exits, a tool stops), and leaving the ``with`` block terminates
the pool. So its workers ignore SIGINT (:func:`ignore_interrupts`, their initializer) instead
of each printing a ``KeyboardInterrupt`` traceback. (A spawned worker still importing the
parent's main module when the signal comes has no initializer yet.)
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
from typing import Any


def mp_context(name: str | None = None) -> Any:
    """The ``multiprocessing`` context ``name``, or the default above when None."""
    if name is None:
        name = "fork" if "fork" in mp.get_all_start_methods() and "torch" not in sys.modules else "spawn"
    return mp.get_context(name)


def usable_cpus() -> int:
    """The CPUs this process may run on (``os.sched_getaffinity``: what a container, ``taskset``
    or a batch scheduler grants it), else ``os.cpu_count()``; at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def pool_size(workers: int, tasks: int) -> int:
    """The processes a pool of ``workers`` needs for ``tasks`` tasks: never more than the tasks
    (an idle worker costs a process) nor the :func:`usable_cpus` (more only time-share them);
    at least 1. Used where the results do not depend on the number of workers (evaluation)."""
    return max(1, min(int(workers), int(tasks), usable_cpus()))


def ignore_interrupts() -> None:
    """A pool worker's initializer: SIGINT is ignored in it (the parent handles Ctrl-C)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
