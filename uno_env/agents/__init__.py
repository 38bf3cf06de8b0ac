"""Agents: the shared interface (:mod:`.base`), the scripted bots (:mod:`.bots`, :mod:`.heuristic`
with its :mod:`.beliefs`), the search bot (:mod:`.search`, a package) and trained policies
(:mod:`.policy`: ``checkpoint:<dir>``, a checkpoint of :mod:`.checkpoint`, read with numpy).
What trains them is the learning layer, :mod:`uno_env.learn`."""

from uno_env.agents.base import Agent, agent_specs, make_agent, register_agent
from uno_env.agents import bots as _bots  # noqa: F401  (registers random, greedy)
from uno_env.agents import heuristic as _heuristic  # noqa: F401  (registers heuristic)
from uno_env.agents import policy as _policy  # noqa: F401,E402  (registers checkpoint:<dir>)
from uno_env.agents import search as _search  # noqa: F401,E402  (registers search)

__all__ = ["Agent", "make_agent", "register_agent", "agent_specs"]
