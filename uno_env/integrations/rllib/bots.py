"""Non-learning players as RLModules: any agent spec (:class:`AgentRLModule`), told which
episode and seat each row of its batch is by the connector piece :class:`AgentSeats`
(:func:`env_to_module`); the package docstring, "Non-learning players", says why."""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import torch
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.rl_module import RLModule

from uno_env.agents.base import Agent, make_agent
from uno_env.agents.policy import MaskedPolicy
from uno_env.game import actions as A
from uno_env.game.observation import LAYOUT_VERSION, OBS_SIZE
from uno_env.game.rules import make_rules
from uno_env.integrations.rllib.multi_agent_env import MASK_KEY, OBS_KEY

MAX_AGENTS = 4096  # bot agent objects (one per episode and seat) kept per module, least recent dropped


def to_numpy(x: Any) -> np.ndarray:
    if isinstance(x, torch.Tensor):
        return x.detach().cpu().numpy()
    return np.asarray(x)


class AgentRLModule(RLModule):
    """An agent spec as a non-learning module that returns actions (see the module docstring).

    ``model_config``: ``agent`` (the spec), ``rules`` (``Rules.to_dict()``), ``num_players``,
    ``seed``; for a checkpoint also ``policy`` (the card's network), ``tensors`` and ``sample``
    (:func:`opponent_module_spec` fills these in). A scripted bot keeps one agent object per
    episode and seat, told apart by the keys :class:`AgentSeats` sets before every forward pass."""

    framework = "torch"

    def setup(self) -> None:
        cfg = dict(self.model_config or {})
        self.spec = str(cfg["agent"])
        self.rules = make_rules(cfg["rules"])
        self.num_players = int(cfg["num_players"])
        self.rng = np.random.default_rng(int(cfg.get("seed", 0)))
        self.policy: MaskedPolicy | None = None
        self.sample = bool(cfg.get("sample", False))
        if cfg.get("policy") is not None:
            self.policy = MaskedPolicy(cfg["policy"], cfg["tensors"], self.num_players,
                                       cfg.get("layout_version", LAYOUT_VERSION))
        else:
            make_agent(self.spec, self.rules, self.num_players, seed=0)  # a bad spec fails here
        self.row_keys: list[tuple[str, str]] | None = None  # set by AgentSeats
        self._agents: collections.OrderedDict[tuple[str, str], Agent] = collections.OrderedDict()

    def _agent(self, key: tuple[str, str]) -> Agent:
        agent = self._agents.get(key)
        if agent is None:  # this seat's first decision in this episode
            agent = make_agent(self.spec, self.rules, self.num_players,
                               seed=int(self.rng.integers(2 ** 63)))
            self._agents[key] = agent
            if len(self._agents) > MAX_AGENTS:
                self._agents.popitem(last=False)  # the least recently used
        else:
            self._agents.move_to_end(key)
        return agent

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        observations = to_numpy(obs[OBS_KEY]).reshape(-1, OBS_SIZE)
        masks = to_numpy(obs[MASK_KEY]).reshape(-1, A.NUM_ACTIONS) > 0
        legal = masks.any(axis=1)
        masks[~legal, 0] = True  # a finished seat's all-zero mask: the action is never used
        if self.policy is not None:
            actions = self.policy.act(observations, masks, deterministic=not self.sample, rng=self.rng)
            return {Columns.ACTIONS: actions.astype(np.int64)}
        keys, self.row_keys = self.row_keys, None
        if keys is None or len(keys) != len(observations):
            raise RuntimeError(
                f"AgentRLModule {self.spec!r} got {len(observations)} observations but "
                f"{'no' if keys is None else len(keys)} seat keys: add the connector "
                f"config.env_runners(env_to_module_connector=uno_env.integrations.rllib.bots.env_to_module)")
        actions = np.zeros(len(observations), np.int64)
        for i, key in enumerate(keys):
            if legal[i]:
                actions[i] = self._agent(key).act(observations[i], masks[i].astype(np.int8))
        return {Columns.ACTIONS: actions}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        raise NotImplementedError(f"{self.spec!r} plays as a non-learning module: keep it out of "
                                  f"policies_to_train")


class AgentSeats(ConnectorV2):
    """Env-to-module connector piece: tells every scripted-bot :class:`AgentRLModule` which
    ``(episode id, agent id)`` each row of its coming batch is, so that a bot remembers
    exactly its own seat's game. It runs before RLlib's default pieces and walks the episodes
    in the order they do (the batch rows of a module keep that order)."""

    def __call__(self, *, rl_module: Any, batch: dict[str, Any], episodes: list, explore: Any = None,
                 shared_data: dict | None = None, **kwargs: Any) -> Any:
        keys: dict[str, list[tuple[str, str]]] = collections.defaultdict(list)
        for sa_episode in self.single_agent_episode_iterator(episodes, agents_that_stepped_only=True):
            keys[sa_episode.module_id].append((sa_episode.multi_agent_episode_id, sa_episode.agent_id))
        for mid in rl_module.keys():
            module = rl_module[mid]
            if isinstance(module, AgentRLModule):
                module.row_keys = keys.get(mid, [])
        return batch


def env_to_module(env: Any = None, spaces: Any = None, device: Any = None) -> list[ConnectorV2]:
    """For ``config.env_runners(env_to_module_connector=env_to_module)``: :class:`AgentSeats`."""
    return [AgentSeats()]
