"""UNO as a turn-based RLlib ``MultiAgentEnv`` (:class:`UnoMultiAgentEnv`): the env, its
spaces and agent ids (the package docstring, "The env", says what it gives)."""

from __future__ import annotations

from typing import Any, Mapping

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import Engine
from uno_env.game.observation import OBS_SIZE, ObservationEncoder
from uno_env.game.rules import Rules, make_rules

OBS_KEY = "observations"  # the keys RLlib's action-masking module reads
MASK_KEY = "action_mask"
ON_ILLEGAL = ("end", "raise")
ILLEGAL_REWARD = -1.0


def agent_id(seat: int) -> str:
    return f"player_{seat}"


def seat_of(agent: str) -> int:
    try:
        return int(agent.rsplit("_", 1)[1])
    except (IndexError, ValueError):
        raise ValueError(f"agent id {agent!r} is not player_<seat>") from None


class UnoMultiAgentEnv(MultiAgentEnv):
    """UNO as a turn-based RLlib ``MultiAgentEnv`` (see the module docstring)."""

    metadata = {"render_modes": []}

    def __init__(self, config: Mapping[str, Any] | None = None):
        super().__init__()
        options = dict(config or {})
        rules = options.pop("rules", "classic")
        num_players = options.pop("num_players", 2)
        self.on_illegal = options.pop("on_illegal", "end")
        if self.on_illegal not in ON_ILLEGAL:
            raise ValueError(f"on_illegal must be one of {list(ON_ILLEGAL)}, got {self.on_illegal!r}")
        self.rules: Rules = make_rules(rules, **options)
        self.engine = Engine(self.rules, num_players)
        self.encoder = ObservationEncoder(self.engine)
        self.num_players = self.engine.n
        self.possible_agents = [agent_id(i) for i in range(self.num_players)]
        self.agents = list(self.possible_agents)
        space = observation_space()
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(A.NUM_ACTIONS) for a in self.possible_agents}
        self.rng = np.random.default_rng()
        self.state = None
        self.done = True

    def _obs(self, seat: int, live: bool = True) -> dict[str, np.ndarray]:
        s = self.state
        mask = np.zeros(A.NUM_ACTIONS, np.float32)
        if live:
            mask[self.engine.legal_actions(s)] = 1.0
        return {OBS_KEY: self.encoder.encode(s, seat), MASK_KEY: mask}

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        options = options or {}
        deck = options.get("deck")
        if deck is not None:
            deck = C.parse_deck(deck, self.rules.color_names)
        self.state = self.engine.new_state(self.rng, deck=deck, dealer=options.get("dealer"))
        self.agents = list(self.possible_agents)
        self.done = False
        actor = self.state.actor
        return {agent_id(actor): self._obs(actor)}, {agent_id(actor): {}}

    def step(self, action_dict: Mapping[str, Any]):
        s = self.state
        if s is None or self.done:
            raise ValueError("step() before reset() or after the episode ended")
        actor = agent_id(s.actor)
        if set(action_dict) != {actor}:
            raise ValueError(f"step() expects exactly one action, for {actor} (the seat deciding "
                             f"now), got actions for {sorted(action_dict)}")
        action = int(action_dict[actor])
        if self.on_illegal == "end" and action not in self.engine.legal_actions(s):
            return self._end_illegal(s.actor)
        self.engine.step(s, action)  # ValueError (state unchanged) if illegal
        if s.game_over or self.engine.truncated(s):
            over = s.game_over
            returns = self.engine.returns(s)
            obs = {agent_id(i): self._obs(i, live=False) for i in range(self.num_players)}
            rewards = {agent_id(i): float(returns[i]) for i in range(self.num_players)}
            terminateds = {a: over for a in self.possible_agents}
            truncateds = {a: not over for a in self.possible_agents}
            terminateds["__all__"], truncateds["__all__"] = over, not over
            winner = int(s.winner) if over else None
            infos = {a: {"winner": winner} for a in self.possible_agents}
            self.done = True
            return obs, rewards, terminateds, truncateds, infos
        nxt = agent_id(s.actor)
        rewards = {actor: 0.0, nxt: 0.0}
        return ({nxt: self._obs(s.actor)}, rewards, {"__all__": False}, {"__all__": False}, {nxt: {}})

    def _end_illegal(self, seat: int):
        obs = {agent_id(i): self._obs(i, live=False) for i in range(self.num_players)}
        rewards = {agent_id(i): ILLEGAL_REWARD if i == seat else 0.0 for i in range(self.num_players)}
        terminateds = {a: True for a in self.possible_agents}
        truncateds = {a: False for a in self.possible_agents}
        terminateds["__all__"], truncateds["__all__"] = True, False
        infos = {agent_id(i): {"winner": None, "illegal": i == seat} for i in range(self.num_players)}
        self.done = True
        return obs, rewards, terminateds, truncateds, infos


def observation_space() -> gym.spaces.Dict:
    return gym.spaces.Dict({
        OBS_KEY: gym.spaces.Box(0.0, np.inf, (OBS_SIZE,), np.float32),
        MASK_KEY: gym.spaces.Box(0.0, 1.0, (A.NUM_ACTIONS,), np.float32),
    })


def action_space() -> gym.spaces.Discrete:
    return gym.spaces.Discrete(A.NUM_ACTIONS)
