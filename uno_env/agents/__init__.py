"""Agents: the shared interface (:mod:`.base`), the scripted bots (:mod:`.bots`, :mod:`.heuristic`
with its :mod:`.beliefs`), the search bot (:mod:`.search`, a package) and trained policies
(:mod:`.policy`: ``checkpoint:<dir>``, a checkpoint of :mod:`.checkpoint`, read with numpy;
:mod:`.shipped`: the pretrained agents in the package, ``pretrained:<name>``, listed by
:func:`pretrained`). What trains them is the learning layer, :mod:`uno_env.learn`."""

from uno_env.agents.base import Agent, AgentSpec, agent_specs, make_agent, parse_spec, register_agent
from uno_env.agents import bots as _bots  # noqa: F401  (registers random, greedy)
from uno_env.agents import heuristic as _heuristic  # noqa: F401  (registers heuristic)
from uno_env.agents import policy as _policy  # noqa: F401,E402  (registers checkpoint:<dir>)
from uno_env.agents import search as _search  # noqa: F401,E402  (registers search)
from uno_env.agents.shipped import Pretrained, pretrained  # noqa: E402  (registers pretrained:<name>)

__all__ = ["Agent", "AgentSpec", "Pretrained", "make_agent", "parse_spec", "pretrained", "register_agent",
           "agent_specs"]
