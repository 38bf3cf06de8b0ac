"""The battle-card games with simultaneous moves as PettingZoo ParallelEnvs.

Catch the dragon (every player covers or waits after each card turned), Unexpected attack
(every player plays a card at once) and Elusive bonus with ``shout: others`` (the others
shout or stay silent before a card) are simultaneous at every decision: one
``step(actions)`` gives every seat of the open window its answer at once. Registered as
``pettingzoo.make("parallel", "uno_env/tmnt-<game>-v0", ...)`` for ``dragon``, ``attack`` and
``elusive``; ``parallel_env(game, ...)`` builds any game (a turn-based decision then has one
seat deciding per step).

* ``step(actions)``: ``actions[agent]`` for every agent whose mask is non-zero (the
  deciding seats); other agents' entries are ignored and may be left out. Every deciding
  seat's action is checked before any is applied: a missing, mistyped or illegal one is a
  ``ValueError`` naming it (state unchanged), or with ``illegal_reward`` set (``parallel_env``
  sets -1) ends the episode with that reward for the offender and 0 for the others.
* Returns ``(observations, rewards, terminations, truncations, infos)`` for the agents
  alive before the step; at the end of the game every agent is terminated, gets its reward
  (docs/TMNT-BATTLE.md, C5) and ``infos[agent]`` holds ``winners`` and ``scores``;
  ``agents`` is then empty.
* ``reset(seed, options)`` as the AEC env (:mod:`.table`): ``deck``, ``first``.
* ``render()`` shows the table as ``player_0`` knows it.
"""

from __future__ import annotations

from typing import Any

from gymnasium.utils import EzPickle
from pettingzoo import ParallelEnv

from uno_env.battle.envs.aec_env import ILLEGAL_REWARD, check_illegal_reward
from uno_env.battle.envs.table import RENDER_MODES, GameTable
from uno_env.envs import checks


def parallel_env(**kwargs: Any) -> "BattleParallelEnv":
    """A game's parallel env; an illegal action ends the episode with -1 for its player."""
    kwargs.setdefault("illegal_reward", ILLEGAL_REWARD)
    return BattleParallelEnv(**kwargs)


class BattleParallelEnv(ParallelEnv, EzPickle):
    metadata = {"render_modes": RENDER_MODES, "name": "tmnt_dragon_v0", "is_parallelizable": True,
                "render_fps": 1}

    def __init__(self, game: str = "dragon", num_players: int = 2, rules: Any = None, cards: Any = None,
                 render_mode: str | None = None, *, illegal_reward: float | None = None, **overrides: Any):
        EzPickle.__init__(self, game, num_players, rules, cards, render_mode, illegal_reward=illegal_reward,
                          **overrides)
        self.table = GameTable(game, num_players, rules, cards, render_mode, overrides)
        self.metadata = {**type(self).metadata, "name": f"tmnt_{game}_v0"}
        self.game, self.engine, self.rules = game, self.table.engine, self.table.rules
        self.render_mode = render_mode
        self.illegal_reward = check_illegal_reward(illegal_reward)
        self.possible_agents = list(self.table.possible_agents)
        self.agents: list[str] = []
        self.observation_spaces = self.table.observation_spaces
        self.action_spaces = self.table.action_spaces
        self.action_names = self.table.action_names

    @property
    def game_state(self):
        return self.table.state

    def observation_space(self, agent: str):
        return self.observation_spaces[agent]

    def action_space(self, agent: str):
        return self.action_spaces[agent]

    def _observations(self) -> dict[str, Any]:
        deciding = set(self.engine.deciders(self.table.state))
        return {a: self.table.observation(i, i in deciding) for i, a in enumerate(self.possible_agents)
                if a in self.agents}

    def reset(self, seed: int | None = None, options: dict | None = None):
        s = self.table.new_state(seed, options)
        self.agents = self.possible_agents[:]
        obs = self._observations()
        infos = {a: {} for a in self.agents}
        if s.game_over:  # a card set that deals nothing
            self.agents = []
        return obs, infos

    def step(self, actions: dict[str, Any]):
        s = self.table.state
        if s is None:
            raise RuntimeError("reset() needs to be called before step()")
        if not self.agents:
            raise RuntimeError("the episode is over: call reset()")
        if not isinstance(actions, dict):
            raise ValueError(f"step() takes a dict of actions by agent, got {checks.show(actions)}")
        alive = list(self.agents)
        deciders = self.engine.deciders(s)
        chosen = []
        for seat in deciders:
            agent = self.possible_agents[seat]
            if agent not in actions:
                raise ValueError(f"no action for {agent}, which decides now (deciding: "
                                 f"{[self.possible_agents[q] for q in deciders]})")
            a = self.table.action_id(actions[agent], agent)
            if a not in self.table.legal_of(seat):
                if self.illegal_reward is None:
                    legal = ", ".join(self.action_names[x] for x in self.table.legal_of(seat))
                    raise ValueError(f"illegal action {a} ({self.action_names[a]}) for {agent}; legal: {legal}")
                return self._end_illegal(alive, agent)
            chosen.append(a)
        for a in chosen:  # the window's order: each answer goes to the seat at its head
            self.engine.step(s, a)
        rewards = {a: 0.0 for a in alive}
        terms = {a: False for a in alive}
        infos = {a: {} for a in alive}
        if s.game_over:
            scores = self.engine.scores(s)
            for a, r in zip(self.possible_agents, self.engine.returns(s)):
                rewards[a], terms[a] = r, True
                infos[a] = {"winners": list(s.winners), "scores": list(scores)}
        obs = self._observations()
        if s.game_over:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return obs, rewards, terms, {a: False for a in alive}, infos

    def _end_illegal(self, alive: list[str], agent: str):
        obs = self._observations()
        for o in obs.values():
            o["action_mask"][:] = 0
        rewards = {a: 0.0 for a in alive}
        rewards[agent] = self.illegal_reward
        infos = {a: {} for a in alive}
        infos[agent] = {"illegal": True}
        self.agents = []
        return obs, rewards, {a: True for a in alive}, {a: False for a in alive}, infos

    def snapshot(self) -> dict[str, Any]:
        return self.table.snapshot()

    def render(self) -> str | None:
        """The table as seat 0 knows it (every seat decides at once here)."""
        return self.table.render(0)

    def close(self) -> None:
        pass
