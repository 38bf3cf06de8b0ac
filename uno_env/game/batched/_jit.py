"""The one place that imports numba: ``njit`` for the kernels of the batched engine.

numba is the optional extra ``batched`` (``pip install "uno_env[batched]"``; the ``dev``
extra includes it). Without it, importing :mod:`uno_env.game.batched` raises an
``ImportError`` that says so. ``NUMBA_DISABLE_JIT=1`` (numba's own switch) runs the same
kernels as plain Python, for debugging.
"""

from __future__ import annotations

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
