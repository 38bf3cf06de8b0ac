"""The search's options: :class:`SearchOptions` and its spec strings (``search:key=value,...``).

An unknown key, a key without a value, a value that is not a number (an integer where the
field is one), out of its range, or a key given twice is a ``ValueError`` naming it. What
each option does is described in :mod:`uno_env.agents.search`.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Any, Mapping


@dataclasses.dataclass(frozen=True, slots=True)
class SearchOptions:
    """The search's options (``search:key=value,...``); see :mod:`uno_env.agents.search`."""

    simulations: int = 800  # rollouts per searched decision, shared by the candidate moves
    z: float = 2.0  # the default is replaced only by a move whose mean gain exceeds z standard errors
    margin: float = 0.0  # ... and this mean gain (outcomes +1 / -1)
    halving: int = 1  # 1: successive halving of the candidates; 0: every candidate gets the same samples
    colors: int = 1  # 1: a wild is tried in the colours I hold and the heuristic's; 0: in all four
    voids: int = 2  # sampling of hidden hands: 0 uniform, 1 the Beliefs' colour voids, 2 the Tracker's
    fast: int = 1  # rollout players: 1 the RolloutPolicy on the state, 0 heuristic agents on observations
    max_steps: int = 1000  # a rollout longer than this many decisions is a draw (0)
    opponents: int = 0  # the opponents in rollouts: 0 play as my seat does, 1 as the random bot

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            low, high = BOUNDS[f.name]
            if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
                raise ValueError(f"search option {f.name!r} must be a finite number, got {value!r}")
            if f.name in INTEGER and value != int(value):
                raise ValueError(f"search option {f.name!r} must be an integer, got {value!r}")
            if not low <= value <= high:
                raise ValueError(f"search option {f.name!r} must be in [{low}, {high}], got {value!r}")

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> "SearchOptions":
        """The defaults with ``values`` replaced; ``ValueError`` naming an unknown key."""
        unknown = sorted(set(values) - set(OPTION_NAMES))
        if unknown:
            raise ValueError(f"unknown search option {unknown[0]!r}; known: {sorted(OPTION_NAMES)}")
        return cls(**{k: int(v) if k in INTEGER and isinstance(v, numbers.Real) and v == int(v) else v
                      for k, v in values.items()})

    @classmethod
    def from_spec(cls, spec: str) -> "SearchOptions":
        """``search`` -> the defaults; ``search:simulations=400,z=1.5`` -> those replaced."""
        if ":" not in spec:
            return cls()
        values: dict[str, Any] = {}
        for item in spec.split(":", 1)[1].split(","):
            if not item.strip():
                continue
            key, eq, text = item.partition("=")
            key, text = key.strip(), text.strip()
            if key not in OPTION_NAMES:
                raise ValueError(f"unknown search option {key!r} in {spec!r}; known: {sorted(OPTION_NAMES)}")
            if not eq or not text:
                raise ValueError(f"search option {key!r} has no value in {spec!r} (key=value)")
            if key in values:
                raise ValueError(f"search option {key!r} is given twice in {spec!r}")
            try:
                values[key] = int(text) if key in INTEGER else float(text)
            except ValueError:
                kind = "an integer" if key in INTEGER else "a number"
                raise ValueError(f"search option {key!r} must be {kind}, got {text!r} in {spec!r}") from None
        return cls(**values)


OPTION_NAMES = tuple(f.name for f in dataclasses.fields(SearchOptions))
INTEGER = frozenset(f.name for f in dataclasses.fields(SearchOptions) if f.type in (int, "int"))
BOUNDS = {"simulations": (1, 10 ** 6), "z": (0.0, 100.0), "margin": (0.0, 2.0), "halving": (0, 1),
          "colors": (0, 1), "voids": (0, 2), "fast": (0, 1), "max_steps": (1, 10 ** 6), "opponents": (0, 1)}
