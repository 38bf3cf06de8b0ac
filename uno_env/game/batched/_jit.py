"""The one place that imports numba: ``njit`` for the kernels of the batched engine.

numba is the optional extra ``batched`` (``pip install "uno_env[batched]"``; the ``dev``
extra includes it). Without it, importing :mod:`uno_env.game.batched` raises an
``ImportError`` that says so. ``NUMBA_DISABLE_JIT=1`` (numba's own switch) runs the same
kernels as plain Python, for debugging.
"""

from __future__ import annotations

try:
    import numba
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError("the batched engine needs numba: pip install 'uno_env[batched]' "
                      "(or pip install numba)") from e


def njit(fn):
    """Compile ``fn`` in nopython mode, cached on disk next to the module (fast second start)."""
    return numba.njit(cache=True, nogil=True)(fn)
