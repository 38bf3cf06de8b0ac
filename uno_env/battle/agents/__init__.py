"""Agents of the battle-card games: the interface and registry (:mod:`.base`), the bots
(:mod:`.bots`: ``random``, ``strong``), the game loop (:mod:`.arena`)."""

from uno_env.battle.agents.base import BattleAgent, battle_agent_specs, make_battle_agent, register_battle_agent
from uno_env.battle.agents import bots as _bots  # noqa: F401  (registers random, strong)

__all__ = ["BattleAgent", "make_battle_agent", "register_battle_agent", "battle_agent_specs"]
