"""Worker processes: the one choice of start method for every process pool of the package.

    with mp_context().Pool(workers) as pool: ...

``fork`` where the platform has it (fast, no ``__main__`` guard needed), unless torch is
already loaded in this process (forking its thread pools is unsafe): then ``spawn``. Used by
the evaluation tool (:mod:`uno_env.tools.evaluate`) and the demonstration collector
(:mod:`uno_env.agents.imitation`).
"""

from __future__ import annotations

import multiprocessing as mp
import sys
from typing import Any


def mp_context(name: str | None = None) -> Any:
    """The ``multiprocessing`` context ``name``, or the default above when None."""
    if name is None:
        name = "fork" if "fork" in mp.get_all_start_methods() and "torch" not in sys.modules else "spawn"
    return mp.get_context(name)
