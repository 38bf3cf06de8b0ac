"""The Stable-Baselines3 side of checkpoints: save a MaskablePPO model, resume one, convert a zip.

torch and sb3-contrib are imported inside the functions that need them (and by the first use
of :class:`ObsFeatures`), so importing this module costs nothing.

==========================  ===================================================================
:class:`ObsFeatures`        the policy input layer ``training/train.py`` uses (the card's
                            ``obs_features`` input, :func:`uno_env.agents.checkpoint.obs_features_layout`)
:class:`AsymmetricPolicy`   the asymmetric actor-critic of ``critic: state``: the policy reads
                            :class:`ObsFeatures` (the observation only), the value network
                            :class:`CriticFeatures` (the observation and the global state)
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

**Removed options.** The auxiliary hand-prediction loss (``hand_loss_coef``, ``HandLossPPO``)
and oracle guiding (``oracle``, ``OracleFeatures``) were measured, gave no gain and were
removed (docs/4p-experiments.md). A ``model.zip`` of an asymmetric policy saved before records
them switched off (``hand_loss_coef=0.0``, ``oracle=False``) and loads as it was; one trained
with either switched on is refused, naming it (its safe checkpoint still plays).

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
from uno_env.learn import configs
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


REMOVED_OPTIONS = {"hand_loss_coef": (0.0, "hand_loss_coef"), "oracle": (False, "oracle_fade")}
""":class:`AsymmetricPolicy` options that were measured, gave no gain and were removed: option ->
(the value that switched it off, which a ``model.zip`` saved before records; the training
config's key, :data:`uno_env.learn.configs.REMOVED_KEYS`, which says where the study is)"""


class RemovedOptionError(ValueError):
    """A model asks for an option of :data:`REMOVED_OPTIONS` switched on."""
CRITIC_INPUT_SIZE = O.OBS_SIZE + G.GLOBAL_STATE_SIZE  # an observation with the state appended
OBSERVATION_SHAPES = ((O.OBS_SIZE,), (CRITIC_INPUT_SIZE,))  # of the models this module saves


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
    # The classes below subclass SB3 (torch) classes, so they are built on first use (importing
    # this module costs nothing); the pickles of a model.zip find them by these names.
    if name == "ObsFeatures":
        cls = globals()["ObsFeatures"] = _build_obs_features()
        return cls
    if name in ("CriticFeatures", "AsymmetricMlpExtractor", "AsymmetricPolicy"):
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
    from sb3_contrib import MaskablePPO

    try:
        model = MaskablePPO.load(model_path, env=env, device=device)
    except RemovedOptionError as e:  # trained with an option since removed
        raise ckpt.CheckpointError(f"checkpoint model {model_path!r}: {e}; its safe checkpoint still plays "
                                   f"(checkpoint:<dir>)") from None
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
