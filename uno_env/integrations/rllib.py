"""UNO on Ray RLlib 2.60 (new API stack): a multi-agent env, an action-masking RLModule, bots
and frozen checkpoints as non-learning RLModules, a league ``policy_mapping_fn``, and the
export of a trained policy into this project's checkpoint format.

    pip install -e ".[rllib]"        # ray[rllib]==2.60.0: its own venv (ray pins gymnasium 1.2.2)

    from ray.rllib.algorithms.ppo import PPOConfig
    from uno_env.integrations import rllib as ur

    env_config = {"rules": "classic", "num_players": 4}
    config = (PPOConfig()
              .environment(ur.UnoMultiAgentEnv, env_config=env_config)
              .env_runners(env_to_module_connector=ur.env_to_module)
              .multi_agent(policies={"shared", "heuristic"},
                           policy_mapping_fn=ur.LeagueMapping(4, {"shared": 0.5, "heuristic": 0.5}),
                           policies_to_train=["shared"])
              .rl_module(rl_module_spec=ur.multi_module_spec(
                  env_config, opponents={"heuristic": "heuristic"})))
    algo = config.build_algo()
    algo.train()

``training/train_rllib.py`` is the complete script (league, evaluation, export, clusters).

**The env** (:class:`UnoMultiAgentEnv`, an RLlib ``MultiAgentEnv`` over the engine, no
PettingZoo machinery). Turn-based: after ``reset`` and every ``step`` only the seat that decides
next (``state.actor``: the player on turn, a Wild Draw Four victim, one player asked in a
window) gets an observation, so every decision of every seat is a step of that seat's agent,
and ``step`` takes exactly one action, the acting seat's. Agents ``player_0 ... player_{n-1}``
as in the AEC env.

=====================  =========================================================================
observation            ``Dict(observations=Box(0, inf, (1537,), float32),
                       action_mask=Box(0, 1, (195,), float32))``: the keys and mask dtype of
                       RLlib's action-masking example module (``ActionMaskingTorchRLModule``
                       runs on it unchanged); PettingZoo's key ``observation`` is renamed
action                 ``Discrete(195)`` (:mod:`uno_env.game.actions`)
rewards                0 during the game; at its end every seat (not only the one that moved)
                       gets ``Engine.returns``: +1 for the winner, -1/(n-1) for the others
end of the episode     every seat gets its last observation (mask all zero), its reward and
                       ``terminated`` (``truncated`` at ``rules.max_steps`` decisions, reward
                       0), with ``"__all__"``; ``infos[agent]["winner"]`` names the winner's seat
config                 ``{"rules": preset/path/dict, "num_players": n, "on_illegal": "end",
                       <rule option>: value}`` (an unknown key is the ``ValueError`` of
                       ``make_rules``)
reset options          ``{"deck": [...], "dealer": seat}`` as in the AEC env
=====================  =========================================================================

**Illegal actions** (masked sampling never produces one; RLlib's env check sends a random
action) end the episode as in the Gymnasium view and PettingZoo's ``TerminateIllegalWrapper``:
the seat that made it gets -1, the others 0, every seat is terminated and
``infos[agent]["illegal"]`` is True for it. ``on_illegal="raise"`` raises the engine's
``ValueError`` naming the action instead. An action for a seat that is not deciding is a
``ValueError``.

**The policy** (:class:`MaskedPPOModule`, torch). An MLP actor and a separate MLP critic on
the checkpoint card's ``obs_features`` input (the observation without the empty opponent
slots, counts scaled: :func:`uno_env.agents.checkpoint.obs_features_layout`) or the raw
vector; the logits of illegal actions are set to ``FLOAT_MIN`` (RLlib's "very negative"), so
sampling, argmax, entropy and KL see legal actions only. Orthogonal initialisation as in
Stable-Baselines3 (gain sqrt(2), 0.01 for the logits, 1 for the value). ``model_config``:
``num_players``, ``hidden`` (``[256, 256]``), ``activation`` (``tanh``/``relu``), ``input``
(``obs_features``/``raw``). Built inference-only (``RLModuleSpec(inference_only=True)``) it
has no critic. The
actor's layers are exactly a checkpoint card's ``policy`` network, so
:func:`export_checkpoint` writes ``card.json`` + safetensors weights that ``checkpoint:<dir>``
plays in ``uno-evaluate``, ``uno-play`` and as an SB3 league opponent.
:class:`MaskedPolicyModule` is the actor alone: the frozen snapshots of the learner (league
self-play) are of this class, so the learner computes no values for their seats.

**Non-learning players** (:class:`AgentRLModule`). Any agent spec plays as a module that
returns actions itself: ``random``, ``greedy``, ``heuristic[:key=value]`` and
``checkpoint:<dir>`` (read on the driver by :func:`opponent_module_spec` and shipped to the
workers as tensors, so a cluster's nodes need not share a file system; greedy, or
``#sample``). A scripted bot is one agent object per episode and seat, so its card counting
sees exactly that seat's decisions: the env-to-module connector piece :class:`AgentSeats`
(``config.env_runners(env_to_module_connector=env_to_module)``) tells the module which
episode and seat each row of its batch is. (Not RLlib's recurrent state: RLlib 2.60 loses the
state of a seat whose episode chunk ends while it waits for its turn.) Keep these modules
out of ``policies_to_train``.

**The league** (:class:`LeagueMapping`, a ``policy_mapping_fn``). Per episode one seat, drawn
at random, is the learner; every other seat draws a module from the mixture of the current
phase (weights over module ids; ``"shared"`` is the learner itself: parameter-shared
self-play; ``"snapshots"`` splits its weight over the snapshot modules filled so far).
Phases switch by training progress, which the driver sets on every env runner
(:meth:`LeagueMapping.update`, through ``EnvRunnerGroup.foreach_env_runner``).

**Imitation first** (:func:`imitate_learner`): the learner fitted to a teacher's decisions
(:mod:`uno_env.learn.imitation`) before PPO, as in ``training/train.py``;
``training/train_rllib.py`` does it when ``imitate_decisions`` > 0.

**A checkpoint's policy first** (:func:`set_actor`, :func:`with_actor`, the inverse of
:func:`actor_tensors`): the learner's actor set to a checkpoint's weights, exactly
(``init_checkpoint``); the imitation then fits the critic alone (``imitate(fit_actor=False)``).
The RLlib checkpoint is pickled state that stays with its run; this is how a shipped agent
(card + safetensors) is trained further, on a cluster or elsewhere.
"""

from __future__ import annotations

import collections
import math
import re
from typing import Any, Mapping, Sequence

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.connectors.connector_v2 import ConnectorV2
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModule, RLModuleSpec
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from uno_env.agents import checkpoint as ckpt
from uno_env.agents.base import Agent, make_agent
from uno_env.agents.policy import MaskedPolicy
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import Engine
from uno_env.game.observation import LAYOUT_VERSION, OBS_SIZE, ObservationEncoder
from uno_env.game.rules import Rules, make_rules
from uno_env.learn.imitation import fit_policy

OBS_KEY = "observations"  # the keys RLlib's action-masking module reads
MASK_KEY = "action_mask"
ON_ILLEGAL = ("end", "raise")
ILLEGAL_REWARD = -1.0
LEARNER = "shared"  # module id of the learning policy (parameter-shared by every learner seat)
SNAPSHOTS = "snapshots"  # league entry: the learner's frozen snapshots
SNAPSHOT_PREFIX = "snapshot_"
ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
INPUTS = ("obs_features", "raw")
MAX_AGENTS = 4096  # bot agent objects (one per episode and seat) kept per module, least recent dropped
_MAPPING_CACHE = 4096  # episodes whose seat table a LeagueMapping remembers


def agent_id(seat: int) -> str:
    return f"player_{seat}"


def seat_of(agent: str) -> int:
    try:
        return int(agent.rsplit("_", 1)[1])
    except (IndexError, ValueError):
        raise ValueError(f"agent id {agent!r} is not player_<seat>") from None


# ====================================================================== the env
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


# ====================================================================== the policy
def _mlp(sizes: Sequence[int], activation: str, out_gain: float) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        linear = nn.Linear(sizes[i], sizes[i + 1])
        last = i == len(sizes) - 2
        nn.init.orthogonal_(linear.weight, gain=out_gain if last else math.sqrt(2))
        nn.init.zeros_(linear.bias)
        layers.append(linear)
        if not last:
            layers.append(ACTIVATIONS[activation]())
    return nn.Sequential(*layers)


def model_config(num_players: int, hidden: Sequence[int] = (256, 256), activation: str = "tanh",
                 input: str = "obs_features") -> dict[str, Any]:
    """The ``model_config`` of :class:`MaskedPPOModule` (checked: ``ValueError`` naming a bad value)."""
    if activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}, got {activation!r}")
    if input not in INPUTS:
        raise ValueError(f"input must be one of {list(INPUTS)}, got {input!r}")
    hidden = [int(h) for h in hidden]
    if not hidden or min(hidden) < 1:
        raise ValueError(f"hidden must be a non-empty list of layer widths, got {hidden!r}")
    return {"num_players": int(num_players), "hidden": hidden, "activation": activation, "input": input}


class MaskedPolicyModule(TorchRLModule):
    """The masked MLP actor alone (a frozen snapshot in the league; never trained)."""

    def setup(self) -> None:
        cfg = dict(self.model_config or {})
        self.num_players = int(cfg["num_players"])
        self.hidden = [int(h) for h in cfg.get("hidden", [256, 256])]
        self.activation = cfg.get("activation", "tanh")
        self.input_kind = cfg.get("input", "obs_features")
        model_config(self.num_players, self.hidden, self.activation, self.input_kind)  # checks
        if self.input_kind == "obs_features":
            keep, scale = ckpt.obs_features_layout(self.num_players)
        else:
            keep, scale = np.arange(OBS_SIZE), np.ones(OBS_SIZE, np.float32)
        self.register_buffer("keep", torch.as_tensor(keep, dtype=torch.long), persistent=False)
        self.register_buffer("scale", torch.as_tensor(scale, dtype=torch.float32), persistent=False)
        self.n_in = len(keep)
        self.pi = _mlp([self.n_in, *self.hidden, A.NUM_ACTIONS], self.activation, out_gain=0.01)

    def features(self, obs: Mapping[str, torch.Tensor]) -> torch.Tensor:
        x = obs[OBS_KEY]
        return x.index_select(-1, self.keep) * self.scale

    def _forward(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.pi(self.features(obs))
        return {Columns.ACTION_DIST_INPUTS: mask_logits(logits, obs[MASK_KEY])}

    def _forward_train(self, batch: dict[str, Any], **kwargs) -> dict[str, Any]:
        if type(self) is MaskedPolicyModule:
            raise NotImplementedError("a frozen policy module is never trained: keep it out of "
                                      "policies_to_train")
        return self._forward(batch, **kwargs)


def mask_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """Logits with every illegal action (``mask`` 0) set to ``FLOAT_MIN``."""
    return logits.masked_fill(mask <= 0, FLOAT_MIN)


class MaskedPPOModule(MaskedPolicyModule, ValueFunctionAPI, InferenceOnlyAPI):
    """The learner: the masked actor plus a separate MLP critic (built on learners only)."""

    def setup(self) -> None:
        super().setup()
        if not self.inference_only:
            self.vf = _mlp([self.n_in, *self.hidden, 1], self.activation, out_gain=1.0)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf(self.features(batch[Columns.OBS])).squeeze(-1)

    def get_non_inference_attributes(self) -> list[str]:
        return ["vf"]


# ====================================================================== bots and frozen checkpoints
def _numpy(x: Any) -> np.ndarray:
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
        observations = _numpy(obs[OBS_KEY]).reshape(-1, OBS_SIZE)
        masks = _numpy(obs[MASK_KEY]).reshape(-1, A.NUM_ACTIONS) > 0
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
                f"config.env_runners(env_to_module_connector=uno_env.integrations.rllib.env_to_module)")
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


def module_id_for(spec: str) -> str:
    """A module id for an opponent spec: letters, digits and ``_`` only (RLlib names a folder
    of its checkpoints after every module)."""
    return re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_") or "agent"


def opponent_module_spec(spec: str, rules: Rules, num_players: int, seed: int = 0) -> RLModuleSpec:
    """The spec of a non-learning module for an agent spec. ``checkpoint:<dir>[#sample]`` is read
    here (card and weights validated, rules and player count checked) and travels as tensors."""
    config: dict[str, Any] = {"agent": spec, "rules": rules.to_dict(), "num_players": int(num_players),
                              "seed": int(seed)}
    if spec.split(":", 1)[0] == "checkpoint":
        path = spec.split(":", 1)[1] if ":" in spec else ""
        sample = path.endswith("#sample")
        path = path[:-len("#sample")] if sample else path
        if not path:
            raise ValueError(f"agent spec {spec!r} needs a path: checkpoint:<dir>")
        card, tensors = ckpt.load_checkpoint(path, rules, num_players)
        config.update(policy=card["policy"], tensors=tensors, sample=sample,
                      layout_version=ckpt.layout_version(card))
    else:
        make_agent(spec, rules, num_players, seed=0)  # ValueError naming a bad spec, on the driver
    return RLModuleSpec(module_class=AgentRLModule, observation_space=observation_space(),
                        action_space=action_space(), model_config=config)


def learner_module_spec(config: Mapping[str, Any]) -> RLModuleSpec:
    return RLModuleSpec(module_class=MaskedPPOModule, observation_space=observation_space(),
                        action_space=action_space(), model_config=dict(config))


def snapshot_module_spec(config: Mapping[str, Any]) -> RLModuleSpec:
    return RLModuleSpec(module_class=MaskedPolicyModule, observation_space=observation_space(),
                        action_space=action_space(), model_config=dict(config))


def multi_module_spec(env_config: Mapping[str, Any], module: Mapping[str, Any] | None = None,
                      opponents: Mapping[str, str] | None = None, snapshots: int = 0,
                      seed: int = 0) -> MultiRLModuleSpec:
    """The learner (``"shared"``, :class:`MaskedPPOModule` with ``module`` as its
    :func:`model_config`), a non-learning module per ``opponents`` entry (module id -> agent
    spec) and ``snapshots`` frozen copies ``snapshot_0 ...``."""
    env_config = dict(env_config)
    n = int(env_config.get("num_players", 2))
    rules = make_rules(env_config.get("rules", "classic"),
                       **{k: v for k, v in env_config.items() if k not in ("rules", "num_players")})
    module = dict(module or model_config(n))
    specs = {LEARNER: learner_module_spec(module)}
    for i, (mid, spec) in enumerate((opponents or {}).items()):
        specs[mid] = opponent_module_spec(spec, rules, n, seed=seed + 1 + i)
    for i in range(snapshots):
        specs[f"{SNAPSHOT_PREFIX}{i}"] = snapshot_module_spec(module)
    return MultiRLModuleSpec(rl_module_specs=specs)


# ====================================================================== the league
class LeagueMapping:
    """A ``policy_mapping_fn``: which module plays each seat of an episode.

    ``phases``: a mixture ``{module id: weight}`` or a list of ``{"until": u, "opponents":
    {module id: weight}}`` (``u`` <= 1: a fraction of training, > 1: a step count, None: the
    rest), as in ``configs/train``. One seat per episode is the learner (``"shared"``), the
    others draw from the mixture; ``"snapshots"`` splits its weight over the ``snapshot_i``
    modules filled so far (none yet: its weight is dropped). Draws use this object's own
    generator (seeded); an episode's table is drawn once, when its first seat is mapped."""

    def __init__(self, num_players: int, phases: Any, seed: int = 0, learner: str = LEARNER):
        if isinstance(phases, Mapping):
            phases = [{"until": None, "opponents": dict(phases)}]
        self.num_players = int(num_players)
        self.phases = [dict(p) for p in phases]
        if not self.phases:
            raise ValueError("the league needs at least one phase")
        for p in self.phases:
            weights = p.get("opponents")
            if not isinstance(weights, Mapping) or not weights or any(
                    not isinstance(w, (int, float)) or w < 0 for w in weights.values()):
                raise ValueError(f"league phase {p!r}: opponents must be a mapping of module ids "
                                 f"to weights >= 0")
        self.learner = learner
        self.seed = int(seed)
        self.progress, self.step, self.snapshots = 0.0, 0, 0
        self._rng: np.random.Generator | None = None
        self._tables: collections.OrderedDict[str, list[str]] = collections.OrderedDict()

    def update(self, progress: float, step: int, snapshots: int) -> None:
        """Training progress (fraction), steps so far and how many snapshot modules hold weights."""
        self.progress, self.step, self.snapshots = float(progress), int(step), int(snapshots)

    def mixture(self) -> list[tuple[str, float]]:
        """``(module id, weight)`` of the current phase, snapshots expanded (weights > 0)."""
        phase = self.phases[-1]
        for p in self.phases:
            until = p.get("until")
            if until is None or (self.progress < until if until <= 1 else self.step < until):
                phase = p
                break
        out = []
        for mid, w in phase["opponents"].items():
            if w <= 0:
                continue
            if mid == SNAPSHOTS:
                out += [(f"{SNAPSHOT_PREFIX}{i}", w / self.snapshots) for i in range(self.snapshots)]
            else:
                out.append((mid, float(w)))
        return out or [(self.learner, 1.0)]

    def table(self, rng: np.random.Generator) -> list[str]:
        """Module ids of every seat for a new episode."""
        ids, weights = zip(*self.mixture())
        p = np.asarray(weights, float) / sum(weights)
        seats = [ids[k] for k in rng.choice(len(ids), size=self.num_players, p=p)]
        seats[int(rng.integers(self.num_players))] = self.learner
        return seats

    def __call__(self, agent_id: str, episode: Any = None, **kwargs: Any) -> str:
        if self._rng is None:
            self._rng = np.random.default_rng(self.seed)
        key = getattr(episode, "id_", None)
        table = self._tables.get(key) if key is not None else None
        if table is None:
            table = self.table(self._rng)
            if key is not None:
                self._tables[key] = table
                if len(self._tables) > _MAPPING_CACHE:
                    self._tables.popitem(last=False)
        return table[seat_of(agent_id)]


def update_league(algo: Any, progress: float, step: int, snapshots: int) -> None:
    """Tell the ``LeagueMapping`` of every env runner (the local one included) the progress."""
    def apply(env_runner: Any) -> None:
        fn = env_runner.config.policy_mapping_fn
        if isinstance(fn, LeagueMapping):
            fn.update(progress, step, snapshots)

    algo.env_runner_group.foreach_env_runner(apply, local_env_runner=True)


# ====================================================================== export
def _actor_layers(state: Mapping[str, Any]) -> list[int]:
    """The indices ``i`` of the actor's linear layers (``pi.<i>.weight``) in a module state, in order."""
    return sorted({int(m.group(1)) for k in state if (m := re.fullmatch(r"pi\.(\d+)\.weight", k))})


def actor_tensors(state: Mapping[str, Any], config: Mapping[str, Any]
                  ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(card policy description, tensors)`` of the actor in a :class:`MaskedPolicyModule`
    state dict (``pi.<i>.weight`` ...) with its ``model_config``: the checkpoint card's network."""
    n = int(config["num_players"])
    hidden = [int(h) for h in config["hidden"]]
    description = ckpt.policy_spec(hidden, config["activation"], config["input"], n)
    indices = _actor_layers(state)
    tensors = {}
    for i, index in enumerate(indices):
        tensors[f"actor.{i}.weight"] = _numpy(state[f"pi.{index}.weight"]).astype(np.float32)
        tensors[f"actor.{i}.bias"] = _numpy(state[f"pi.{index}.bias"]).astype(np.float32)
    shapes = ckpt.tensor_shapes(description)
    wrong = sorted(k for k, shape in shapes.items() if k not in tensors or tensors[k].shape != shape)
    if wrong or len(tensors) != len(shapes):
        raise ValueError(f"the module state does not hold the actor {description['sizes']}: {wrong}")
    return description, tensors


def with_actor(state: Mapping[str, Any], tensors: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The inverse of :func:`actor_tensors`: ``state`` (a module state dict) with its actor's
    layers (``pi.<i>``) replaced by a checkpoint's ``actor.<i>.weight``/``bias`` tensors; the
    critic's left as they are. ``ValueError`` naming the tensors that do not fit; the network's
    input and activation are the caller's to check against the checkpoint's card
    (:func:`uno_env.agents.checkpoint.check_network`, as ``init_checkpoint`` does)."""
    indices = _actor_layers(state)
    names = {f"actor.{i}.{part}": f"pi.{index}.{part}"
             for i, index in enumerate(indices) for part in ("weight", "bias")}
    wrong = sorted(k for k in names.keys() | tensors.keys() if k not in names or k not in tensors
                   or np.shape(tensors[k]) != np.shape(_numpy(state[names[k]])))
    if wrong:
        raise ValueError(f"the checkpoint's actor does not fit the module's: tensors {wrong}")
    out = {k: _numpy(v) for k, v in state.items()}
    out.update({names[k]: np.asarray(tensors[k], np.float32).copy() for k in names})
    return out


def set_actor(algo: Any, tensors: Mapping[str, np.ndarray], module_id: str = LEARNER) -> None:
    """Load a checkpoint's actor into module ``module_id`` on the learner and every env runner
    (:func:`with_actor`, :func:`set_module_state`): a run that starts from a checkpoint."""
    set_module_state(algo, module_id, with_actor(module_state(algo, module_id), tensors))


def masked_policy(state: Mapping[str, Any], config: Mapping[str, Any]) -> MaskedPolicy:
    """The actor of a module state as the numpy policy a checkpoint of it would load."""
    description, tensors = actor_tensors(state, config)
    return MaskedPolicy(description, tensors, int(config["num_players"]))


def export_checkpoint(state: Mapping[str, Any], config: Mapping[str, Any], directory: str,
                      card: Mapping[str, Any]) -> dict[str, Any]:
    """Write the actor of a module state as a checkpoint directory (``card.json`` + safetensors
    weights, :mod:`uno_env.agents.checkpoint`): ``checkpoint:<directory>`` then plays it.
    ``card`` is a :func:`uno_env.agents.checkpoint.make_card` card; returns it as written."""
    description, tensors = actor_tensors(state, config)
    return ckpt.save_policy(directory, dict(card, policy=description), tensors)


def module_state(algo: Any, module_id: str = LEARNER) -> dict[str, np.ndarray]:
    """The weights of a module as the learner holds them (numpy state dict)."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    path = f"{COMPONENT_LEARNER}/{COMPONENT_RL_MODULE}/{module_id}"
    state = algo.learner_group.get_state(components=path)
    return state[COMPONENT_LEARNER][COMPONENT_RL_MODULE][module_id]


def set_module_state(algo: Any, module_id: str, state: Mapping[str, Any]) -> None:
    """Load ``state`` (a numpy state dict, as :func:`module_state` gives) into module
    ``module_id`` on the learner and on every env runner, the local one included. The env
    runners get the state directly: RLlib's ``sync_weights`` skips a runner whose weights
    sequence number has not moved since the last training step."""
    from ray.rllib.core import COMPONENT_LEARNER, COMPONENT_RL_MODULE

    algo.learner_group.set_state({COMPONENT_LEARNER: {COMPONENT_RL_MODULE: {module_id: dict(state)}}})

    def load(env_runner: Any) -> None:
        env_runner.module[module_id].set_state(dict(state))

    algo.env_runner_group.foreach_env_runner(load, local_env_runner=True)


def copy_module(algo: Any, source: str, target: str) -> None:
    """Copy the weights of module ``source`` into ``target`` everywhere (a frozen snapshot of
    the learner): :func:`set_module_state`."""
    set_module_state(algo, target, module_state(algo, source))


# ====================================================================== imitation
def imitate(module: MaskedPPOModule, demos: Any, epochs: int = 4, batch_size: int = 1024,
            learning_rate: float = 1e-3, seed: int = 0, fit_actor: bool = True) -> dict[str, float]:
    """Behaviour cloning warm start of a learner module (built with its critic): its actor
    fitted to the teacher's actions of ``demos`` (:class:`uno_env.learn.imitation.Demonstrations`,
    masked cross-entropy), its critic to their returns, by
    :func:`uno_env.learn.imitation.fit_policy` (``fit_actor=False``: the critic alone). ``training/train_rllib.py`` builds the module
    with the learner's weights, fits it and loads it back with :func:`set_module_state`.
    Returns the last epoch's mean losses and the share of the teacher's actions the actor then
    picks (greedy)."""
    if not hasattr(module, "vf"):
        raise ValueError("imitation needs the learner module with its critic (inference_only=False)")
    if demos.observations.shape[1:] != (OBS_SIZE,):
        raise ValueError(f"demonstrations of shape {demos.observations.shape[1:]} for a module "
                         f"reading observations of {(OBS_SIZE,)}")

    def heads(x: torch.Tensor, masks: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        features = module.features({OBS_KEY: x})
        return mask_logits(module.pi(features), masks.float()), features

    def log_prob_and_value(x, masks, actions):
        logits, features = heads(x, masks)
        log_prob = torch.log_softmax(logits, -1).gather(-1, actions[:, None]).squeeze(-1)
        return log_prob, module.vf(features).squeeze(-1)

    def greedy(x, masks):
        return heads(x, masks)[0].argmax(-1)

    module.train()
    fit = fit_policy(module.parameters(), log_prob_and_value, greedy, demos.observations, demos,
                     epochs=epochs, batch_size=batch_size, learning_rate=learning_rate, seed=seed,
                     fit_actor=fit_actor)
    module.eval()
    return fit


def imitate_learner(algo: Any, demos: Any, module_id: str = LEARNER, **fit: Any) -> dict[str, float]:
    """:func:`imitate` on a copy of ``algo``'s learner module (its current weights), then those
    weights loaded back into the learner and every env runner (:func:`set_module_state`)."""
    spec = algo.config.rl_module_spec.rl_module_specs[module_id]
    module = learner_module_spec(spec.model_config).build()
    module.load_state_dict({k: torch.as_tensor(np.asarray(v)) for k, v in module_state(algo, module_id).items()})
    result = imitate(module, demos, **fit)
    set_module_state(algo, module_id, {k: v.detach().cpu().numpy() for k, v in module.state_dict().items()})
    return result
