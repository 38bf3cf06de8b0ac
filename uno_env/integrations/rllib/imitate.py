"""Behaviour cloning of the learner module before PPO (:func:`imitate_learner`; the package
docstring, "Imitation first")."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from uno_env.game.observation import OBS_SIZE
from uno_env.integrations.rllib.modules import MaskedPPOModule, mask_logits
from uno_env.integrations.rllib.multi_agent_env import OBS_KEY
from uno_env.integrations.rllib.specs import LEARNER, learner_module_spec
from uno_env.integrations.rllib.weights import module_state, set_module_state
from uno_env.learn.imitation import fit_policy


def imitate(module: MaskedPPOModule, demos: Any, epochs: int = 4, batch_size: int = 1024,
            learning_rate: float = 1e-3, seed: int = 0, fit_actor: bool = True,
            progress: bool = False) -> dict[str, float]:
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
                     fit_actor=fit_actor, progress=progress)
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
