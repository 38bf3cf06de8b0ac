"""Trained-agent checkpoints: a MaskablePPO model plus a JSON card, and the ``checkpoint:`` agent.

A checkpoint is a directory::

    checkpoints/<run>/model.zip    the sb3-contrib MaskablePPO model (policy + optimizer)
    checkpoints/<run>/card.json    what it was trained for and how well it plays

The card records the rules (every option), the player count, the observation and action
layouts (version and size), the training budget (total steps, wall time), the latest
evaluation results and the training config. :func:`load_model` checks the card against
the env it is asked to play in: a different rule option, player count or layout is a
``ValueError`` naming the difference; a missing or unreadable file is an error naming the
file. (``name`` and ``max_steps`` are not compared: they do not change the game.)

As an agent spec, ``checkpoint:<dir>`` plays the policy's most likely legal action
(``checkpoint:<dir>#sample`` samples from the masked policy with the agent's RNG). The
model is loaded once per process and file version (torch set to one thread); the actor
then runs in numpy (:class:`MaskedPolicy`).

:class:`ObsFeatures` is the policy input layer that ``training/train.py`` uses by default
(the observation without the empty opponent slots, with scaled counts). torch and
sb3-contrib are imported only when a checkpoint is saved or loaded, or that class is used.
"""

from __future__ import annotations

import json
import os
import time
from typing import Any

import numpy as np

from uno_env.game import actions as A
from uno_env.game import observation as O
from uno_env.agents.base import Agent, register_agent
from uno_env.game.rules import Rules

CARD_FORMAT = 1
MODEL_FILE = "model.zip"
CARD_FILE = "card.json"
OBS_LAYOUT = {"version": O.LAYOUT_VERSION, "size": O.OBS_SIZE}
ACTION_LAYOUT = {"version": A.LAYOUT_VERSION, "size": A.NUM_ACTIONS}
IGNORED_RULE_KEYS = ("name", "max_steps")
AGENT_TORCH_THREADS: int | None = 1  # torch threads set when an agent loads a model (None: leave)


def checkpoint_files(path: str) -> tuple[str, str]:
    """(model.zip, card.json) of a checkpoint directory (or of the model.zip inside it)."""
    if path.endswith(".zip"):
        return path, os.path.join(os.path.dirname(path) or ".", CARD_FILE)
    return os.path.join(path, MODEL_FILE), os.path.join(path, CARD_FILE)


# ---------------------------------------------------------------------- saving
def make_card(*, rules: Rules, num_players: int, total_steps: int, wall_time_s: float,
              evaluation: dict | None = None, config: dict | None = None,
              extra: dict | None = None) -> dict[str, Any]:
    import uno_env

    card = {
        "format": CARD_FORMAT,
        "uno_env_version": uno_env.__version__,
        "algorithm": "MaskablePPO",
        "rules": rules.to_dict(),
        "num_players": int(num_players),
        "observation_layout": dict(OBS_LAYOUT),
        "action_layout": dict(ACTION_LAYOUT),
        "total_steps": int(total_steps),
        "wall_time_s": round(float(wall_time_s), 1),
        "saved": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "evaluation": evaluation or {},
        "config": config or {},
    }
    card.update(extra or {})
    return card


def _write_atomic(path: str, write) -> None:
    tmp = path + ".partial"
    write(tmp)
    os.replace(tmp, path)


def save_checkpoint(model: Any, directory: str, card: dict[str, Any]) -> str:
    """Write ``model.zip`` and ``card.json`` into ``directory`` (each file replaced atomically)."""
    os.makedirs(directory, exist_ok=True)
    model_path, card_path = checkpoint_files(directory)

    def write_model(tmp: str) -> None:
        with open(tmp, "wb") as fh:
            model.save(fh)

    def write_card(tmp: str) -> None:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(card, fh, indent=2, sort_keys=False)
            fh.write("\n")

    _write_atomic(model_path, write_model)
    _write_atomic(card_path, write_card)
    return directory


# ---------------------------------------------------------------------- loading
def load_card(path: str) -> dict[str, Any]:
    """The card of a checkpoint. ``FileNotFoundError`` / ``ValueError`` naming the file."""
    _, card_path = checkpoint_files(path)
    if not os.path.isfile(card_path):
        raise FileNotFoundError(f"checkpoint card {card_path!r} not found (a checkpoint is a "
                                f"directory holding {MODEL_FILE} and {CARD_FILE})")
    try:
        with open(card_path, encoding="utf-8") as fh:
            card = json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"checkpoint card {card_path!r} is corrupt: {e}") from None
    missing = [k for k in ("rules", "num_players", "observation_layout", "action_layout")
               if not isinstance(card, dict) or k not in card]
    if missing:
        raise ValueError(f"checkpoint card {card_path!r} is corrupt: missing {missing}")
    return card


def check_card(card: dict[str, Any], rules: Rules | None, num_players: int | None,
               where: str = "checkpoint") -> None:
    """``ValueError`` naming every mismatch between a card and the requested env."""
    problems = []
    for key, ours in (("observation_layout", OBS_LAYOUT), ("action_layout", ACTION_LAYOUT)):
        theirs = card.get(key)
        if theirs != ours:
            problems.append(f"{key.replace('_', ' ')} {theirs} (this uno_env has {ours})")
    if num_players is not None and card.get("num_players") != num_players:
        problems.append(f"num_players {card.get('num_players')} (the env has {num_players})")
    if rules is not None:
        # an option the card does not name (saved before the option existed) has its default
        ours, theirs = rules.to_dict(), {**Rules().to_dict(), **(card.get("rules") or {})}
        diff = [f"{k}={theirs.get(k, '<absent>')!r} (env: {ours.get(k)!r})"
                for k in sorted(set(ours) | set(theirs))
                if k not in IGNORED_RULE_KEYS and _norm(theirs.get(k)) != _norm(ours.get(k))]
        if diff:
            problems.append("rules " + ", ".join(diff))
    if problems:
        raise ValueError(f"{where} does not match the requested env: " + "; ".join(problems))


def _norm(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def load_model(path: str, rules: Rules | None = None, num_players: int | None = None,
               env: Any = None, device: str = "cpu"):
    """``(model, card)`` of the checkpoint at ``path``, checked against rules and player count."""
    model_path, card_path = checkpoint_files(path)
    card = load_card(path)
    check_card(card, rules, num_players, where=f"checkpoint {os.path.dirname(card_path) or '.'!r}")
    if not os.path.isfile(model_path):
        raise FileNotFoundError(f"checkpoint model {model_path!r} not found")
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(model_path, env=env, device=device)
    except Exception as e:  # zipfile.BadZipFile, KeyError, pickle errors, torch errors ...
        raise ValueError(f"checkpoint model {model_path!r} is corrupt or not a MaskablePPO "
                         f"model: {type(e).__name__}: {e}") from None
    shape, n = model.observation_space.shape, getattr(model.action_space, "n", None)
    if shape != (O.OBS_SIZE,) or n != A.NUM_ACTIONS:
        raise ValueError(f"checkpoint model {model_path!r} has observation shape {shape} and "
                         f"{n} actions; this uno_env has ({O.OBS_SIZE},) and {A.NUM_ACTIONS}")
    return model, card


# ---------------------------------------------------------------------- the agent
class MaskedPolicy:
    """The actor of a MaskablePPO policy as a plain function: logits of one or many observations.

    The usual architecture (flat or :class:`ObsFeatures` input, an MLP of Linear + Tanh/ReLU
    layers) runs as a copy of the weights in numpy, several times faster than torch for one
    observation; any other policy runs through torch."""

    def __init__(self, model: Any):
        import torch

        self.torch = torch
        policy = model.policy
        policy.set_training_mode(False)
        self.policy = policy
        self.layers = self._numpy_layers(policy)

    @staticmethod
    def _numpy_layers(policy: Any) -> list | None:
        import torch.nn as nn
        from stable_baselines3.common.torch_layers import FlattenExtractor

        layers: list = []
        fx = policy.pi_features_extractor
        if type(fx).__name__ == "ObsFeatures":
            layers.append(("select", fx.keep.numpy().copy(), fx.scale.numpy().copy()))
        elif not isinstance(fx, FlattenExtractor):
            return None
        modules = list(policy.mlp_extractor.policy_net) + [policy.action_net]
        for m in modules:
            if isinstance(m, nn.Linear):
                layers.append(("linear", m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy()))
            elif isinstance(m, (nn.Tanh, nn.ReLU)):
                layers.append((type(m).__name__.lower(), None, None))
            else:
                return None
        return layers

    def logits(self, observations: np.ndarray) -> np.ndarray:
        x = np.asarray(observations, np.float32).reshape(-1, O.OBS_SIZE)
        if self.layers is None:
            return self._torch_logits(x)
        for kind, a, b in self.layers:
            if kind == "linear":
                x = x @ a + b
            elif kind == "tanh":
                x = np.tanh(x)
            elif kind == "relu":
                x = np.maximum(x, 0.0)
            else:  # select
                x = x[:, a] * b
        return x

    def _torch_logits(self, x: np.ndarray) -> np.ndarray:
        torch, policy = self.torch, self.policy
        with torch.inference_mode():
            features = policy.extract_features(torch.as_tensor(x), policy.pi_features_extractor)
            return policy.action_net(policy.mlp_extractor.forward_actor(features)).numpy()

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


_MODELS: dict[tuple, tuple[MaskedPolicy, dict]] = {}
MAX_CACHED_MODELS = 16


def load_policy(path: str, rules: Rules | None = None, num_players: int | None = None
                ) -> tuple[MaskedPolicy, dict]:
    """A cached :class:`MaskedPolicy` for ``path`` (reloaded when the files change)."""
    model_path, card_path = checkpoint_files(path)
    try:
        key = (os.path.realpath(model_path), os.path.getmtime(model_path), os.path.getmtime(card_path))
    except OSError:
        key = None  # load_model names the missing file
    if key is None or key not in _MODELS:
        if AGENT_TORCH_THREADS is not None:
            import torch

            torch.set_num_threads(AGENT_TORCH_THREADS)
        model, card = load_model(path)
        entry = (MaskedPolicy(model), card)
        if key is not None:
            if len(_MODELS) >= MAX_CACHED_MODELS:
                del _MODELS[next(iter(_MODELS))]  # the oldest
            _MODELS[key] = entry
    else:
        entry = _MODELS[key]
    check_card(entry[1], rules, num_players, where=f"checkpoint {path!r}")
    return entry


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
    """The policy of a checkpoint directory (loaded once per process)."""

    def __init__(self, path: str, rules: Rules, num_players: int, seed: int | None = None,
                 deterministic: bool = True):
        policy, self.card = load_policy(path, rules, num_players)
        name = f"checkpoint:{path}" + ("" if deterministic else "#sample")
        super().__init__(policy, rules, num_players, seed, deterministic, name)
        self.path = path


def _make_checkpoint_agent(spec: str, rules: Rules, num_players: int, seed: int | None) -> Agent:
    path = spec.split(":", 1)[1] if ":" in spec else ""
    deterministic = True
    if path.endswith("#sample"):
        path, deterministic = path[:-len("#sample")], False
    if not path:
        raise ValueError(f"agent spec {spec!r} needs a path: checkpoint:<dir>")
    return CheckpointAgent(path, rules, num_players, seed, deterministic)


register_agent("checkpoint", _make_checkpoint_agent)


# ---------------------------------------------------------------------- policy input
def _build_obs_features():
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class ObsFeatures(BaseFeaturesExtractor):
        """The policy's input layer: the observation without the empty opponent slots of a
        ``num_players`` table, with hand sizes and the pending count scaled to about [0, 1].
        (Two players: 326 of the 1254 entries; the first layers get ~4x cheaper.)"""

        def __init__(self, observation_space, num_players: int):
            keep = list(range(O.OPPONENTS + (num_players - 1) * O.OPP_FIELDS)) + \
                list(range(O.RULES, O.OBS_SIZE))
            super().__init__(observation_space, features_dim=len(keep))
            scale = np.ones(O.OBS_SIZE, np.float32)
            scale[O.PENDING] = 0.25
            scale[O.OPPONENTS + O.OPP_HAND_SIZE:O.RULES:O.OPP_FIELDS] = 0.1  # opponents' hand sizes
            self.register_buffer("keep", torch.as_tensor(keep, dtype=torch.long), persistent=False)
            self.register_buffer("scale", torch.as_tensor(scale[keep]), persistent=False)

        def forward(self, observations):
            return observations.index_select(1, self.keep) * self.scale

    ObsFeatures.__module__, ObsFeatures.__qualname__ = __name__, "ObsFeatures"
    return ObsFeatures


def __getattr__(name: str):
    # ``ObsFeatures`` subclasses an SB3 (torch) class, so it is built on first use: importing
    # this module stays torch-free, and models saved with it load by this name.
    if name == "ObsFeatures":
        cls = globals()["ObsFeatures"] = _build_obs_features()
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
