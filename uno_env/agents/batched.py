"""Which agents play inside the batched engine: :func:`batched_actor`, the one predicate.

    from uno_env.agents.batched import batched_actor, why_not_batched
    actor = batched_actor("pretrained:classic-2p", rules, 2)   # a BatchedActor, or NotBatched raised
    why_not_batched("search", rules, 2)                        # None if it plays batched, else the reason

The evaluation tools (:mod:`uno_env.tools.batched_table`, :mod:`uno_env.tools.matches`) ask
this module, and only this one, whether a line-up can play on
:class:`~uno_env.game.batched.BatchedEngine`. (The dataset collector asks its own
``uno_env.tools.dataset_batched.why_not_batched``: its random bots must draw the scalar agents'
Mersenne Twister streams, which the evaluation's PCG64 kernels do not, so that every episode
replays through the env.) An agent plays batched as one of two kinds:

``"bot"``: a scripted bot compiled into the engine
    A spec whose kind has a :class:`BotPlayer` in :data:`BOT_PLAYERS` that is available
    (its engine methods exist) and accepts the spec: ``random`` (``random_bot_actions``),
    and, once the engine has them, ``greedy`` (``greedy_actions``: tie-breaks from the stream a
    ``GreedyAgent`` seeded alike draws) and ``heuristic`` with any options
    (``heuristic_actions``: the options as its weights; beliefs per game and seat). A
    :class:`BotPlayer` holds the bot's memory for one line-up entry over a batch: ``start``
    gives it new games (their slots, the entry's seat, a PCG64 stream and the agent seed the
    arena would reset the scalar bot with), ``actions`` decides where it is to act. A new
    compiled bot joins with ``register_batched_bot(name, PlayerClass)``; the evaluation tools,
    the ladder and training's evaluations then play it batched with no other change.
``"policy"``: a numpy policy, evaluated once per batch
    ``checkpoint:<dir>`` and ``pretrained:<name>`` specs (``#sample`` too), and agent
    instances with a ``policy.act(observations, masks, deterministic, rng)`` (a
    :class:`~uno_env.agents.policy.PolicyAgent`): all rows where it decides in one call.
    A policy of observation layout 0 reads the first 1254 entries of the engine's layout-1
    observation.

Everything else (``search``, ``module:`` classes, bots not compiled, other agent instances) is
:class:`NotBatched`, with the reason; so is every agent when numba (the ``batched`` extra) is
not installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from uno_env.agents.base import Agent, make_agent, parse_spec

RNG_WORDS = 6  # a PCG64 stream's words (uno_env.game.batched.pcg64)


class NotBatched(ValueError):
    """This agent cannot play inside the batched engine (the message says why)."""


class BotPlayer:
    """A compiled bot's side of one line-up entry over a batch of ``engine``'s games.

    ``available(engine_class)``: whether this engine has the bot's kernels; ``accepts(spec)``:
    None, or why the compiled bot cannot play this spec. ``needs_seeds``: ``start`` gets the
    agent seeds (computed only for the bots that read them)."""

    needs_seeds = False

    def __init__(self, engine: Any, spec: str):
        self.engine = engine

    @classmethod
    def available(cls, engine_class: type) -> bool:  # pragma: no cover - every player overrides it
        return False

    @classmethod
    def accepts(cls, spec: str) -> str | None:
        parsed = parse_spec(spec)
        if parsed.argument or parsed.sample:
            return f"{spec} has options: the compiled {parsed.kind} plays its defaults only"
        return None

    def start(self, slots: np.ndarray, seats: np.ndarray, streams: np.ndarray, seeds: list | None) -> None:
        """New games in ``slots``: this entry sits at ``seats``; ``streams`` ``(len, 6)`` PCG64
        words for its random choices; ``seeds`` (with ``needs_seeds``) the agent seeds."""

    def actions(self, active: np.ndarray) -> np.ndarray:  # pragma: no cover - every player overrides it
        raise NotImplementedError


class RandomPlayer(BotPlayer):
    """``random``: the compiled bot on a PCG64 stream per game."""

    def __init__(self, engine: Any, spec: str):
        super().__init__(engine, spec)
        self.prng = np.zeros((engine.batch_size, RNG_WORDS), np.uint64)

    @classmethod
    def available(cls, engine_class: type) -> bool:
        return hasattr(engine_class, "random_bot_actions")

    def start(self, slots, seats, streams, seeds) -> None:
        self.prng[slots] = streams

    def actions(self, active):
        return self.engine.random_bot_actions(self.prng, active)


class GreedyPlayer(BotPlayer):
    """``greedy``: ties broken from the Mersenne Twister a ``GreedyAgent`` reset with the game's
    agent seed draws from, so it plays the arena's greedy decision for decision."""

    needs_seeds = True

    def __init__(self, engine: Any, spec: str):
        super().__init__(engine, spec)
        from uno_env.game.batched import bots

        self.streams = bots.GreedyStreams(engine.batch_size, engine.n)

    @classmethod
    def available(cls, engine_class: type) -> bool:
        return hasattr(engine_class, "greedy_actions")

    def start(self, slots, seats, streams, seeds) -> None:
        for b, p, sd in zip(slots.tolist(), seats.tolist(), seeds):
            self.streams.seed_like_agent(b, p, sd)

    def actions(self, active):
        return self.engine.greedy_actions(self.streams, active)


class HeuristicPlayer(BotPlayer):
    """``heuristic[:key=value,...]``: the options as the kernel's weights, beliefs per game and
    seat forgotten at every new game (``Beliefs.reset``)."""

    def __init__(self, engine: Any, spec: str):
        super().__init__(engine, spec)
        from uno_env.agents.heuristic import HeuristicWeights
        from uno_env.game.batched import bots

        self.weights = HeuristicWeights.from_spec(spec).as_array()
        self.beliefs = bots.HeuristicBeliefs(engine.batch_size, engine.n)

    @classmethod
    def available(cls, engine_class: type) -> bool:
        return hasattr(engine_class, "heuristic_actions")

    @classmethod
    def accepts(cls, spec: str) -> str | None:
        return None  # every option is a weight of the kernel (make_agent checks them)

    def start(self, slots, seats, streams, seeds) -> None:
        self.beliefs.reset(slots)

    def actions(self, active):
        return self.engine.heuristic_actions(self.beliefs, self.weights, active)


BOT_PLAYERS: dict[str, type[BotPlayer]] = {"random": RandomPlayer, "greedy": GreedyPlayer,
                                           "heuristic": HeuristicPlayer}


def register_batched_bot(name: str, player: type[BotPlayer]) -> None:
    """The bot spec kind ``name`` plays batched through ``player`` (a :class:`BotPlayer`)."""
    BOT_PLAYERS[name] = player


@dataclass(frozen=True)
class BatchedActor:
    """How one line-up entry plays batched: ``kind`` ``"bot"`` (``player(engine)``: its
    :class:`BotPlayer` for a batch) or ``"policy"`` (``act(observations, masks) -> actions``,
    ``width``: the observation entries it reads)."""

    kind: str
    label: str
    player: Callable[[Any], BotPlayer] | None = None
    act: Callable[[Any, Any], Any] | None = None
    width: int = 0


def _engine_class():
    try:
        from uno_env.game.batched import BatchedEngine
    except ImportError as e:  # numba missing
        raise NotBatched(f"the batched engine is not installed ({e})") from None
    return BatchedEngine


def _policy_actor(agent: Any, label: str) -> BatchedActor | None:
    policy = getattr(agent, "policy", None)
    if policy is None or not callable(getattr(policy, "act", None)):
        return None
    deterministic, rng = getattr(agent, "deterministic", True), agent.rng
    width = int(getattr(policy, "width", 0))
    return BatchedActor("policy", label, act=lambda obs, masks: policy.act(obs, masks, deterministic, rng),
                        width=width)


def batched_actor(spec: Any, rules: Any, num_players: int, seed: int | None = None) -> BatchedActor:
    """How ``spec`` (a spec string or an agent instance) plays batched; :class:`NotBatched`
    naming the reason if it cannot. A spec that is no agent at all (or a bad option) is the
    usual ``ValueError`` of :func:`~uno_env.agents.base.make_agent`."""
    engine_class = _engine_class()
    if isinstance(spec, str):
        parsed = parse_spec(spec)  # ValueError for an unknown spec
        if parsed.is_policy:
            actor = _policy_actor(make_agent(spec, rules, num_players, seed), spec)
            if actor is not None:
                return actor
            raise NotBatched(f"{spec} is no numpy policy")  # pragma: no cover - every policy kind has one
        player = BOT_PLAYERS.get(parsed.kind)
        if player is None or not player.available(engine_class):
            raise NotBatched(f"{spec} has no compiled kernel")
        why = player.accepts(spec)
        if why:
            raise NotBatched(why)
        make_agent(spec, rules, num_players, seed)  # ValueError for a bad option, now
        return BatchedActor("bot", spec, player=lambda engine: player(engine, spec))
    if isinstance(spec, Agent):
        actor = _policy_actor(spec, getattr(spec, "name", type(spec).__name__))
        if actor is not None:
            return actor
    name = getattr(spec, "name", type(spec).__name__)
    raise NotBatched(f"agent instance {name!r} is no policy agent (only policies play batched as instances)")


def why_not_batched(spec: Any, rules: Any, num_players: int) -> str | None:
    """None if ``spec`` plays batched (:func:`batched_actor`), else the reason, in words."""
    try:
        batched_actor(spec, rules, num_players)
    except NotBatched as e:
        return str(e)
    return None
