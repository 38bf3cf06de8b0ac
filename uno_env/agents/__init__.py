"""Agents: the shared interface (:mod:`.base`), the scripted bots (:mod:`.bots`, :mod:`.heuristic`
with its :mod:`.beliefs`) and trained checkpoints (:mod:`.checkpoint`)."""

from uno_env.agents.base import Agent, agent_specs, make_agent, register_agent
from uno_env.agents import bots as _bots  # noqa: F401  (registers random, greedy)
from uno_env.agents import heuristic as _heuristic  # noqa: F401  (registers heuristic)
from uno_env.agents import checkpoint as _checkpoint  # noqa: F401,E402  (registers checkpoint:<path>)

__all__ = ["Agent", "make_agent", "register_agent", "agent_specs"]
