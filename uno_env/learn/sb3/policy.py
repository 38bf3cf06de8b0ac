"""The SB3 policies of ``training/train.py``: the input layer and the asymmetric actor-critic.

===============================  ==============================================================
:class:`ObsFeatures`             the policy's input layer (the card's ``obs_features`` input,
                                 :func:`uno_env.agents.checkpoint.obs_features_layout`)
:class:`AsymmetricPolicy`        the asymmetric actor-critic of ``critic: state``: the policy
                                 reads :class:`ObsFeatures` (the observation only), the value
                                 network :class:`CriticFeatures` (observation + global state)
:func:`critic_features_layout`   what :class:`CriticFeatures` reads
===============================  ==============================================================

**The asymmetric critic.** With ``UnoGymEnv(critic_state="append")`` an observation is the
1537 entries of the observation followed by the 807 of the global state seen from the learner
(:mod:`uno_env.game.global_state`: every hand and the DRAW pile). :class:`AsymmetricPolicy`
keeps SB3's separate policy and value networks but gives them different inputs: the policy's
:class:`ObsFeatures` selects entries of the observation only (its indices all lie below
1537), the value network's :class:`CriticFeatures` (:func:`critic_features_layout`) reads
those and the global state. So the actor, the part a checkpoint saves, is the same MLP on the
same ``obs_features`` input as with a symmetric critic and acts without the state; the hidden
cards reach only the value estimates (the baseline of the advantages), as in PerfectDou and
Suphx.

The classes subclass torch and SB3 classes, so they are built on first use (importing this
module imports neither). A ``model.zip`` pickles them by name, ``uno_env.learn.sb3.policy.<name>``
(:data:`PICKLED_AS` lists the names models of earlier releases used, which
:func:`uno_env.learn.sb3.save.load_model` reads as these).

**Removed options** (:data:`REMOVED_OPTIONS`). The auxiliary hand-prediction loss
(``hand_loss_coef``, ``HandLossPPO``) and oracle guiding (``oracle``, ``OracleFeatures``) were
measured, gave no gain and were removed (docs/4p-experiments.md). A ``model.zip`` saved
before records them switched off (``hand_loss_coef=0.0``, ``oracle=False``) and loads as it
was; one trained with either switched on is refused, naming it (its safe checkpoint still
plays).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from uno_env.agents import checkpoint as ckpt
from uno_env.game import cards as C
from uno_env.game import global_state as G
from uno_env.game import observation as O
from uno_env.learn import configs


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


REMOVED_OPTIONS = {"hand_loss_coef": (0.0, "hand_loss_coef"), "oracle": (False, "oracle_fade")}
""":class:`AsymmetricPolicy` options that were measured, gave no gain and were removed: option ->
(the value that switched it off, which a ``model.zip`` saved before records; the training
config's key, :data:`uno_env.learn.configs.REMOVED_KEYS`, which says where the study is)"""


class RemovedOptionError(ValueError):
    """A model asks for an option of :data:`REMOVED_OPTIONS` switched on."""


CRITIC_INPUT_SIZE = O.OBS_SIZE + G.GLOBAL_STATE_SIZE  # an observation with the state appended
OBSERVATION_SHAPES = ((O.OBS_SIZE,), (CRITIC_INPUT_SIZE,))  # of the models train.py makes
PICKLED_AS = ("uno_env.agents.sb3",)
"""modules whose names models saved by earlier releases pickled these classes under (0.3-0.5:
``uno_env.agents.sb3``); their ``model.zip`` files load as this module's classes"""


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


def _build_asymmetric() -> dict[str, type]:
    import torch
    import torch.nn as nn
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor

    obs_features = lazy("ObsFeatures")

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
        ``policy_kwargs``: ``num_players`` and SB3's own (``net_arch``, ``activation_fn`` ...);
        the features extractors are fixed. The removed options (:data:`REMOVED_OPTIONS`) are
        accepted switched off, as models saved before record them."""

        def __init__(self, observation_space, action_space, lr_schedule, *args, num_players: int = 2,
                     **kwargs):
            if observation_space.shape != (CRITIC_INPUT_SIZE,):
                raise ValueError(f"AsymmetricPolicy needs observations with the global state appended "
                                 f"(UnoGymEnv(critic_state='append'), shape ({CRITIC_INPUT_SIZE},)), "
                                 f"got shape {observation_space.shape}")
            for key, (off, config_key) in REMOVED_OPTIONS.items():
                if kwargs.pop(key, off) != off:
                    raise RemovedOptionError(f"AsymmetricPolicy option {key!r} was removed: measured, it "
                                             f"gave no gain ({configs.where_written_up(config_key)})")
            self.num_players = num_players
            kwargs.update(share_features_extractor=False, features_extractor_class=obs_features,
                          features_extractor_kwargs={"num_players": num_players})
            super().__init__(observation_space, action_space, lr_schedule, *args, **kwargs)

        def _build_mlp_extractor(self) -> None:
            self.vf_features_extractor = CriticFeatures(self.observation_space, self.num_players)
            self.mlp_extractor = AsymmetricMlpExtractor(
                self.features_dim, self.vf_features_extractor.features_dim, self.net_arch,
                self.activation_fn, self.device)

        def _get_constructor_parameters(self) -> dict[str, Any]:
            return dict(super()._get_constructor_parameters(), num_players=self.num_players)

    built = {"CriticFeatures": CriticFeatures, "AsymmetricMlpExtractor": AsymmetricMlpExtractor,
             "AsymmetricPolicy": AsymmetricPolicy}
    for name, cls in built.items():
        cls.__module__, cls.__qualname__ = __name__, name
    return built


def __getattr__(name: str):
    # The classes above subclass SB3 (torch) classes, so they are built on first use (importing
    # this module costs nothing); the pickles of a model.zip find them by these names.
    if name == "ObsFeatures":
        cls = globals()["ObsFeatures"] = _build_obs_features()
        return cls
    if name in ("CriticFeatures", "AsymmetricMlpExtractor", "AsymmetricPolicy"):
        globals().update(_build_asymmetric())
        return globals()[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def lazy(name: str) -> type:
    """One of the classes above, built on first use and the same class ever after."""
    return globals()[name] if name in globals() else __getattr__(name)
