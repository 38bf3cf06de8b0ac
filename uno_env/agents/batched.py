"""Which agents play inside the batched engine: :func:`batched_actor`, the one predicate.

    from uno_env.agents.batched import batched_actor, why_not_batched
    actor = batched_actor("pretrained:classic-2p", rules, 2)   # a BatchedActor, or NotBatched raised
    why_not_batched("heuristic:aggression=2", rules, 2)        # None if it plays batched, else the reason

The evaluation tools (:mod:`uno_env.tools.batched_table`, :mod:`uno_env.tools.matches`) ask
this module, and only this one, whether a line-up can play on
:class:`~uno_env.game.batched.BatchedEngine`. An agent plays batched as one of two kinds:

``"bot"``: a scripted bot compiled into the engine
    A spec without options, ``name``, for which :class:`BatchedEngine` has a method
    ``<name>_bot_actions(prng, active) -> actions`` (``random`` today: ``random_bot_actions``),
    drawing its choices from the ``(B, 6)`` PCG64 words ``prng`` (one stream per game). This is
    the convention a compiled bot follows to join: a method of that name on the engine (or an
    entry in :data:`BOT_METHODS` where the name differs) is all it takes; the evaluation tools,
    the ladder and training's evaluations then play it batched with no other change.
    A bot spec with options (``heuristic:key=value``) plays the scalar arena (the compiled bot
    plays its defaults only).
``"policy"``: a numpy policy, evaluated once per batch
    ``checkpoint:<dir>`` and ``pretrained:<name>`` specs (``#sample`` too), and agent
    instances with a ``policy.act(observations, masks, deterministic, rng)`` (a
    :class:`~uno_env.agents.policy.PolicyAgent`): all rows where it decides in one call.
    A policy of observation layout 0 reads the first 1254 entries of the engine's layout-1
    observation.

Everything else (``greedy``, ``heuristic`` until compiled, ``search``, ``module:`` classes,
other agent instances) is :class:`NotBatched`, with the reason; so is every agent when numba
(the ``batched`` extra) is not installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from uno_env.agents.base import Agent, make_agent, parse_spec

BOT_METHOD_SUFFIX = "_bot_actions"  # BatchedEngine.<name>_bot_actions(prng, active): a compiled bot
BOT_METHODS: dict[str, str] = {  # a bot whose engine method is named otherwise: spec name -> method
    "uniform": "uniform_actions",  # a uniformly random legal action, should a "uniform" agent be registered
}


class NotBatched(ValueError):
    """This agent cannot play inside the batched engine (the message says why)."""


@dataclass(frozen=True)
class BatchedActor:
    """How one line-up entry plays batched: ``kind`` ``"bot"`` (``method``: the engine method's
    name) or ``"policy"`` (``act(observations, masks) -> actions``, ``width``: the observation
    entries it reads)."""

    kind: str
    label: str
    method: str = ""
    act: Callable[[Any, Any], Any] | None = None
    width: int = 0


def _engine_class():
    try:
        from uno_env.game.batched import BatchedEngine
    except ImportError as e:  # numba missing
        raise NotBatched(f"the batched engine is not installed ({e})") from None
    return BatchedEngine


def bot_method(name: str) -> str | None:
    """The engine method of the compiled bot ``name``, or None if it has none."""
    method = BOT_METHODS.get(name, name + BOT_METHOD_SUFFIX)
    return method if callable(getattr(_engine_class(), method, None)) else None


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
    naming the reason if it cannot. A spec that is no agent at all is the usual ``ValueError``
    of :func:`~uno_env.agents.base.parse_spec`."""
    _engine_class()
    if isinstance(spec, str):
        parsed = parse_spec(spec)  # ValueError for an unknown spec
        if parsed.is_policy:
            actor = _policy_actor(make_agent(spec, rules, num_players, seed), spec)
            if actor is not None:
                return actor
            raise NotBatched(f"{spec} is no numpy policy")  # pragma: no cover - every policy kind has one
        if parsed.argument or parsed.sample:
            if bot_method(parsed.kind) is not None:
                raise NotBatched(f"{spec} has options: the compiled {parsed.kind} plays its defaults only")
            raise NotBatched(f"{spec} has no compiled kernel")
        method = bot_method(parsed.kind)
        if method is None:
            raise NotBatched(f"{spec} has no compiled kernel")
        return BatchedActor("bot", spec, method=method)
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
