"""Behaviour cloning of an SB3 MaskablePPO model: :func:`imitate`, the warm start of
``training/train.py`` (``imitate_decisions``), on :func:`uno_env.learn.imitation.fit_policy`."""

from __future__ import annotations

from typing import Any

from uno_env.learn.imitation import fit_policy
from uno_env.learn.sb3.policy import CRITIC_INPUT_SIZE

def imitate(model: Any, demos: Any, epochs: int = 4, batch_size: int = 1024, learning_rate: float = 1e-3,
            seed: int = 0, fit_actor: bool = True, progress: bool = False) -> dict[str, float]:
    """Behaviour cloning warm start: fit the policy of a MaskablePPO ``model`` to the teacher's
    actions of ``demos`` (:class:`uno_env.learn.imitation.Demonstrations`; masked
    cross-entropy) and its value network to their returns (squared error), ``epochs`` passes
    of Adam over shuffled minibatches (``fit_actor=False``: the value network alone, the actor
    untouched). Models on observations with the global state appended
    (:class:`AsymmetricPolicy`) need ``demos.states``. Returns the last epoch's mean losses and
    the share of demonstrated actions the policy then picks (greedy):
    :func:`uno_env.learn.imitation.fit_policy`."""
    policy = model.policy
    x = demos.observations
    if model.observation_space.shape == (CRITIC_INPUT_SIZE,):
        if demos.states is None:
            raise ValueError("the model's observations hold the global state: collect the "
                             "demonstrations with critic_state=True")
        x = (x, demos.states)  # side by side, minibatch by minibatch
    elif model.observation_space.shape != demos.observations.shape[1:]:
        raise ValueError(f"demonstrations of shape {demos.observations.shape[1:]} for a model of {model.observation_space.shape}")

    def log_prob_and_value(obs, masks, actions):
        dist = policy.get_distribution(obs, action_masks=masks.numpy())
        return dist.log_prob(actions), policy.predict_values(obs).flatten()

    def greedy(obs, masks):
        return policy.get_distribution(obs, action_masks=masks.numpy()).mode()

    policy.set_training_mode(True)
    fit = fit_policy(policy.parameters(), log_prob_and_value, greedy, x, demos, epochs=epochs,
                     batch_size=batch_size, learning_rate=learning_rate, seed=seed, fit_actor=fit_actor,
                     progress=progress)
    policy.set_training_mode(False)
    return fit
