"""The module ids and ``RLModuleSpec``s of a league: the learner, the opponents (agent specs,
checkpoints read on the driver) and the learner's frozen snapshots."""

from __future__ import annotations

import re
from typing import Any, Mapping

from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec

from uno_env.agents import checkpoint as ckpt
from uno_env.agents.base import make_agent, parse_spec
from uno_env.game.rules import Rules, make_rules
from uno_env.integrations.rllib.bots import AgentRLModule
from uno_env.integrations.rllib.modules import MaskedPolicyModule, MaskedPPOModule, model_config
from uno_env.integrations.rllib.multi_agent_env import action_space, observation_space

LEARNER = "shared"  # module id of the learning policy (parameter-shared by every learner seat)
SNAPSHOT_PREFIX = "snapshot_"  # module ids of the learner's frozen snapshots: snapshot_0 ...


def module_id_for(spec: str) -> str:
    """A module id for an opponent spec: letters, digits and ``_`` only (RLlib names a folder
    of its checkpoints after every module)."""
    return re.sub(r"[^A-Za-z0-9]+", "_", spec).strip("_") or "agent"


def opponent_module_spec(spec: str, rules: Rules, num_players: int, seed: int = 0) -> RLModuleSpec:
    """The spec of a non-learning module for an agent spec. A policy (``checkpoint:<dir>``,
    ``pretrained:<name>``, ``#sample``) is read here (card and weights validated, rules and
    player count checked) and travels as tensors."""
    config: dict[str, Any] = {"agent": spec, "rules": rules.to_dict(), "num_players": int(num_players),
                              "seed": int(seed)}
    parsed = parse_spec(spec)
    if parsed.is_policy:
        card, tensors = ckpt.load_checkpoint(parsed.checkpoint_dir(), rules, num_players)
        config.update(policy=card["policy"], tensors=tensors, sample=parsed.sample,
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
