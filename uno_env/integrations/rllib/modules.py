"""The learner's RLModules: a masked MLP actor (:class:`MaskedPolicyModule`, the frozen
snapshots) and the learner with its critic (:class:`MaskedPPOModule`); the package docstring,
"The policy", says how they are built."""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis import InferenceOnlyAPI, ValueFunctionAPI
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.utils.torch_utils import FLOAT_MIN
from torch import nn

from uno_env.agents import checkpoint as ckpt
from uno_env.game import actions as A
from uno_env.game.observation import OBS_SIZE
from uno_env.integrations.rllib.multi_agent_env import MASK_KEY, OBS_KEY

ACTIVATIONS = {"tanh": nn.Tanh, "relu": nn.ReLU}
INPUTS = ("obs_features", "raw")


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
