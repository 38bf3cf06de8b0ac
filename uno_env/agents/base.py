"""The agent interface shared by scripted bots, trained checkpoints and humans.

An agent sees exactly what its player observes: the observation vector of
:mod:`uno_env.game.observation` and the int8 action mask of :mod:`uno_env.game.actions`. It never
reads hidden state (other hands, DRAW order).

    agent = make_agent("heuristic", rules, num_players, seed=0)
    agent.reset(seed)                       # once per episode (optional)
    action = agent.act(observation, mask)   # a legal action id

Agent specs are strings, everywhere (CLI, configs): ``random``, ``greedy``, ``heuristic``,
``checkpoint:<path>``.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

import numpy as np

from uno_env.game.rules import Rules, make_rules


class Agent:
    """Base class: ``act`` returns a legal action id for an observation and its mask."""

    name = "agent"

    def __init__(self, rules: Rules, num_players: int, seed: int | None = None):
        self.rules = rules
        self.num_players = num_players
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start of an episode; a seed re-seeds the agent's own RNG."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"


AgentFactory = Callable[[str, Rules, int, "int | None"], Agent]
_REGISTRY: dict[str, AgentFactory] = {}


def register_agent(prefix: str, factory: AgentFactory) -> None:
    """Register ``factory(spec, rules, num_players, seed)`` for specs ``prefix`` or ``prefix:...``."""
    _REGISTRY[prefix] = factory


def agent_specs() -> list[str]:
    return sorted(_REGISTRY)


def make_agent(spec: str, rules: "Rules | str | Mapping[str, Any]", num_players: int,
               seed: int | None = None) -> Agent:
    """An agent from its spec string, e.g. ``heuristic`` or ``checkpoint:checkpoints/classic-2p``.

    ``rules``: a :class:`Rules`, a preset name, a YAML path or a mapping of rule options, as
    the envs take them (:func:`uno_env.game.rules.make_rules`: ``make_agent("heuristic",
    "classic", 2)``). An agent object given as ``spec`` is returned as it is."""
    if isinstance(spec, Agent):
        return spec
    rules = make_rules(rules)
    prefix = spec.split(":", 1)[0]
    if prefix not in _REGISTRY:
        raise ValueError(f"unknown agent spec {spec!r}; known: {agent_specs()} (checkpoint:<path> for models)")
    return _REGISTRY[prefix](spec, rules, num_players, seed)
