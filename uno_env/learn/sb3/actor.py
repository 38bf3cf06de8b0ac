"""The actor of an SB3 MaskablePPO model in and out of the checkpoint format.

======================  =======================================================================
:func:`actor_tensors`   the actor as a card's ``policy`` description and its tensors (an MLP
                        on the raw or ``obs_features`` input); an actor that could read the
                        global state is refused
:func:`set_actor`       the inverse: a checkpoint's actor tensors into a model (a run that
                        starts from a checkpoint, ``init_checkpoint``)
:func:`masked_policy`   the actor as a numpy :class:`~uno_env.agents.policy.MaskedPolicy`
:func:`sb3_logits`      the actor's logits computed by torch (what the numpy policy matches)
======================  =======================================================================
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from uno_env.agents import checkpoint as ckpt
from uno_env.agents.policy import MaskedPolicy
from uno_env.game import actions as A
from uno_env.game import observation as O
from uno_env.learn.sb3.policy import CRITIC_INPUT_SIZE, OBSERVATION_SHAPES

def _actor_modules(policy: Any) -> list[Any]:
    """The actor of an SB3 actor-critic policy as one list: its ``policy_net`` then ``action_net``
    (Linear, activation, Linear, ..., Linear)."""
    return list(policy.mlp_extractor.policy_net) + [policy.action_net]


def actor_tensors(model: Any, num_players: int) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(policy description, tensors)`` of a MaskablePPO model's actor, as a card holds them.
    ``ValueError`` if the actor is not an MLP on the raw or ``obs_features`` input."""
    import torch.nn as nn
    from stable_baselines3.common.torch_layers import FlattenExtractor

    shape, n = model.observation_space.shape, getattr(model.action_space, "n", None)
    if shape not in OBSERVATION_SHAPES or n != A.NUM_ACTIONS:
        raise ValueError(f"the model has observation shape {shape} and {n} actions; this uno_env "
                         f"has ({O.OBS_SIZE},) (or ({CRITIC_INPUT_SIZE},) with the global state) "
                         f"and {A.NUM_ACTIONS}")
    policy = model.policy
    fx = policy.pi_features_extractor
    if shape != (O.OBS_SIZE,) and type(fx).__name__ != "ObsFeatures":
        raise ValueError("the model's observations hold the global state and its actor does not "
                         "read them through ObsFeatures: it may have seen hidden cards")
    if type(fx).__name__ == "ObsFeatures":
        keep, scale = ckpt.obs_features_layout(num_players)
        if not (np.array_equal(fx.keep.cpu().numpy(), keep)
                and np.array_equal(fx.scale.cpu().numpy(), scale)):
            raise ValueError(f"the model's ObsFeatures input is not the obs_features layout of "
                             f"{num_players} players")
        input_kind = "obs_features"
    elif isinstance(fx, FlattenExtractor):
        input_kind = "raw"
    else:
        raise ValueError(f"the model's features extractor {type(fx).__name__} cannot be described "
                         f"by a card (raw or ObsFeatures input only)")
    modules = _actor_modules(policy)
    linears, activations = modules[0::2], {type(m).__name__.lower() for m in modules[1::2]}
    if (not all(isinstance(m, nn.Linear) and m.bias is not None for m in linears)
            or not activations <= set(ckpt.ACTIVATIONS) or len(activations) > 1):
        raise ValueError("the model's actor is not an MLP of Linear layers with one activation "
                         f"({'/'.join(ckpt.ACTIVATIONS)}): {[type(m).__name__ for m in modules]}")
    activation = activations.pop() if activations else policy.activation_fn.__name__.lower()
    if activation not in ckpt.ACTIVATIONS:
        activation = ckpt.ACTIVATIONS[0]  # no hidden layer: the activation is never applied
    hidden = [m.out_features for m in linears[:-1]]
    description = ckpt.policy_spec(hidden, activation, input_kind, num_players)
    tensors = {}
    for i, m in enumerate(linears):
        tensors[f"actor.{i}.weight"] = m.weight.detach().cpu().numpy().astype(np.float32)
        tensors[f"actor.{i}.bias"] = m.bias.detach().cpu().numpy().astype(np.float32)
    shapes = ckpt.tensor_shapes(description)
    wrong = [k for k, s in shapes.items() if tensors[k].shape != s]
    if wrong:
        raise ValueError(f"the model's actor layers {wrong} do not chain (sizes {description['sizes']})")
    return description, tensors


def set_actor(model: Any, tensors: Mapping[str, np.ndarray], num_players: int) -> None:
    """Load a checkpoint's actor (``actor.<i>.weight``/``bias``, as :func:`actor_tensors` gives
    them) into a MaskablePPO ``model``'s actor: :func:`actor_tensors` of the model is then
    ``tensors``. ``ValueError`` naming the tensors whose shapes are not the model's actor; the
    network's input and activation are the caller's to check against the checkpoint's card
    (:func:`uno_env.agents.checkpoint.check_network`, as ``init_checkpoint`` does)."""
    import torch

    _, current = actor_tensors(model, num_players)  # also checks the actor is a card's MLP
    wrong = sorted(k for k in current.keys() | tensors.keys()
                   if k not in current or k not in tensors or np.shape(tensors[k]) != current[k].shape)
    if wrong:
        raise ValueError(f"the checkpoint's actor does not fit the model's: tensors {wrong}")
    linears = _actor_modules(model.policy)[0::2]
    with torch.no_grad():
        for i, layer in enumerate(linears):
            layer.weight.copy_(torch.as_tensor(np.asarray(tensors[f"actor.{i}.weight"])))
            layer.bias.copy_(torch.as_tensor(np.asarray(tensors[f"actor.{i}.bias"])))


def masked_policy(model: Any, num_players: int) -> MaskedPolicy:
    """The actor of an in-memory model as the numpy policy a checkpoint of it would load."""
    description, tensors = actor_tensors(model, num_players)
    return MaskedPolicy(description, tensors, num_players)


def sb3_logits(model: Any, observations: np.ndarray) -> np.ndarray:
    """The actor's logits computed by SB3/torch (the reference :class:`MaskedPolicy` matches)."""
    import torch

    policy = model.policy
    policy.set_training_mode(False)
    with torch.inference_mode():
        x = np.asarray(observations, np.float32).reshape(-1, O.OBS_SIZE)
        if model.observation_space.shape != (O.OBS_SIZE,):  # state appended: zeros (the actor ignores it)
            x = np.pad(x, ((0, 0), (0, model.observation_space.shape[0] - O.OBS_SIZE)))
        x = torch.as_tensor(x)
        features = policy.pi_features_extractor(x)  # float32 Box: SB3's preprocessing is the identity
        return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()
