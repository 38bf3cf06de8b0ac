"""The agent interface of the battle-card games, and the spec registry.

A battle agent is an :class:`uno_env.agents.base.Agent` (the same ``reset(seed)`` /
``act(observation, action_mask)`` interface as every UNO agent): it sees exactly what its
player observes, the game encoder's vector and the int8 mask. It is built for one engine
(:func:`make_battle_agent`), which gives it only static facts: the card set (every card's
points, which are printed on the cards), the rules and the observation's layout; it never
reads a game state.

    agent = make_battle_agent("strong", engine, seed=0)
    agent.reset(seed)
    action = agent.act(observation, mask)

Specs: ``random`` (every game: a uniformly random legal action) and ``strong`` (the
game's simple strong bot, :mod:`.bots`).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from uno_env.agents.base import Agent
from uno_env.battle.game import make_encoder


class BattleAgent(Agent):
    """An agent of one battle-card game: ``self.engine`` (static facts only), ``self.layout``
    (the observation's blocks: ``self.get(obs, name)``)."""

    name = "agent"

    def __init__(self, engine: Any, seed: int | None = None):
        super().__init__(engine.rules, engine.n, seed)
        self.engine = engine
        self.game = engine.game
        self.layout = make_encoder(engine).layout
        self.deck_size = len(engine.deck)

    def get(self, observation: np.ndarray, block: str) -> np.ndarray:
        return self.layout.get(observation, block)

    def legal(self, mask: np.ndarray) -> list[int]:
        return [int(a) for a in np.flatnonzero(mask)]


BattleFactory = Callable[[str, Any, "int | None"], BattleAgent]
_REGISTRY: dict[str, BattleFactory] = {}


def register_battle_agent(name: str, factory: BattleFactory) -> None:
    """Register ``factory(spec, engine, seed)`` for the spec ``name``."""
    _REGISTRY[name] = factory


def battle_agent_specs() -> list[str]:
    return sorted(_REGISTRY)


def make_battle_agent(spec: Any, engine: Any, seed: int | None = None) -> Agent:
    """An agent of ``engine``'s game from its spec (``random``, ``strong``), or an agent itself."""
    if isinstance(spec, Agent):
        return spec
    if not isinstance(spec, str) or spec not in _REGISTRY:
        raise ValueError(f"unknown battle agent spec {spec!r}; known: {battle_agent_specs()}")
    return _REGISTRY[spec](spec, engine, seed)
