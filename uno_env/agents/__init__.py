"""Agents: the shared interface (:mod:`.base`) and the scripted bots."""

from uno_env.agents.base import Agent, agent_specs, make_agent, register_agent
from uno_env.agents import bots as _bots  # noqa: F401  (registers random, greedy, heuristic)
from uno_env.agents import policy as _policy  # noqa: F401,E402  (registers checkpoint:<dir>)

__all__ = ["Agent", "make_agent", "register_agent", "agent_specs"]
