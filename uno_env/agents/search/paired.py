"""The paired comparison of the ``search`` bot: every move on the same sampled deal with the
same random numbers, and the test by which a move replaces the default.

    for _ in range(samples):
        out = play_each(engine, deal, moves, seed, rollout)        # one outcome per move
        for i, x in enumerate(out): diffs[i].append(x - out[default])
    choice = paired_choice(diffs, default, margin, z)              # an index into moves

Common random numbers make the difference between two moves' outcomes on one sample far
less noisy than the outcomes: the deal and the generator of every later random event (a
draw after a reshuffle, a bot's coin) are the same, so only the move differs.
:class:`uno_env.agents.search.agent.SearchAgent` deals from what it saw;
``experiments/headroom.py`` uses the true state (its clairvoyant player).
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from uno_env.game.engine import Engine, State


def play_each(engine: Engine, base: State, moves: Sequence[int], seed: int,
              rollout: Callable[[State], float]) -> list[float]:
    """``rollout``'s outcome after each of ``moves`` on its own copy of ``base``, every copy
    with a generator seeded ``seed`` (``base`` is not changed)."""
    out = []
    for a in moves:
        s = base.clone(rng=np.random.default_rng(seed))
        engine.step(s, a)
        out.append(rollout(s))
    return out


def paired_choice(diffs: Sequence[Sequence[float] | None], default: int, margin: float, z: float) -> int:
    """The index of the move that replaces ``default``, or ``default``.

    ``diffs[i]``: move ``i``'s outcome minus the default's on each sample (None: a move no
    longer compared). The move with the largest mean gain (the first of equals) replaces the
    default only if that gain exceeds ``margin`` and ``z`` standard errors of it.
    """
    best, best_mean, best_se = default, -math.inf, 0.0
    for i, x in enumerate(diffs):
        if i == default or not x:
            continue
        mean = sum(x) / len(x)
        if mean > best_mean:
            var = sum((y - mean) ** 2 for y in x) / max(1, len(x) - 1)
            best, best_mean, best_se = i, mean, math.sqrt(var / len(x))
    if best != default and best_mean > margin and best_mean > z * best_se:
        return best
    return default
