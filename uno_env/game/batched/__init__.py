"""The batched engine: thousands of UNO games (official rules) as arrays, one call a step.

See :mod:`uno_env.game.batched.engine`. Needs numba (``pip install "uno_env[batched]"``).
"""

from uno_env.game.batched.engine import (REFUSED_OPTIONS, BatchedEngine, check_supported, rng_words,
                                         state_dict)

__all__ = ["BatchedEngine", "REFUSED_OPTIONS", "check_supported", "rng_words", "state_dict"]
