"""Module weights in and out: the learner's actor as this project's checkpoint
(:func:`export_checkpoint`, :func:`actor_tensors`), a checkpoint's actor into the learner
(:func:`set_actor`, :func:`with_actor`), and a module's state on the learner and every env
runner (:func:`module_state`, :func:`set_module_state`, :func:`copy_module`)."""

from __future__ import annotations

import re
from typing import Any, Mapping

import numpy as np

from uno_env.agents import checkpoint as ckpt
from uno_env.agents.policy import MaskedPolicy
from uno_env.integrations.rllib.bots import to_numpy
from uno_env.integrations.rllib.specs import LEARNER


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
        tensors[f"actor.{i}.weight"] = to_numpy(state[f"pi.{index}.weight"]).astype(np.float32)
        tensors[f"actor.{i}.bias"] = to_numpy(state[f"pi.{index}.bias"]).astype(np.float32)
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
                   or np.shape(tensors[k]) != np.shape(to_numpy(state[names[k]])))
    if wrong:
        raise ValueError(f"the checkpoint's actor does not fit the module's: tensors {wrong}")
    out = {k: to_numpy(v) for k, v in state.items()}
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
