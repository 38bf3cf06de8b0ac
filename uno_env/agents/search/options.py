"""The search's options: :class:`SearchOptions` and its spec strings (``search:key=value,...``).

Four options are numbers (``simulations``, ``z``, ``margin``, ``max_steps``); the others are
named choices, each described in :data:`CHOICES`:

===============  ============================================================================
option           choices (default first)
===============  ============================================================================
``budget``       ``halving``: the rollouts are spent in rounds of successive halving, the worse
                 half of the candidates (never the default) dropped after each round;
                 ``even``: every candidate gets the same samples
``wild_colors``  ``held``: a wild is tried in the colours still in my hand and in the
                 heuristic's colour for it; ``all``: in all four colours
``deals``        ``tracker``: the hidden hands are dealt leaving out the colours and faces the
                 :class:`~uno_env.agents.search.tracker.Tracker` reads an opponent lacks (two
                 players, where it is active), else as ``beliefs``; ``beliefs``: leaving out
                 the colours the heuristic's ``Beliefs`` believe it lacks; ``uniform``: at random
``rollouts``     ``policy``: every seat of a rollout is played by the
                 :class:`~uno_env.agents.search.rollout.RolloutPolicy` on the engine state
                 (fast); ``agents``: by heuristic agents on observations (slower)
``opponents``    ``heuristic``: the other seats of a rollout play as my seat does; ``random``:
                 as the ``random`` bot
===============  ============================================================================

**Old spellings.** Up to uno_env 0.5.13 the choices were numbers under other keys:
``halving=0/1`` (even, halving), ``colors=0/1`` (all, held), ``voids=0/1/2`` (uniform,
beliefs, tracker), ``fast=0/1`` (agents, policy), ``opponents=0/1`` (heuristic, random).
:data:`OLD_SPELLINGS` reads them as the same options, so specs recorded in results and logs
still build the agent they name.

An unknown key, a key without a value, a value that is not a number (an integer where the
field is one) or not one of its choices, out of its range, or a key given twice is a
``ValueError`` naming it. What each option does is described in :mod:`uno_env.agents.search`.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Any, Mapping

from uno_env.agents.base import parse_spec

# The named choices of each option, each with what it does (the module's table).
CHOICES: dict[str, dict[str, str]] = {
    "budget": {
        "halving": "rounds of successive halving: the worse half of the candidates (never the default) "
                   "is dropped after each",
        "even": "every candidate gets the same samples",
    },
    "wild_colors": {
        "held": "a wild is tried in the colours still in my hand and the heuristic's colour for it",
        "all": "a wild is tried in all four colours",
    },
    "deals": {
        "tracker": "hidden hands leave out the colours and faces the Tracker reads an opponent lacks "
                   "(two players, where it is active), else as beliefs",
        "beliefs": "hidden hands leave out the colours the heuristic's Beliefs believe an opponent lacks",
        "uniform": "hidden hands are dealt at random from the unseen cards",
    },
    "rollouts": {
        "policy": "every seat is played by the RolloutPolicy on the engine state (fast)",
        "agents": "every seat is played by a heuristic agent on its observation (slower)",
    },
    "opponents": {
        "heuristic": "the other seats play as my seat does",
        "random": "the other seats play as the random bot",
    },
}
# Spellings of uno_env 0.5: old key -> (key, the choice each number meant).
OLD_SPELLINGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "halving": ("budget", ("even", "halving")),
    "colors": ("wild_colors", ("all", "held")),
    "voids": ("deals", ("uniform", "beliefs", "tracker")),
    "fast": ("rollouts", ("agents", "policy")),
    "opponents": ("opponents", ("heuristic", "random")),
}


@dataclasses.dataclass(frozen=True, slots=True)
class SearchOptions:
    """The search's options (``search:key=value,...``): numbers, and named choices
    (:data:`CHOICES`, the module's table); see :mod:`uno_env.agents.search`."""

    simulations: int = 800  # rollouts per searched decision, shared by the candidate moves
    z: float = 2.0  # the default is replaced only by a move whose mean gain exceeds z standard errors
    margin: float = 0.0  # ... and this mean gain (outcomes +1 / -1)
    budget: str = "halving"  # how the rollouts are shared by the candidates
    wild_colors: str = "held"  # the colours a wild is tried in
    deals: str = "tracker"  # where the deals of the hidden hands take their beliefs from
    rollouts: str = "policy"  # who plays the seats of a rollout
    max_steps: int = 1000  # a rollout longer than this many decisions is a draw (0)
    opponents: str = "heuristic"  # how the other seats of a rollout play

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in CHOICES:
                if not isinstance(value, str) or value not in CHOICES[f.name]:
                    raise ValueError(f"search option {f.name!r} must be one of {_choices(f.name)}, got {value!r}")
                continue
            low, high = BOUNDS[f.name]
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ValueError(f"search option {f.name!r} must be a finite number, got {value!r}")
            if f.name in INTEGER and value != int(value):
                raise ValueError(f"search option {f.name!r} must be an integer, got {value!r}")
            if not low <= value <= high:
                raise ValueError(f"search option {f.name!r} must be in [{low}, {high}], got {value!r}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "SearchOptions":
        """The defaults with ``values`` replaced (old spellings read as their options);
        ``ValueError`` naming an unknown key."""
        unknown = sorted(set(values) - set(OPTION_NAMES) - set(OLD_SPELLINGS))
        if unknown:
            raise ValueError(f"unknown search option {unknown[0]!r}; known: {sorted(OPTION_NAMES)}")
        out: dict[str, Any] = {}
        for key, value in values.items():
            name, value = _respelled(key, value)
            if name in out:
                raise ValueError(f"search option {name!r} is given twice")
            out[name] = int(value) if name in INTEGER and isinstance(value, numbers.Real) and value == int(value) \
                else value
        return cls(**out)

    @classmethod
    def from_spec(cls, spec: str) -> "SearchOptions":
        """``search`` -> the defaults; ``search:simulations=400,deals=beliefs`` -> those replaced."""
        if ":" not in spec:
            return cls()
        values: dict[str, Any] = {}
        for key, text in parse_spec(spec).options("search option").items():
            if key not in OPTION_NAMES and key not in OLD_SPELLINGS:
                raise ValueError(f"unknown search option {key!r} in {spec!r}; known: {sorted(OPTION_NAMES)}")
            if key in CHOICES or key in OLD_SPELLINGS:
                name = OLD_SPELLINGS[key][0] if key in OLD_SPELLINGS else key
                try:
                    number = int(text) if key in OLD_SPELLINGS and text not in CHOICES[name] else None
                except ValueError:
                    number = None
                if number is not None:
                    name, value = _respelled(key, number)
                elif text in CHOICES[name]:
                    value = text
                else:
                    raise ValueError(f"search option {key!r} must be one of {_choices(name)}, got {text!r} "
                                     f"in {spec!r}")
            else:
                try:
                    name, value = key, int(text) if key in INTEGER else float(text)
                except ValueError:
                    kind = "an integer" if key in INTEGER else "a number"
                    raise ValueError(f"search option {key!r} must be {kind}, got {text!r} in {spec!r}") from None
            if name in values:
                raise ValueError(f"search option {name!r} is given twice in {spec!r}")
            values[name] = value
        return cls(**values)


def _choices(name: str) -> str:
    return ", ".join(repr(c) for c in CHOICES[name])


def _respelled(key: str, value: Any) -> tuple[str, Any]:
    """``(key, value)`` in today's spelling: an old key becomes its option, and its number (or
    a choice's number under its own key, ``opponents=1``) the choice it meant."""
    if key not in OLD_SPELLINGS:
        return key, value
    name, meant = OLD_SPELLINGS[key]
    if isinstance(value, str):  # a named choice under the old key
        return name, value
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or not 0 <= value < len(meant):
        now = f" (now {name!r})" if name != key else ""
        raise ValueError(f"search option {key!r}{now} must be 0..{len(meant) - 1} or one of {_choices(name)}, "
                         f"got {value!r}")
    return name, meant[int(value)]


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(SearchOptions))
INTEGER = frozenset(f.name for f in dataclasses.fields(SearchOptions) if f.type in (int, "int"))
BOUNDS = {"simulations": (1, 10 ** 6), "z": (0.0, 100.0), "margin": (0.0, 2.0), "max_steps": (1, 10 ** 6)}
assert set(CHOICES) | set(BOUNDS) == set(OPTION_NAMES) and not set(CHOICES) & set(BOUNDS)
