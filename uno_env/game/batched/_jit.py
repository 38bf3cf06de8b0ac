"""The one place that imports numba: ``njit`` for the kernels of the batched engine.

numba is the optional extra ``batched`` (``pip install "uno_env[batched]"``; the ``dev``
extra includes it). Without it, importing :mod:`uno_env.game.batched` raises an
``ImportError`` that says so. ``NUMBA_DISABLE_JIT=1`` (numba's own switch) runs the same
kernels as plain Python, for debugging.

**The first use compiles.** numba compiles the kernels on their first call and caches them
on disk next to the modules (``cache=True``): on a fresh install the first ``reset`` takes
about 2 minutes on a 2-core machine and the first ``step`` some 15 s more, later processes load
them in seconds. The engine's public methods are wrapped in :func:`announces_compiling`: a
first call still running after :data:`COMPILE_NOTICE_AFTER_S` seconds logs, once per process,
what is happening and how long it takes (logger ``uno_env.game.batched``, level WARNING, so
that it shows without any logging set up). ``python -m uno_env.game.batched --compile``
compiles everything ahead (``scripts/setup.sh`` runs it).
"""

from __future__ import annotations

import functools
import logging
import threading

import numpy as np

try:
    import numba
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("the batched engine needs numba: pip install 'uno_env[batched]' "
                      "(or pip install numba)") from e


def _probe_no_nrt() -> dict:
    """numba's ``_nrt=False`` (no reference counting of arrays in compiled code), if this numba
    version has it. Otherwise every call between kernels increfs and decrefs each array
    argument with atomic operations, which costs the batched engine about 3x its speed; the
    kernels allocate nothing, so they need no runtime. Without the flag they run the same,
    slower."""
    try:
        @numba.njit(_nrt=False)
        def probe(a):
            return a[0]

        probe(np.zeros(1))
        return {"_nrt": False}
    except Exception:  # noqa: BLE001 - any failure: compile with the runtime
        return {}


_OPTIONS = {"cache": True, "nogil": True, **_probe_no_nrt()}


def njit(fn):
    """Compile ``fn`` in nopython mode (no array refcounting), cached on disk next to the module."""
    return numba.njit(**_OPTIONS)(fn)


def njit_inline(fn):
    """``njit`` with ``fn`` inlined into its callers by numba (``inline="always"``): for the small
    functions of the hot paths that take the whole batch state, whose arrays would otherwise be
    passed as a long list of pointers and sizes on every call."""
    return numba.njit(inline="always", **_OPTIONS)(fn)


COMPILE_NOTICE_AFTER_S = 3.0  # a first call that takes longer is compiling: say so
COMPILE_NOTICE = ("compiling the batched engine's kernels with numba: the first use after an install "
                  "takes about 2 minutes on a 2-core machine, then they are cached on disk "
                  "(python -m uno_env.game.batched --compile does it ahead; scripts/setup.sh runs it)")
log = logging.getLogger("uno_env.game.batched")
_called: set[str] = set()  # the wrapped methods called once in this process
_noticed = threading.Event()


def _notice() -> None:
    if not _noticed.is_set():
        _noticed.set()
        log.warning(COMPILE_NOTICE)


def announces_compiling(method):
    """Wrap a method that calls kernels: its first call in the process logs
    :data:`COMPILE_NOTICE` (once per process) if it is still running after
    :data:`COMPILE_NOTICE_AFTER_S` seconds; later calls go straight through."""
    name = method.__qualname__

    @functools.wraps(method)
    def wrapper(*args, **kwargs):
        if name in _called or _noticed.is_set():
            return method(*args, **kwargs)
        _called.add(name)
        timer = threading.Timer(COMPILE_NOTICE_AFTER_S, _notice)
        timer.daemon = True
        timer.start()
        try:
            return method(*args, **kwargs)
        finally:
            timer.cancel()

    return wrapper
