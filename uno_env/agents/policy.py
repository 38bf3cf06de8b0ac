"""Trained policies as agents, in numpy: the ``checkpoint:<dir>`` agent spec.

:class:`MaskedPolicy` runs the actor a checkpoint's card describes (:mod:`.checkpoint`: an MLP of
``actor.<i>`` layers on the raw observation or the ``obs_features`` input) as numpy matrix
products: no torch or Stable-Baselines3 at play time, and several times faster than torch for
one observation. Logits of illegal actions are masked out; the agent plays the most likely
legal action or, with ``#sample``, samples from the masked softmax with its own RNG.

    agent = make_agent("checkpoint:checkpoints/classic-2p", rules, 2)            # greedy
    agent = make_agent("checkpoint:checkpoints/classic-2p#sample", rules, 2, seed=0)

A checkpoint's weights are loaded once per process and weights file (:func:`load_policy`); its
card is read and checked against the requested rules and player count on every load. A card
of observation layout 0 plays on today's observations: its policy reads their first
``observation.V0_SIZE`` entries, which are the layout-0 observation.
"""

from __future__ import annotations

import os
from typing import Any, Mapping

import numpy as np

from uno_env.agents import checkpoint as ckpt
from uno_env.agents.base import SAMPLE_SUFFIX, Agent, parse_spec, register_agent
from uno_env.game import observation as O
from uno_env.game.rules import Rules

MAX_CACHED_POLICIES = 16


class MaskedPolicy:
    """An MLP actor (a card's ``policy`` description and its tensors) as a numpy function."""

    def __init__(self, policy: Mapping[str, Any], tensors: Mapping[str, np.ndarray], num_players: int,
                 layout_version: int = O.LAYOUT_VERSION):
        self.input = policy["input"]
        self.activation = policy["activation"]
        self.layout_version = layout_version
        self.width = O.LAYOUT_SIZES[layout_version]  # the observation entries it reads: a prefix
        self.keep = self.scale = None
        if self.input == "obs_features":
            self.keep, self.scale = ckpt.obs_features_layout(num_players, layout_version)
        n_layers = len(policy["sizes"]) - 1
        # (in, out) weights, C-contiguous: x @ w + b
        self.layers = [(np.ascontiguousarray(np.asarray(tensors[f"actor.{i}.weight"], np.float32).T),
                        np.asarray(tensors[f"actor.{i}.bias"], np.float32).copy())
                       for i in range(n_layers)]

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """Action logits, shape ``(batch, 195)``, of one observation or a batch. A policy of an
        older observation layout reads its prefix of the observation (so it also takes
        observations of its own, shorter layout); a shorter observation is a ``ValueError``."""
        x = np.asarray(observations, np.float32)
        x = x.reshape(-1, x.shape[-1] if x.ndim else 1)
        if x.shape[1] < self.width:
            raise ValueError(f"this policy reads observations of layout {self.layout_version} "
                             f"({self.width} entries); got {x.shape[1]} entries")
        if self.keep is not None:
            x = x[:, self.keep] * self.scale
        elif x.shape[1] != self.width:
            x = x[:, :self.width]
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            x = x @ w + b
            if i < last:
                x = np.tanh(x) if self.activation == "tanh" else np.maximum(x, 0.0)
        return x

    def act(self, observations: np.ndarray, masks: np.ndarray, deterministic: bool = True,
            rng: np.random.Generator | None = None) -> np.ndarray:
        """Actions for a batch (legal by ``masks``): argmax, or a sample with ``rng``."""
        logits = self.logits(observations)
        masks = np.asarray(masks, bool).reshape(logits.shape)
        logits = np.where(masks, logits, -np.inf)
        if deterministic:
            return logits.argmax(axis=1)
        z = np.exp(logits - logits.max(axis=1, keepdims=True))
        p = z / z.sum(axis=1, keepdims=True)
        u = rng.random((len(p), 1))
        return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), p.shape[1] - 1)


_POLICIES: dict[tuple, MaskedPolicy] = {}


def load_policy(path: str, rules: Rules | None = None, num_players: int | None = None
                ) -> tuple[MaskedPolicy, dict]:
    """``(policy, card)`` of the checkpoint directory ``path``: the card is read, validated and
    checked against ``rules``/``num_players`` first; the weights are cached per file version."""
    for attempt in range(ckpt.READ_ATTEMPTS):
        card = ckpt.load_card(path)
        ckpt.check_card(card, rules, num_players, where=f"checkpoint {path!r}")
        try:
            return _cached_policy(path, card), card
        except ckpt.CheckpointError:
            # a save between reading the card and its weights replaces both: read the card again
            if attempt + 1 == ckpt.READ_ATTEMPTS or ckpt.load_card(path) == card:
                raise
    raise AssertionError("unreachable")


def _cached_policy(path: str, card: dict) -> MaskedPolicy:
    weights = os.path.join(ckpt.checkpoint_dir(path), card["policy"]["weights"])
    try:
        st = os.stat(weights)
        key = (os.path.realpath(weights), st.st_mtime_ns, st.st_size, card["policy"]["sha256"],
               card["num_players"], card["policy"]["input"], card["policy"]["activation"],
               ckpt.layout_version(card))
    except OSError:
        key = None  # load_weights names the missing file
    policy = _POLICIES.get(key) if key is not None else None
    if policy is None:
        policy = MaskedPolicy(card["policy"], ckpt.load_weights(path, card), card["num_players"],
                              ckpt.layout_version(card))
        if key is not None:
            if len(_POLICIES) >= MAX_CACHED_POLICIES:
                del _POLICIES[next(iter(_POLICIES))]  # the oldest
            _POLICIES[key] = policy
    return policy


class PolicyAgent(Agent):
    """A policy as an agent: its most likely legal action (or a masked sample)."""

    def __init__(self, policy: MaskedPolicy, rules: Rules, num_players: int, seed: int | None = None,
                 deterministic: bool = True, name: str = "policy"):
        super().__init__(rules, num_players, seed)
        self.policy = policy
        self.deterministic = deterministic
        self.name = name

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        return int(self.policy.act(observation, action_mask, self.deterministic, self.rng)[0])


class CheckpointAgent(PolicyAgent):
    """The policy of a checkpoint directory (weights loaded once per process)."""

    def __init__(self, path: str, rules: Rules, num_players: int, seed: int | None = None,
                 deterministic: bool = True, name: str | None = None):
        policy, self.card = load_policy(path, rules, num_players)
        name = name or f"checkpoint:{path}"
        super().__init__(policy, rules, num_players, seed, deterministic,
                         name + ("" if deterministic else SAMPLE_SUFFIX))
        self.path = path


def _make_checkpoint_agent(spec: str, rules: Rules, num_players: int, seed: int | None) -> Agent:
    parsed = parse_spec(spec)
    return CheckpointAgent(parsed.checkpoint_dir(), rules, num_players, seed, not parsed.sample)


register_agent("checkpoint", _make_checkpoint_agent, checkpoint_dir=str)
