"""Integer input read without a cast: the one primitive behind the engines' and the envs' checks.

``integer_array(value, what)`` is ``np.asarray(value)`` when that is an integer array (a numpy
integer dtype, or a list or tuple of Python / numpy integers), else a ``ValueError`` naming
``what``, the value and its dtype: a float (``52.7``), a string (``"18"``), a bool, an object
or a ragged list is never cast, so it is never misread (``np.asarray([52.7]).astype(int)``
reads 52). Shapes and ranges are the caller's (:mod:`uno_env.envs.checks` for the envs,
the public methods of :class:`uno_env.game.batched.BatchedEngine`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.game.rules import show_value

_BOOLS = {bool, np.bool_}


def integer_array(value: Any, what: str) -> np.ndarray:
    """``value`` as an integer array of any shape; ``ValueError`` naming ``what`` otherwise
    (numpy turns ``[True, 3]`` into integers: a bool in a list or tuple is refused here)."""
    if isinstance(value, (list, tuple)) and not _BOOLS.isdisjoint(map(type, value)):
        raise ValueError(f"{what} must be integers, got a bool in {show_value(value)}")
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError, OverflowError) as e:  # ragged lists, hostile __array__
        raise ValueError(f"{what} must be integers, got {show_value(value)} ({type(value).__name__}: "
                         f"{show_value(str(e))})") from None
    if arr.dtype.kind not in "iu":
        raise ValueError(f"{what} must be integers, got {show_value(value)} "
                         f"({type(value).__name__}, dtype {arr.dtype})")
    return arr
