"""The Stable-Baselines3 side of checkpoints: save a MaskablePPO model, resume one, convert a zip.

torch and sb3-contrib are imported inside the functions that need them (and by the first use
of :class:`ObsFeatures`), so importing this module costs nothing.

==========================  ===================================================================
:class:`ObsFeatures`        the policy input layer ``training/train.py`` uses (the card's
                            ``obs_features`` input, :func:`uno_env.agents.checkpoint.obs_features_layout`)
:class:`AsymmetricPolicy`   the asymmetric actor-critic of ``critic: state``: the policy reads
                            :class:`ObsFeatures` (the observation only), the value network
                            :class:`CriticFeatures` (the observation and the global state);
                            with ``oracle=True`` the policy reads :class:`OracleFeatures`
:class:`OracleFeatures`     oracle guiding: :class:`ObsFeatures`, then the opponents' hands
                            times ``oracle_keep`` (faded to 0 by ``training/train.py``)
:class:`HandLossPPO`        MaskablePPO with the asymmetric policy's auxiliary hand-prediction
                            loss added (``hand_loss_coef``; MaskablePPO itself when it is 0)
:func:`actor_tensors`       the actor of a MaskablePPO model as a card's ``policy`` description
                            and its tensors (an MLP on the raw or ``obs_features`` input)
:func:`masked_policy`       that actor as a numpy :class:`~uno_env.agents.policy.MaskedPolicy`
:func:`set_actor`           the inverse: a checkpoint's actor tensors into a model (a run that
                            starts from a checkpoint, ``init_checkpoint``)
:func:`save_checkpoint`     ``model.zip`` (for resuming) and the safe weights + ``card.json``
:func:`load_model`          the SB3 model of a checkpoint, for ``--resume`` (**trusted input**)
:func:`convert_checkpoint`  an SB3 ``model.zip`` one trusts -> the safe format, checked to play
                            the same; ``uno-convert-checkpoint DIR`` on the command line
==========================  ===================================================================

**Trust.** ``model.zip`` holds pickles (``data`` entries, ``*.pth`` files): loading it with
``MaskablePPO.load`` runs whatever code it contains. :func:`load_model` and the converter load it,
so use them only on files you made or trust; everything that plays a checkpoint
(``checkpoint:<dir>``) reads only the safe files (:mod:`uno_env.agents.checkpoint`).

**The asymmetric critic.** With ``UnoGymEnv(critic_state="append")`` an observation is the
1537 entries of the observation followed by the 807 of the global state seen from the learner
(:mod:`uno_env.game.global_state`: every hand and the DRAW pile). :class:`AsymmetricPolicy`
(``training/train.py`` with ``critic: state``) keeps SB3's separate policy and value networks
but gives them different inputs: the policy's :class:`ObsFeatures` selects entries of the
observation only (its indices all lie below 1537), the value network's :class:`CriticFeatures`
(:func:`critic_features_layout`) reads those and the global state. So the actor, the part a
checkpoint saves, is the same MLP on the same ``obs_features`` input as with a symmetric
critic and acts without the state; the hidden cards reach only the value estimates (the
baseline of the advantages), as in PerfectDou and Suphx.

**The hand-prediction loss** (``AsymmetricPolicy(hand_loss_coef=c)``, ``c`` > 0, trained by
:class:`HandLossPPO`). A linear head on the actor's last hidden layer predicts how many of each
card kind every opponent holds; ``c`` times its squared error against the true hands (the
appended state) joins the PPO loss. It is an auxiliary task (as UNREAL's, or the oracle
guiding of Suphx and PerfectDou): its gradient shapes the actor's hidden layers towards what
the observation says about the hidden hands, but the actor still reads only the observation,
and the head is not part of the checkpoint, which is the same actor as without it.

**Oracle guiding** (``AsymmetricPolicy(oracle=True)``; Suphx's oracle guiding, as
PerfectDou's perfect-information distillation). The actor's input is :class:`OracleFeatures`:
the ``obs_features`` entries, then every opponent's hand (the appended state's HANDS slots
1..n-1, card counts) times a number ``oracle_keep``. ``training/train.py`` (``oracle_fade``)
sets it per rollout, 1 at first, fading linearly to 0, and 0 for the rest of the run: the
policy first learns with the hidden cards in view, then learns to do without them. Decisions:

* The fade scales the oracle inputs by one number rather than dropping each one with a
  probability (Suphx's dropout): the input must be the same when PPO collects a step and when
  it updates on it, or the probability ratio is off by the dropout's noise; a number fixed per
  rollout keeps the two the same.
* The oracle columns of the actor's first layer start at 0, so a fresh (or imitated) policy is
  the same with and without the oracle; behaviour cloning leaves them at 0 (``oracle_keep`` is
  0 outside a training loop, and a loaded model's is 0).
* What a checkpoint saves (:func:`actor_tensors`) is the actor at ``oracle_keep`` 0: the first
  layer without its oracle columns, an ``obs_features`` MLP like any other. A run's final
  checkpoint is taken after the fade; one taken during it (a periodic checkpoint, a league
  snapshot) is the actor with the oracle inputs at 0, so it plays weaker than the policy did.

A ``model.zip`` pickles the input layer as ``uno_env.learn.sb3.ObsFeatures`` (the names
below are how pickles find the classes). Models saved by uno_env 0.1-0.2 named
``uno_env.checkpoint.ObsFeatures`` or ``uno_env.agents.checkpoint.ObsFeatures`` and read
observation layout 0 (1254 entries): they cannot be resumed or converted (their safe
checkpoints still play: ``checkpoint:<dir>``).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any, Mapping, Sequence

import numpy as np

from uno_env import _files
from uno_env.agents import checkpoint as ckpt
from uno_env.agents.policy import MaskedPolicy, PolicyAgent, load_policy
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game import global_state as G
from uno_env.game import observation as O
from uno_env.game.rules import Rules, make_rules
from uno_env.learn.imitation import fit_policy

VERIFY_GAMES = 20
"""games played by ``uno-convert-checkpoint`` to check the converted policy (0: no check)"""
VERIFY_OPPONENT = "heuristic"


# ---------------------------------------------------------------------- the SB3 policy
def _build_obs_features():
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor

    class ObsFeatures(BaseFeaturesExtractor):
        """The policy's input layer: the observation without the empty opponent slots of a
        ``num_players`` table, with hand sizes and the pending count scaled to about [0, 1]
        and the real opponents' HISTORY slots (the card's ``obs_features`` input of the current
        observation layout). Two players: 361 of the 1537 entries."""

        def __init__(self, observation_space, num_players: int):
            keep, scale = ckpt.obs_features_layout(num_players)
            super().__init__(observation_space, features_dim=len(keep))
            self.register_buffer("keep", torch.as_tensor(keep, dtype=torch.long), persistent=False)
            self.register_buffer("scale", torch.as_tensor(scale), persistent=False)

        def forward(self, observations):
            return observations.index_select(1, self.keep) * self.scale

    ObsFeatures.__module__, ObsFeatures.__qualname__ = __name__, "ObsFeatures"
    return ObsFeatures


CRITIC_INPUT_SIZE = O.OBS_SIZE + G.GLOBAL_STATE_SIZE  # an observation with the state appended
OBSERVATION_SHAPES = ((O.OBS_SIZE,), (CRITIC_INPUT_SIZE,))  # of the models this module saves


def opponent_hand_slots(num_players: int) -> np.ndarray:
    """Indices, in an observation with the state appended, of the opponents' hands: the global
    state's HANDS slots 1..n-1 (slot 1 the opponent on the left), a card count of each kind
    each. The one source of what the hand loss predicts and what the oracle reads."""
    first = O.OBS_SIZE + G.HANDS + C.NUM_KINDS  # slot 0 is the observer's own hand
    return np.arange(first, first + (num_players - 1) * C.NUM_KINDS)


def critic_features_layout(num_players: int) -> tuple[np.ndarray, np.ndarray]:
    """``(keep, scale)`` of the asymmetric critic's input, ``x[keep] * scale`` where ``x`` is an
    observation with the global state appended (``critic_state="append"``): the ``obs_features``
    entries, then the global state without its empty seat slots, the pending count and hand
    sizes scaled as in ``obs_features`` (2 players: 361 + 329 entries)."""
    obs_keep, obs_scale = ckpt.obs_features_layout(num_players)
    n = num_players
    state_keep = np.concatenate([
        np.arange(G.HANDS, G.HANDS + n * C.NUM_KINDS),
        np.arange(G.DRAW, G.ACTOR),  # DRAW, TOP, COLOR, PHASE
        np.arange(G.ACTOR, G.ACTOR + n), np.arange(G.TURN, G.TURN + n),
        np.arange(G.PENDING, G.SIZES),  # PENDING, DIRECTION, PLAYED
        np.arange(G.SIZES, G.SIZES + n), np.arange(G.SCORES, G.SCORES + n), np.arange(G.UNO, G.UNO + n),
        np.arange(G.RULES, G.GLOBAL_STATE_SIZE)])
    scale = np.ones(G.GLOBAL_STATE_SIZE, np.float32)
    scale[G.PENDING] = ckpt.PENDING_SCALE
    scale[G.SIZES:G.SCORES] = ckpt.HAND_SIZE_SCALE
    keep = np.r_[obs_keep, O.OBS_SIZE + state_keep].astype(np.int64)
    return keep, np.r_[obs_scale, scale[state_keep]].astype(np.float32)


def _build_hand_loss_ppo() -> type:
    import torch as th
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import explained_variance
    from torch.nn import functional as F

    class HandLossPPO(MaskablePPO):
        """MaskablePPO whose loss also holds the policy's auxiliary hand-prediction loss,
        ``policy.hand_loss_coef * policy.hand_loss(observations)`` on every minibatch
        (:class:`AsymmetricPolicy` with ``hand_loss_coef`` > 0). With any other policy, or a
        coefficient of 0, it is MaskablePPO unchanged. ``train`` is sb3-contrib 2.9's
        ``MaskablePPO.train`` with that one term (and its ``train/hand_loss`` record) added, the
        policy's outputs and the term from one pass through the actor
        (:meth:`AsymmetricPolicy.evaluate_actions_and_hand_loss`); checkpoints load with it
        whatever their coefficient (:func:`load_model`)."""

        def train(self) -> None:
            coef = float(getattr(self.policy, "hand_loss_coef", 0.0))
            if coef == 0.0:
                return super().train()
            self.policy.set_training_mode(True)
            self._update_learning_rate(self.policy.optimizer)
            clip_range = self.clip_range(self._current_progress_remaining)
            if self.clip_range_vf is not None:
                clip_range_vf = self.clip_range_vf(self._current_progress_remaining)
            entropy_losses, pg_losses, value_losses, hand_losses, clip_fractions = [], [], [], [], []
            continue_training = True
            for epoch in range(self.n_epochs):
                approx_kl_divs = []
                for rollout_data in self.rollout_buffer.get(self.batch_size):
                    actions = rollout_data.actions.long().flatten()  # Discrete(195), as everywhere here
                    values, log_prob, entropy, hand_loss = self.policy.evaluate_actions_and_hand_loss(
                        rollout_data.observations, actions, action_masks=rollout_data.action_masks)
                    values = values.flatten()
                    advantages = rollout_data.advantages
                    if self.normalize_advantage:
                        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
                    ratio = th.exp(log_prob - rollout_data.old_log_prob)
                    policy_loss_1 = advantages * ratio
                    policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                    policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()
                    pg_losses.append(policy_loss.item())
                    clip_fractions.append(th.mean((th.abs(ratio - 1) > clip_range).float()).item())
                    if self.clip_range_vf is None:
                        values_pred = values
                    else:
                        values_pred = rollout_data.old_values + th.clamp(
                            values - rollout_data.old_values, -clip_range_vf, clip_range_vf)
                    value_loss = F.mse_loss(rollout_data.returns, values_pred)
                    value_losses.append(value_loss.item())
                    entropy_loss = -th.mean(-log_prob) if entropy is None else -th.mean(entropy)
                    entropy_losses.append(entropy_loss.item())
                    hand_losses.append(hand_loss.item())  # the added term
                    loss = (policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                            + coef * hand_loss)
                    with th.no_grad():
                        log_ratio = log_prob - rollout_data.old_log_prob
                        approx_kl_div = th.mean((th.exp(log_ratio) - 1) - log_ratio).cpu().numpy()
                        approx_kl_divs.append(approx_kl_div)
                    if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                        continue_training = False
                        break
                    self.policy.optimizer.zero_grad()
                    loss.backward()
                    th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                    self.policy.optimizer.step()
                self._n_updates += 1
                if not continue_training:
                    break
            explained_var = explained_variance(self.rollout_buffer.values.flatten(),
                                               self.rollout_buffer.returns.flatten())
            for key, values_ in (("entropy_loss", entropy_losses), ("policy_gradient_loss", pg_losses),
                                 ("value_loss", value_losses), ("hand_loss", hand_losses),
                                 ("approx_kl", approx_kl_divs), ("clip_fraction", clip_fractions)):
                self.logger.record(f"train/{key}", np.mean(values_))
            self.logger.record("train/loss", loss.item())
            self.logger.record("train/explained_variance", explained_var)
            self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
            self.logger.record("train/clip_range", clip_range)
            if self.clip_range_vf is not None:
                self.logger.record("train/clip_range_vf", clip_range_vf)

    return HandLossPPO


def _build_asymmetric() -> dict[str, type]:
    import torch
    import torch.nn as nn
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor

    obs_features = _lazy("ObsFeatures")

    class CriticFeatures(BaseFeaturesExtractor):
        """The value network's input: :func:`critic_features_layout` of an observation with
        the global state appended."""

        def __init__(self, observation_space, num_players: int):
            keep, scale = critic_features_layout(num_players)
            super().__init__(observation_space, features_dim=len(keep))
            self.register_buffer("keep", torch.as_tensor(keep, dtype=torch.long), persistent=False)
            self.register_buffer("scale", torch.as_tensor(scale), persistent=False)

        def forward(self, observations):
            return observations.index_select(1, self.keep) * self.scale

    class OracleFeatures(obs_features):
        """The actor's input under oracle guiding: :class:`ObsFeatures`, then the card counts of
        the opponents' hands (the appended state's HANDS slots 1..n-1, seat order) times
        ``oracle_keep`` (a number, 0 unless a training loop sets it)."""

        def __init__(self, observation_space, num_players: int):
            super().__init__(observation_space, num_players)
            self.obs_dim = self._features_dim
            slots = torch.as_tensor(opponent_hand_slots(num_players))
            self.register_buffer("oracle_slots", slots, persistent=False)
            self._features_dim = self.obs_dim + len(slots)
            self.oracle_keep = 0.0

        def forward(self, observations):
            hands = observations.index_select(1, self.oracle_slots) * self.oracle_keep
            return torch.cat([super().forward(observations), hands], dim=1)

    class AsymmetricMlpExtractor(MlpExtractor):
        """SB3's separate policy and value MLPs, the value MLP on an input of its own size."""

        def __init__(self, feature_dim: int, critic_dim: int, net_arch, activation_fn, device):
            super().__init__(feature_dim, net_arch, activation_fn, device)
            vf_arch = net_arch.get("vf", []) if isinstance(net_arch, dict) else net_arch
            layers, last = [], critic_dim
            for size in vf_arch:
                layers += [nn.Linear(last, size), activation_fn()]
                last = size
            self.value_net = nn.Sequential(*layers).to(device)
            self.latent_dim_vf = last

    class AsymmetricPolicy(MaskableActorCriticPolicy):
        """MaskablePPO's policy with the policy on :class:`ObsFeatures` (the observation
        only) and the value network on :class:`CriticFeatures` (observation + global state).
        ``policy_kwargs``: ``num_players``, ``hand_loss_coef`` (> 0: a ``hand_net`` head and
        :meth:`hand_loss`, for :class:`HandLossPPO`), ``oracle`` (True: the policy reads
        :class:`OracleFeatures`, see :attr:`oracle_keep`) and SB3's own (``net_arch``,
        ``activation_fn`` ...); the features extractors are fixed."""

        def __init__(self, observation_space, action_space, lr_schedule, *args, num_players: int = 2,
                     hand_loss_coef: float = 0.0, oracle: bool = False, **kwargs):
            if observation_space.shape != (CRITIC_INPUT_SIZE,):
                raise ValueError(f"AsymmetricPolicy needs observations with the global state appended "
                                 f"(UnoGymEnv(critic_state='append'), shape ({CRITIC_INPUT_SIZE},)), "
                                 f"got shape {observation_space.shape}")
            if not hand_loss_coef >= 0.0:
                raise ValueError(f"hand_loss_coef must be >= 0, got {hand_loss_coef}")
            if oracle and hand_loss_coef:
                raise ValueError("oracle and hand_loss_coef > 0 together: the hand head would "
                                 "predict hands the actor reads")
            self.num_players, self.hand_loss_coef, self.oracle = num_players, float(hand_loss_coef), bool(oracle)
            kwargs.update(share_features_extractor=False,
                          features_extractor_class=OracleFeatures if oracle else obs_features,
                          features_extractor_kwargs={"num_players": num_players})
            super().__init__(observation_space, action_space, lr_schedule, *args, **kwargs)

        def _build(self, lr_schedule) -> None:
            super()._build(lr_schedule)
            if self.oracle:  # the oracle columns start at 0: the policy is the same without them
                first = [*self.mlp_extractor.policy_net, self.action_net][0]
                with torch.no_grad():
                    first.weight[:, self.pi_features_extractor.obs_dim:] = 0.0

        @property
        def oracle_keep(self) -> float:
            """The factor of the oracle inputs (``oracle=True``; 0 otherwise, and on a model
            just built or loaded): 1 shows the opponents' hands, 0 hides them."""
            return self.pi_features_extractor.oracle_keep if self.oracle else 0.0

        @oracle_keep.setter
        def oracle_keep(self, value: float) -> None:
            if not self.oracle:
                raise ValueError("oracle_keep: this policy was built without oracle=True")
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"oracle_keep must be in [0, 1], got {value}")
            self.pi_features_extractor.oracle_keep = float(value)

        def _build_mlp_extractor(self) -> None:
            self.vf_features_extractor = CriticFeatures(self.observation_space, self.num_players)
            self.mlp_extractor = AsymmetricMlpExtractor(
                self.features_dim, self.vf_features_extractor.features_dim, self.net_arch,
                self.activation_fn, self.device)
            if self.hand_loss_coef > 0:  # built here, so the optimizer made next trains it too
                self.hand_net = nn.Linear(self.mlp_extractor.latent_dim_pi,
                                          (self.num_players - 1) * C.NUM_KINDS).to(self.device)

        def hand_loss(self, observations, latent=None):
            """The auxiliary loss: squared error of the hand head's count of each card kind in
            each opponent's hand, read off the actor's last hidden layer (``latent``, computed
            if not given), against the true counts (the global state's HANDS slots 1..n-1),
            averaged over entries. Its gradient reaches the actor's layers but no hidden card
            reaches the actor's input."""
            if latent is None:
                latent = self.mlp_extractor.forward_actor(self.pi_features_extractor(observations))
            slots = opponent_hand_slots(self.num_players)
            target = observations[:, slots[0]:slots[-1] + 1]
            return torch.nn.functional.mse_loss(self.hand_net(latent), target)

        def evaluate_actions_and_hand_loss(self, obs, actions, action_masks=None):
            """``evaluate_actions``'s ``(values, log_prob, entropy)`` and :meth:`hand_loss`,
            from one pass through the actor (the update of :class:`HandLossPPO`)."""
            pi_features, vf_features = self.extract_features(obs)
            latent_pi = self.mlp_extractor.forward_actor(pi_features)
            distribution = self._get_action_dist_from_latent(latent_pi)
            if action_masks is not None:
                distribution.apply_masking(action_masks)
            values = self.value_net(self.mlp_extractor.forward_critic(vf_features))
            return (values, distribution.log_prob(actions), distribution.entropy(),
                    self.hand_loss(obs, latent_pi))

        def _get_constructor_parameters(self) -> dict[str, Any]:
            return dict(super()._get_constructor_parameters(), num_players=self.num_players,
                        hand_loss_coef=self.hand_loss_coef, oracle=self.oracle)

    built = {"CriticFeatures": CriticFeatures, "OracleFeatures": OracleFeatures,
             "AsymmetricMlpExtractor": AsymmetricMlpExtractor,
             "AsymmetricPolicy": AsymmetricPolicy, "HandLossPPO": _build_hand_loss_ppo()}
    for name, cls in built.items():
        cls.__module__, cls.__qualname__ = __name__, name
    return built


def __getattr__(name: str):
    # The classes below subclass SB3 (torch) classes, so they are built on first use (importing
    # this module costs nothing); the pickles of a model.zip find them by these names.
    if name == "ObsFeatures":
        cls = globals()["ObsFeatures"] = _build_obs_features()
        return cls
    if name in ("CriticFeatures", "OracleFeatures", "AsymmetricMlpExtractor", "AsymmetricPolicy", "HandLossPPO"):
        globals().update(_build_asymmetric())
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _lazy(name: str) -> type:
    """One of the classes above, built on first use and the same class ever after."""
    return globals()[name] if name in globals() else __getattr__(name)


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
    oracle = type(fx).__name__ == "OracleFeatures"  # its actor is saved at oracle_keep 0
    if shape != (O.OBS_SIZE,) and type(fx).__name__ != "ObsFeatures" and not oracle:
        raise ValueError("the model's observations hold the global state and its actor does not "
                         "read them through ObsFeatures: it may have seen hidden cards")
    if type(fx).__name__ == "ObsFeatures" or oracle:
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
    if oracle:  # the oracle inputs at 0: their columns of the first layer drop out
        tensors["actor.0.weight"] = tensors["actor.0.weight"][:, :fx.obs_dim]
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
            weight = torch.as_tensor(np.asarray(tensors[f"actor.{i}.weight"]))
            if layer.weight.shape != weight.shape:  # OracleFeatures: its oracle columns start at 0
                layer.weight.zero_()
            layer.weight[:, :weight.shape[1]].copy_(weight)
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


# ---------------------------------------------------------------------- imitation
def imitate(model: Any, demos: Any, epochs: int = 4, batch_size: int = 1024, learning_rate: float = 1e-3,
            seed: int = 0, fit_actor: bool = True) -> dict[str, float]:
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
                     batch_size=batch_size, learning_rate=learning_rate, seed=seed, fit_actor=fit_actor)
    policy.set_training_mode(False)
    return fit


# ---------------------------------------------------------------------- save and resume
def save_checkpoint(model: Any, directory: str, card: dict[str, Any], resumable: bool = True) -> dict:
    """Write the checkpoint of ``model`` into ``directory``: ``model.zip`` first (when
    ``resumable``), then the actor's weights and ``card.json`` (its ``policy`` filled in from
    the model), each file atomically. Returns the card as written."""
    from uno_env import _atomic

    description, tensors = actor_tensors(model, card["num_players"])
    os.makedirs(directory, exist_ok=True)
    if resumable:
        with _atomic.atomic_write(os.path.join(directory, ckpt.MODEL_FILE), "wb") as fh:
            model.save(fh)
    return ckpt.save_policy(directory, dict(card, format=ckpt.CARD_FORMAT, policy=description), tensors)


def load_model(path: str, rules: Rules | None = None, num_players: int | None = None,
               env: Any = None, device: str = "cpu") -> tuple[Any, dict]:
    """``(model, card)``: the SB3 model of the checkpoint directory ``path``, for resuming
    training. TRUSTED INPUT ONLY: ``model.zip`` is unpickled (this runs code it holds). The card
    (format 1 or 2) is validated and checked against ``rules``/``num_players`` first."""
    directory = ckpt.checkpoint_dir(path)
    card = ckpt.load_card(directory, require_policy=False)
    ckpt.check_card(card, rules, num_players, where=f"checkpoint {directory!r}")
    return _load_zip(os.path.join(directory, ckpt.MODEL_FILE), env, device), card


def _load_zip(model_path: str, env: Any = None, device: str = "cpu") -> Any:
    if not os.path.isfile(model_path):
        raise ckpt.CheckpointNotFoundError(f"checkpoint model {model_path!r} not found")
    try:
        model = _lazy("HandLossPPO").load(model_path, env=env, device=device)
    except Exception as e:  # zipfile.BadZipFile, KeyError, pickle errors, torch errors ...
        raise ckpt.CheckpointError(f"checkpoint model {model_path!r} is corrupt or not a MaskablePPO "
                                   f"model: {type(e).__name__}: {e}") from None
    shape, n = model.observation_space.shape, getattr(model.action_space, "n", None)
    if shape not in OBSERVATION_SHAPES or n != A.NUM_ACTIONS:
        old = " (observation layout 0: it cannot be resumed; its safe checkpoint still plays)" \
            if shape == (O.V0_SIZE,) else ""
        raise ckpt.CheckpointError(f"checkpoint model {model_path!r} has observation shape {shape} "
                                   f"and {n} actions; this uno_env has ({O.OBS_SIZE},) and {A.NUM_ACTIONS}{old}")
    return model


# ---------------------------------------------------------------------- conversion
def convert_checkpoint(path: str, out: str | None = None, rules: Any = None,
                       num_players: int | None = None, verify_games: int = VERIFY_GAMES,
                       seed: int = 0) -> tuple[dict, dict | None]:
    """Convert the SB3 ``model.zip`` of the checkpoint directory ``path`` (TRUSTED INPUT: it is
    unpickled) into the safe format, in ``out`` (default: in place; ``model.zip`` is left as it
    is). The card of ``path`` gives the rules and player count (``rules``/``num_players`` for a
    directory without a card). Then ``verify_games`` games are played and, on every decision
    of every seat, the safe policy loaded back from ``out`` must pick the SB3 policy's action.
    Returns ``(card, check)``; ``ValueError`` on any problem or disagreement."""
    directory = ckpt.checkpoint_dir(path)
    if os.path.isfile(os.path.join(directory, ckpt.CARD_FILE)):
        card = ckpt.load_card(directory, require_policy=False)
        if rules is not None or num_players is not None:
            ckpt.check_card(card, make_rules(rules) if rules is not None else None, num_players,
                            where=f"checkpoint {directory!r}")
    elif rules is None or num_players is None:
        raise ckpt.CheckpointNotFoundError(
            f"{os.path.join(directory, ckpt.CARD_FILE)!r} not found: pass the rules and player "
            f"count the model was trained for (--rules, --num-players)")
    else:
        card = None
    model = _load_zip(os.path.join(directory, ckpt.MODEL_FILE))
    if card is None:
        card = ckpt.make_card(rules=make_rules(rules), num_players=num_players,
                              total_steps=model.num_timesteps, wall_time_s=0.0)
    card = dict(card, converted_from=ckpt.MODEL_FILE)
    written = save_checkpoint(model, out or directory, card, resumable=False)
    check = None
    if verify_games > 0:
        n = written["num_players"]
        policy, _ = load_policy(out or directory, ckpt.card_rules(written), n)
        check = compare_policies(model, policy, ckpt.card_rules(written), n, verify_games, seed)
        if check["different_actions"]:
            raise ValueError(f"the converted policy picks another action than the SB3 policy on "
                             f"{check['different_actions']} of {check['observations']} observations "
                             f"(max logit difference {check['max_logit_diff']:.3g})")
    return written, check


def compare_policies(model: Any, policy: MaskedPolicy, rules: Rules, num_players: int,
                     games: int, seed: int = 0) -> dict[str, Any]:
    """Play ``games`` games (the safe policy, greedy, against ``heuristic`` seats; seats
    rotated) and compare, on the observation and mask of every decision of every seat, the
    action of ``policy`` with ``model.predict(..., action_masks=mask, deterministic=True)``."""
    from uno_env.agents.base import make_agent
    from uno_env.game.engine import Engine
    from uno_env.game.observation import ObservationEncoder

    engine = Engine(rules, num_players)
    encoder = ObservationEncoder(engine)
    me = PolicyAgent(policy, rules, num_players)
    others = [make_agent(VERIFY_OPPONENT, rules, num_players, seed=seed + s) for s in range(num_players)]
    rng = np.random.default_rng(seed)
    observations, masks = [], []
    for g in range(games):
        state = engine.new_state(rng, dealer=num_players - 1)
        seats = [me if s == g % num_players else others[s] for s in range(num_players)]
        while not state.game_over and state.steps < rules.max_steps:
            p = state.actor
            obs, mask = encoder.encode(state, p), A.legal_mask(engine.legal_actions(state))
            observations.append(obs)
            masks.append(mask)
            engine.step(state, int(seats[p].act(obs, mask)))
    obs, mask = np.stack(observations), np.stack(masks).astype(bool)
    ours = policy.act(obs, mask)
    theirs, _ = model.predict(obs, action_masks=mask, deterministic=True)
    diff = np.abs(policy.logits(obs) - sb3_logits(model, obs))
    return {"games": games, "observations": len(obs),
            "different_actions": int((ours != np.asarray(theirs)).sum()),
            "max_logit_diff": float(diff.max())}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="uno-convert-checkpoint",
        description="Convert the SB3 model.zip of a checkpoint directory into the safe format "
                    "(card.json + safetensors weights) that checkpoint:<dir> loads. The model.zip is "
                    "UNPICKLED, which runs any code it holds: convert only files you trust (your own "
                    "runs, or from someone you trust).")
    p.add_argument("path", metavar="DIR", help="checkpoint directory holding model.zip (and card.json)")
    p.add_argument("--out", default=None, metavar="DIR",
                   help="write the safe checkpoint here (default: into DIR, next to model.zip)")
    p.add_argument("--rules", default=None, help="rules of a directory without card.json")
    p.add_argument("--num-players", type=int, default=None, help="players of a directory without card.json")
    p.add_argument("--verify-games", type=int, default=VERIFY_GAMES, metavar="N",
                   help=f"games played to check that both policies pick the same actions "
                        f"(default {VERIFY_GAMES}; 0: no check)")
    p.add_argument("--seed", type=int, default=0, help="seed of the check games")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        if args.out is not None:  # a file there: refused before the model is unpickled and checked
            _files.check_directory(args.out, "--out")
        card, check = convert_checkpoint(args.path, args.out, args.rules, args.num_players,
                                         args.verify_games, args.seed)
    except (ValueError, OSError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    out = args.out or args.path
    print(f"wrote {os.path.join(out, card['policy']['weights'])} and {os.path.join(out, ckpt.CARD_FILE)} "
          f"(input {card['policy']['input']}, layers {card['policy']['sizes']}, {card['policy']['activation']})")
    if check is not None:
        print(f"checked on {check['observations']} observations of {check['games']} games: the same "
              f"action as the SB3 policy on all, max logit difference {check['max_logit_diff']:.2g}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
