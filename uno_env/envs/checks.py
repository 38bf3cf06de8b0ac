"""Input checks shared by every env (AEC, Gymnasium view, vector env): action ids, seeds, reset options.

Every bad input is a ``ValueError`` that names the type or value and what is accepted; it
is raised before anything changes, so the env stays usable (the same episode goes on, or
the previous one stays in place after a refused ``reset``). The vector env's checks look at
the whole batch at once (dtype, shape and range with numpy, no Python loop over games).

=====================  ==================================================  =============================
input                  accepted                                            otherwise
=====================  ==================================================  =============================
action (live agent)    a Python ``int``, a numpy integer or a 0-d integer  ``ValueError`` naming the type
                       array (``np.array(3)``); ``bool`` is refused        and value
action id              ``0 <= action < NUM_ACTIONS`` (``0..194``)           ``ValueError`` naming the range
``seed``               ``None`` or an integer ``>= 0`` (Python or numpy)   ``ValueError``
``options``            ``None`` or a mapping with the keys ``deck``,        ``ValueError`` if not a mapping,
                       ``dealer`` (and ``options``, ignored: PettingZoo's    or naming the unknown keys
                       api_test probes ``reset(options={"options": 1})``)
``options["deck"]``    a list or tuple of card strings, top first, exactly  ``ValueError`` naming the cards
                       the ruleset's deck (:func:`uno_env.game.cards.parse_deck`,
                       :meth:`uno_env.game.engine.Engine.check_deck`)
``options["dealer"]``  ``None`` (drawn with the env RNG) or an integer seat ``ValueError`` naming the range
                       ``0..n-1``
=====================  ==================================================  =============================

The vector env (:mod:`uno_env.envs.vector_env`) takes the same seeds and, per call:

=====================  ==================================================  =============================
input                  accepted                                            otherwise
=====================  ==================================================  =============================
actions                an integer array (or a list of Python ints) of       ``ValueError`` naming the
                       shape ``(num_envs,)``, every id in ``0..194``;       dtype, the shape, or the first
                       floats, strings, bools and objects are refused       game out of range
                       (``52.7`` is not read as 52, nor ``"18"`` as 18)
``options``            ``None`` or a mapping with the key ``reset_mask``    ``ValueError`` if not a mapping,
                                                                           or naming the unknown keys
``options              a boolean array of shape ``(num_envs,)`` with at     ``ValueError`` naming the dtype
["reset_mask"]``       least one True (Gymnasium's ``SyncVectorEnv``        or shape
                       contract)
=====================  ==================================================  =============================

Whether an *in-range* action is legal is the env's business: ``raw_env`` raises
``ValueError``, ``env()``, the Gymnasium view and the vector env end the episode with -1.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.inputs import integer_array
from uno_env.game.rules import show_value

_NAME_CHARS = 60  # longest action name quoted in a hint
RESET_OPTIONS = ("deck", "dealer")  # reset options of the AEC env and the Gymnasium view
IGNORED_OPTIONS = ("options",)  # PettingZoo's api_test calls reset(seed=0, options={"options": 1})
VECTOR_RESET_OPTIONS = ("reset_mask",)  # the vector env's (Gymnasium's vector-env option)


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


def option_keys(options: Any, known: Iterable[str], ignored: Iterable[str] = ()) -> None:
    """``ValueError`` unless ``options`` is a mapping whose keys are all in ``known`` or
    ``ignored``; the message names the unknown keys (and a near miss: ``'dek'`` -> ``'deck'``)."""
    known = tuple(known)
    names = ", ".join(repr(k) for k in known)
    if not isinstance(options, Mapping):
        raise ValueError(f"reset options must be a dict (keys {names}), got {show(options)}")
    unknown = [k for k in options if k not in known and k not in ignored]
    if unknown:
        near = [m for k in unknown if isinstance(k, str) for m in difflib.get_close_matches(k, known, 1)]
        hint = f" (did you mean {', '.join(repr(m) for m in near)}?)" if near else ""
        raise ValueError(f"unknown reset option(s) {show_value(unknown)}{hint}; reset options: {names}")


def reset_options(options: Any, colors: tuple[str, ...], num_players: int
                  ) -> tuple[list[int] | None, int | None]:
    """``(deck, dealer)`` from reset ``options``: the deck as card kinds (top first) or None,
    the dealer seat or None. Unknown keys are a ``ValueError`` (``IGNORED_OPTIONS`` aside);
    the deck's *contents* are checked by the engine (exactly the ruleset's deck)."""
    if options is None:
        return None, None
    option_keys(options, RESET_OPTIONS, IGNORED_OPTIONS)
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


def action_ids(actions: Any, num_envs: int, who: str = "the learner") -> np.ndarray:
    """The vector env's ``actions`` as int64 ids ``(num_envs,)``, checked on the whole batch:
    an integer dtype (a list of Python ints is one; a bool in it is refused), shape
    ``(num_envs,)``, every id in ``0..NUM_ACTIONS-1``; ``ValueError`` naming the problem."""
    arr = integer_array(actions, f"actions of {who} (action ids in 0..{A.NUM_ACTIONS - 1}, one per game)")
    if arr.shape != (num_envs,):
        raise ValueError(f"actions of {who} must have shape ({num_envs},), one action id per game, "
                         f"got shape {arr.shape}")
    if arr.min() < 0 or arr.max() >= A.NUM_ACTIONS:
        b = int(np.flatnonzero((arr < 0) | (arr >= A.NUM_ACTIONS))[0])
        raise ValueError(f"action {show_value(int(arr[b]))} of {who} in game {b} is out of range: "
                         f"action ids are 0..{A.NUM_ACTIONS - 1} (Discrete({A.NUM_ACTIONS}))")
    return arr.astype(np.int64, copy=False)


def vector_reset_options(options: Any, num_envs: int) -> np.ndarray:
    """The games a vector env's ``reset`` resets (a boolean mask ``(num_envs,)``) from its
    ``options``: all for None, else ``options["reset_mask"]`` (Gymnasium's vector-env option:
    bools of shape ``(num_envs,)``, at least one True). Unknown keys are a ``ValueError``."""
    if options is None:
        return np.ones(num_envs, bool)
    option_keys(options, VECTOR_RESET_OPTIONS)
    mask = options.get("reset_mask")
    if mask is None:
        return np.ones(num_envs, bool)
    try:
        arr = np.asarray(mask) if isinstance(mask, (np.ndarray, list, tuple)) else None
    except ValueError:  # a ragged list
        arr = None
    if arr is None or arr.dtype.kind != "b" or arr.shape != (num_envs,):
        got = show(mask) if arr is None else f"dtype {arr.dtype} shape {arr.shape}"
        raise ValueError(f"reset option 'reset_mask' must be booleans of shape ({num_envs},), got {got}")
    if not arr.any():
        raise ValueError("reset option 'reset_mask' must select at least one game (every entry is False)")
    return arr.copy()
