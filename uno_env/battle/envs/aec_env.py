"""The battle-card games as PettingZoo AEC environments: a thin adapter over the engines.

=====================  ==========================================================
Import                 ``from uno_env.battle.envs import env; env("battle", num_players=2)``
                       or ``pettingzoo.make("aec", "uno_env/tmnt-<game>-v0", ...)``
Agents                 ``player_0 ... player_{n-1}`` (n = 2..8); seat i+1 is left of seat i
Action space           ``Discrete(num_actions)`` of the game (its module's phase table);
                       ``env.unwrapped.action_names[i]`` names action ``i``
Observation space      ``Dict(observation=Box(0, inf, (size,), float32),
                       action_mask=Box(0, 1, (num_actions,), int8))``
=====================  ==========================================================

Constructor: ``raw_env(game="battle", num_players=2, rules=None, cards=None,
render_mode=None, *, illegal_reward=None, **overrides)`` (:mod:`.table`: what each accepts).

**Turns and windows.** ``agent_selection`` is the seat that decides next: the player on turn,
or one seat of a simultaneous window (covering the dragon, the cards of Unexpected attack,
the others' shouts of Elusive bonus), asked one at a time in the window's order with every
answer hidden until the window closes. The mask is all zero except for
``agent_selection``, which always has a legal action. Seats without a decision are never
selected (a Battle player that does not choose only turns its card).

**Reset options.** ``reset(seed=..., options={"deck": [card names, top first], "first":
seat})`` stacks the deck (exactly the game's deck) and fixes the first player; another key
is a ``ValueError`` naming it (but ``options``: PettingZoo's api_test probes with it), as for
UNO's env. Bad seeds and options are ``ValueError`` before anything changes.

**Rewards.** At the end of the game (docs/TMNT-BATTLE.md, C5): +1 for the winner and
-1/(n-1) for the others; a shared win gives each winner (n-k)/(k(n-1)). Every agent receives
its reward through ``_cumulative_rewards`` (``last()``); ``infos[agent]`` then holds
``winners`` and ``scores`` (what the game counts). The games end by their own rules or at
their ``max_rounds`` (the count decides), so nothing is truncated.

**Illegal actions.** ``raw_env``: ``ValueError`` naming the action and the legal ones (state
unchanged); ``env()`` (``illegal_reward=-1``): the episode ends, -1 for its player and 0 for
the others, ``infos[agent]["illegal"] = True``, as PettingZoo's ``TerminateIllegalWrapper``
(with its checks of call order built in, like the UNO env).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from uno_env.battle.envs.table import RENDER_MODES, GameTable
from uno_env.envs import checks
from uno_env.envs.aec_env import raw_env as UnoAEC

ILLEGAL_REWARD = -1.0


def env(**kwargs: Any) -> "raw_env":
    """A game's AEC env as PettingZoo's classic ``env()``: an illegal action ends the episode
    with -1 for its player (``illegal_reward=-1``)."""
    kwargs.setdefault("illegal_reward", ILLEGAL_REWARD)
    return raw_env(**kwargs)


def check_illegal_reward(value: Any) -> float | None:
    if value is not None and (isinstance(value, bool) or not isinstance(
            value, (int, float, np.integer, np.floating)) or not math.isfinite(value)):
        raise ValueError(f"illegal_reward must be None (illegal actions raise ValueError) or a finite "
                         f"number, got {checks.show(value)}")
    return None if value is None else float(value)


class raw_env(AECEnv, EzPickle):
    metadata = {"render_modes": RENDER_MODES, "name": "tmnt_battle_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, game: str = "battle", num_players: int = 2, rules: Any = None, cards: Any = None,
                 render_mode: str | None = None, *, illegal_reward: float | None = None, **overrides: Any):
        EzPickle.__init__(self, game, num_players, rules, cards, render_mode, illegal_reward=illegal_reward,
                          **overrides)
        super().__init__()
        self.table = GameTable(game, num_players, rules, cards, render_mode, overrides)
        self.metadata = {**type(self).metadata, "name": f"tmnt_{game}_v0"}
        self.game, self.engine, self.rules, self.cards = game, self.table.engine, self.table.rules, self.table.cards
        self.render_mode = render_mode
        self.illegal_reward = check_illegal_reward(illegal_reward)
        self.possible_agents = list(self.table.possible_agents)
        self.observation_spaces = self.table.observation_spaces
        self.action_spaces = self.table.action_spaces
        self.action_names = self.table.action_names
        self._ended = True
        self.history: list[tuple[int, int]] = []  # (seat, action) of every decision this episode

    @property
    def game_state(self):
        return self.table.state

    @property
    def np_random(self):
        return self.table.np_random

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def action_id(self, name: str) -> int:
        """The action id of an action name such as ``name strength``."""
        try:
            return self.action_names.index(name)
        except ValueError:
            raise ValueError(f"unknown action name {checks.show(name)} for {self.game}") from None

    # ------------------------------------------------------------------ AEC API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        s = self.table.new_state(seed, options)
        self.history = []
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._ended = False
        self._skip_agent_selection = None
        if s.game_over:  # a card set that deals nothing: the game is over at once
            self._end()
        else:
            self.agent_selection = self.possible_agents[s.actor]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        try:
            seat = self.table.agent_seat[agent]
        except (KeyError, TypeError):
            raise ValueError(f"unknown agent {checks.show(agent)}; agents: {self.possible_agents}") from None
        s = self.table.state
        if s is None:
            raise RuntimeError("reset() needs to be called before observe()")
        return self.table.observation(seat, not self._ended and s.actor == seat)

    # PettingZoo's contract, as UNO's env keeps it (one owner): ``last()``, the dead steps once the
    # episode is over, and an illegal action ending it under ``env()``
    last = UnoAEC.last
    _step_ended = UnoAEC._step_ended
    _end_illegal = UnoAEC._end_illegal

    def legal_actions(self) -> list[int]:
        """Legal action ids of ``agent_selection`` (empty once the episode is over)."""
        if self.table.state is None:
            raise RuntimeError("reset() needs to be called before legal_actions()")
        return [] if self._ended else list(self.engine.legal_actions(self.table.state))

    def step(self, action: Any) -> None:
        s = self.table.state
        if self._ended:
            self._step_ended(action)
            return
        agent = self.agent_selection
        action = self.table.action_id(action, agent)
        seat = s.actor
        if self.illegal_reward is not None and action not in self.engine.legal_actions(s):
            self._end_illegal(agent, action)
            return
        self.engine.step(s, action)  # ValueError (state unchanged) if illegal
        self._cumulative_rewards[agent] = 0.0
        self.history.append((seat, action))
        if s.game_over:
            self._end()
        else:
            self.agent_selection = self.possible_agents[s.actor]
        if self.render_mode == "human":
            self.render()

    def _end(self) -> None:
        s = self.table.state
        scores = self.engine.scores(s)
        for a, r in zip(self.possible_agents, self.engine.returns(s)):
            self.rewards[a] = r
            self.terminations[a] = True
            self.infos[a] = {"winners": list(s.winners), "scores": list(scores)}
        self._accumulate_rewards()
        self._ended = True
        self.agent_selection = self.possible_agents[0]

    # ------------------------------------------------------------------ inspection
    def snapshot(self) -> dict[str, Any]:
        """The whole state as a JSON-serialisable dict (hidden cards included)."""
        return self.table.snapshot()

    def render(self) -> str | None:
        s = self.table.state
        return self.table.render(s.actor if s is not None and s.actor >= 0 else 0)

    def close(self) -> None:
        pass
