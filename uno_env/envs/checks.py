"""Input checks shared by the AEC and the Gymnasium env: action ids, seeds, reset options.

Every bad input is a ``ValueError`` that names the type or value and what is accepted; it
is raised before anything changes, so the env stays usable (the same episode goes on, or
the previous one stays in place after a refused ``reset``).

=====================  ==================================================  =============================
input                  accepted                                            otherwise
=====================  ==================================================  =============================
action (live agent)    a Python ``int``, a numpy integer or a 0-d integer  ``ValueError`` naming the type
                       array (``np.array(3)``); ``bool`` is refused        and value
action id              ``0 <= action < NUM_ACTIONS`` (``0..194``)           ``ValueError`` naming the range
``seed``               ``None`` or an integer ``>= 0`` (Python or numpy)   ``ValueError``
``options``            ``None`` or a mapping; keys other than ``deck`` and ``ValueError`` if not a mapping
                       ``dealer`` are ignored (PettingZoo's api_test
                       passes its own)
``options["deck"]``    a list or tuple of card strings, top first, exactly  ``ValueError`` naming the cards
                       the ruleset's deck (:func:`uno_env.game.cards.parse_deck`,
                       :meth:`uno_env.game.engine.Engine.check_deck`)
``options["dealer"]``  ``None`` (drawn with the env RNG) or an integer seat ``ValueError`` naming the range
                       ``0..n-1``
=====================  ==================================================  =============================

Whether an *in-range* action is legal is the env's business: ``raw_env`` raises
``ValueError``, ``env()`` and the Gymnasium view end the episode with -1.

Version history: v0 (first release).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.rules import show_value

_NAME_CHARS = 60  # longest action name quoted in a hint


def show(value: Any) -> str:
    """A short, always printable description of a bad value: ``52.7 (float)``, ``'draw' (str)``."""
    if value is None:
        return "None"
    return f"{show_value(value)} ({type(value).__name__})"


def is_integer(value: Any) -> bool:
    """A Python int (not bool), a numpy integer, or a 0-d integer array."""
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, np.integer)):
        return True
    return isinstance(value, np.ndarray) and value.shape == () and value.dtype.kind in "iu"


def action_id(action: Any, agent: str = "the agent") -> int:
    """``action`` as an action id in ``0..NUM_ACTIONS-1``; ``ValueError`` otherwise."""
    if not is_integer(action):
        hint = ""
        if isinstance(action, str):
            hint = f"; for an action name use env.unwrapped.action_id({action[:_NAME_CHARS]!r})"
        elif action is None:
            hint = "; None is only for a terminated or truncated agent (PettingZoo's dead step)"
        raise ValueError(f"action for {agent} must be an integer action id in 0..{A.NUM_ACTIONS - 1} "
                         f"(Python int, numpy integer or 0-d integer array), got {show(action)}{hint}")
    a = int(action)
    if not 0 <= a < A.NUM_ACTIONS:
        raise ValueError(f"action {show_value(a)} for {agent} is out of range: "
                         f"action ids are 0..{A.NUM_ACTIONS - 1} (Discrete({A.NUM_ACTIONS}))")
    return a


def seed(value: Any) -> int | None:
    """A reset seed: ``None`` or an integer ``>= 0`` (as a Python int)."""
    if value is None:
        return None
    if not is_integer(value) or int(value) < 0:
        raise ValueError(f"seed must be None or an integer >= 0, got {show(value)}")
    return int(value)


def reset_options(options: Any, colors: tuple[str, ...], num_players: int
                  ) -> tuple[list[int] | None, int | None]:
    """``(deck, dealer)`` from reset ``options``: the deck as card kinds (top first) or None,
    the dealer seat or None. Unknown keys are ignored; the deck's *contents* are checked by
    the engine (exactly the ruleset's deck)."""
    if options is None:
        return None, None
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict (keys 'deck', 'dealer'), got {show(options)}")
    deck = options.get("deck")
    if deck is not None:
        try:
            deck = C.parse_deck(deck, colors)
        except ValueError as e:
            raise ValueError(f"reset option 'deck': {e}") from None
    dealer = options.get("dealer")
    if dealer is not None:
        if not is_integer(dealer) or not 0 <= int(dealer) < num_players:
            raise ValueError(f"reset option 'dealer' must be a seat in 0..{num_players - 1} "
                             f"(an integer), got {show(dealer)}")
        dealer = int(dealer)
    return deck, dealer
