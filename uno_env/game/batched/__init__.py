"""The batched engine: thousands of UNO games (every rule option) as arrays, one call a step.

See :mod:`uno_env.game.batched.engine`. Needs numba (``pip install "uno_env[batched]"``).
"""

from uno_env.game.batched.engine import BatchedEngine, rng_words, state_dict

__all__ = ["BatchedEngine", "rng_words", "state_dict"]
