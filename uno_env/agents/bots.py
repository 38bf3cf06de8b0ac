"""Scripted bots: ``random`` (more to come: ``greedy``, ``heuristic``)."""

from __future__ import annotations

import numpy as np

from uno_env import actions as A
from uno_env.agents.base import Agent, register_agent


class RandomAgent(Agent):
    """A uniformly random playable card (random colour for wilds), drawing only when nothing
    is playable; uniform choices in every other decision."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.flatnonzero(action_mask)
        plays = legal[legal < A.DRAW]
        if len(plays) and (A.DRAW in legal or A.PASS in legal) and A.CHALLENGE not in legal:
            return int(plays[self.rng.integers(len(plays))])
        return int(legal[self.rng.integers(len(legal))])


register_agent("random", lambda spec, rules, n, seed: RandomAgent(rules, n, seed))
