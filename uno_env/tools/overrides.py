"""``KEY=VALUE`` overrides for every command line (``--set``, repeatable).

    uno-evaluate --agents heuristic random --set uno_call=explicit --set max_steps=2000
    uno-play --rules tmnt --set episode=game --set target_score=200
    python training/train.py --config configs/train/quick.yaml --run q --set stacking=true --set n_envs=8

:func:`parse_overrides` turns the items into a dict. Decisions:

* The value is read as YAML (:func:`uno_env.game.rules.parse_yaml`: the safe loader, which
  never runs code, and names an integer too long to read): ``true``/``false``
  are booleans, ``7`` an int, ``1e-4`` a float, ``null`` None, ``[1, 2]`` a list, anything
  else a string (``explicit``). Quote a string that would read as another type
  (``name='1'``). An empty value (``key=``) is the empty string. As in YAML 1.2, a number
  in exponent notation without a dot (``1e-4``) is a float too (PyYAML's YAML 1.1 would
  read it as a string).
* The key is everything before the first ``=``, stripped; it must be a word of letters,
  digits and ``_`` (a rule option or config field name). The callers check the names
  (``make_rules`` names unknown rule options).
* A later item for the same key wins; a command line's flags for keys (``--total-steps``)
  win over the items.
* A malformed item (no ``=``, a bad key, YAML that does not parse) is a ``ValueError``
  naming the item; command lines turn it into a one-line error with exit code 2.
"""

from __future__ import annotations

import re
from typing import Any, Iterable

from uno_env.game.rules import parse_yaml, show_value

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_EXP_FLOAT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)[eE][-+]?\d+")  # YAML 1.2 floats like 1e-4


def parse_override(item: str, option: str = "--set") -> tuple[str, Any]:
    """One ``KEY=VALUE`` item as ``(key, value)``; ``ValueError`` naming it if malformed."""
    if not isinstance(item, str):
        raise ValueError(f"{option} expects KEY=VALUE, got {item!r}")
    key, sep, value = item.partition("=")
    key = key.strip()
    if not sep:
        raise ValueError(f"{option} expects KEY=VALUE, got {item!r} (no '=')")
    if not _KEY.fullmatch(key):
        raise ValueError(f"{option} {item!r}: the key must be an option name (letters, digits, _), "
                         f"got {key!r}")
    if not value.strip():
        return key, ""
    parsed = parse_yaml(value, f"{option} {show_value(item)}: the value")  # names a too-long integer
    if isinstance(parsed, str) and _EXP_FLOAT.fullmatch(value.strip()):  # unquoted only
        parsed = float(parsed)
    return key, parsed


def parse_overrides(items: Iterable[str] | None, option: str = "--set", **flags: Any) -> dict[str, Any]:
    """``KEY=VALUE`` items (values read as YAML) as a dict, later items winning, then the
    ``flags`` that are not None (a command line's own options for keys, such as
    ``--total-steps`` for ``total_steps``: they win over the items); ``ValueError`` naming
    the first malformed item."""
    out: dict[str, Any] = {}
    for item in items or ():
        key, value = parse_override(item, option)
        out[key] = value
    out.update({key: value for key, value in flags.items() if value is not None})
    return out
