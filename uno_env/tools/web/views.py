"""What the browser is sent: one seat's view, the open table, public events, action choices.

Every function here turns server-side game state into plain JSON-able dicts. The guarantee
of the web game rests on :func:`seat_view` and :func:`seat_table`: they read the seat's
*observation* (:func:`uno_env.agents.view.decode` of :mod:`uno_env.game.observation`),
which holds only what that player may know, plus public facts of the state that every
player sees at the table (scores, round, dealer, winner, the player who played a Wild Draw
Four or forgot UNO), and never a hand, the DRAW pile, the acting seat of a window or a
hidden window answer. Events come from the engine's public events
(:mod:`uno_env.game.events`); the only private addition is the cards the seat itself
received (:func:`own_cards_event`).

A seat view (``GET /api/games/{id}``)::

    mode, seat, num_players, rules {name, options}, colors,
    hand [card names], legal_actions [names], choices [{id, name, type, card, color, label}],
    phase (my decision phase, or null while others decide), prompt (the question in words),
    top, color, direction, pending, pending_kind, draw_size, turn, dealer, round,
    hand_sizes, scores, players [{seat, name, spec, short, you, hand_size, uno, score, known,
    offer, dealer, turn}], events [...], over, winner, truncated, round_winner, round_points

``short`` is the agent's display name (:func:`short_spec`), which event texts use too.
``reveal`` (:func:`reveal`) is null until the game is over, then every hand face up with the
points each card scores: the end of a game, where a table shows the hands to count them.

``choices`` are the legal actions with what the page needs to draw them: ``type`` (``play``,
``draw``, ``pass``, ``challenge``, ``uno``, ``catch``, ``color``, ``discard``, ``ask``,
``offer``, ``take``), the ``card`` and ``color`` they concern, and a button ``label``.

An event (``view["events"]``, what happened since the last view, oldest first) is
``{kind, seat, card, color, value, text}`` (``kind`` a name of
:data:`uno_env.game.events.EVENT_NAMES`, or ``got`` for the cards the seat received, or for a
spectator of every hand ``decision`` for a decision without public events; ``card`` a card
name or null); the last event of
every stretch of decisions also carries ``table`` (:func:`seat_table` after it) and ``hand``
(the seat's hand after it), so that the page can replay the moves one by one. In a played
game a stretch ends only where every player sees one end (the human's decision, a regular
turn with no penalty pending, the end: :meth:`uno_env.tools.web.games.Game.public_boundary`),
since which decisions happen in between can depend on hidden cards; in a watched game every
decision is a stretch. A decision without a public event (a hidden window answer) yields no
event at all.

:func:`open_view` is the spectator's view of a watched game or a replay: the whole state,
every hand face up, the acting seat and phase.
"""

from __future__ import annotations

import os
from collections import Counter
from typing import Any, Sequence

from uno_env.agents.view import PENDING_NAMES, View, decode
from uno_env.game import actions as A
from uno_env.game import cards as C
from uno_env.game.engine import (CATCH, CHALLENGE, DISCARD, DRAWN, JUMP, NO_PENDING, OFFER,
                                 PHASE_NAMES, TAKE, TURN)
from uno_env.game.events import EVENT_NAMES, JUMPED_IN, PLAYED
from uno_env.tools.narrate import Narrator
from uno_env.tools.prompts import situation

VIEW_VERSION = 2  # bump on any change to the view's fields (the page reads them)
MAX_SHORT_NAME = 18  # characters of an agent's display name (players[].short)
SAMPLE_SUFFIX = "#sample"  # of a checkpoint spec that samples its moves
DIRECTION_NAMES = {1: "clockwise", -1: "counter-clockwise"}
# event kinds whose ``value`` is a colour index
_COLOR_VALUED = {PLAYED, JUMPED_IN}
PHASE_TEXT = {"turn": "turn", "drawn": "drawn card", "challenge": "challenge", "color": "colour choice",
              "discard": "Team Attack discard", "catch": "UNO catch window", "jump": "jump-in window",
              "offer": "offer window", "take": "take an offer", "over": "over"}
OWN_CARDS = "got"  # the private event: the cards the seat itself received


# ---------------------------------------------------------------------------- helpers
def card_list(counts: Sequence[int], names: Sequence[str]) -> list[str]:
    """Card names of a vector of counts per kind, in kind order."""
    return [names[k] for k, c in enumerate(counts) for _ in range(int(c))]


def short_spec(spec: str) -> str:
    """An agent's display name, at most :data:`MAX_SHORT_NAME` characters: a checkpoint by its
    folder's name (``checkpoint:runs/ppo/best#sample`` -> ``best#sample``), a long spec by its
    kind and its start (the full spec stays in ``players[].spec`` and ``specs``)."""
    if spec.startswith("checkpoint:"):
        path = spec.split(":", 1)[1]
        sample = path.endswith(SAMPLE_SUFFIX)
        path = path[:-len(SAMPLE_SUFFIX)] if sample else path
        spec = (os.path.basename(os.path.normpath(path)) or path) + (SAMPLE_SUFFIX if sample else "")
    return spec if len(spec) <= MAX_SHORT_NAME else spec[:MAX_SHORT_NAME - 1] + "\u2026"


def seat_names(n: int, specs: Sequence[str], you: int | None = None) -> list[str]:
    """How a seat is called in event texts: ``player_1 (heuristic)``, ``player_0 (you)``
    (an agent by its :func:`short_spec`)."""
    return [f"player_{i} ({'you' if i == you else short_spec(specs[i])})" for i in range(n)]


def _observe(u: Any, seat: int, state: Any = None) -> View:
    """The decoded observation of ``seat`` (of ``state``, default the env's)."""
    s = u.game_state if state is None else state
    if s.actor == seat and not s.game_over and s.steps < u.rules.max_steps:
        mask = A.legal_mask(u.engine.legal_actions(s))
    else:
        mask = None
    return decode(u.encoder.encode(s, seat), mask)


def _uno_flags(u: Any, v: View, seat: int, n: int, sizes: list[int]) -> list[bool]:
    flags = [False] * n
    flags[seat] = v.uno_called
    for o in v.opponents:
        flags[(seat + o.offset) % n] = o.uno_called
    if u.rules.uno_call == "auto":  # the call is made for the player: one card says it
        flags = [x == 1 for x in sizes]
    return flags


def seat_table(u: Any, seat: int, state: Any = None, v: View | None = None) -> dict[str, Any]:
    """The table as ``seat`` sees it: from its observation (and public scores and round)."""
    s = u.game_state if state is None else state
    v = _observe(u, seat, s) if v is None else v
    n = v.num_players
    names = u.card_names
    sizes = [0] * n
    sizes[seat] = v.hand_size
    for o in v.opponents:
        sizes[(seat + o.offset) % n] = o.hand_size
    return {
        "top": names[v.top],
        "color": u.colors[v.color] if v.color >= 0 else None,
        "direction": DIRECTION_NAMES[v.direction],
        "pending": int(v.pending),
        "pending_kind": PENDING_NAMES[v.pending_kind] if v.pending_kind != NO_PENDING else None,
        "draw_size": int(round(v.draw_fraction * len(u.engine.deck))),
        "turn": (seat + v.turn_offset) % n,
        "hand_sizes": sizes,
        "uno": _uno_flags(u, v, seat, n, sizes),
        "scores": [int(x) for x in s.scores],  # public (announced at every round's end)
        "round": int(s.round) + (0 if s.game_over else 1),
        "dealer": int(s.dealer),
    }


def result(u: Any, s: Any) -> dict[str, Any]:
    """The end of the game so far: over, winner, truncated, the last round's winner and points."""
    truncated = bool(u.engine.truncated(s))
    return {
        "over": bool(s.game_over or truncated),
        "winner": int(s.winner) if s.game_over else None,
        "truncated": truncated,
        "round_winner": int(s.round_winner) if s.round_winner >= 0 else None,
        "round_points": [int(x) for x in s.round_points],
        "reveal": reveal(u, s),
    }


def reveal(u: Any, s: Any) -> dict[str, Any] | None:
    """Every hand face up with what each card scores, once the game is over (as a table shows
    them to count the points), else None: ``{hands [[card]], points [[int]], left [int]
    (points per hand), round_points, scores}``."""
    if not s.game_over:
        return None
    pts, names = u.engine.points, u.card_names
    hands = [[int(k) for k in u.engine.hand_cards(s, q)] for q in range(s.n)]
    return {"hands": [[names[k] for k in h] for h in hands],
            "points": [[int(pts[k]) for k in h] for h in hands],
            "left": [sum(int(pts[k]) for k in h) for h in hands],
            "round_points": [int(x) for x in s.round_points], "scores": [int(x) for x in s.scores]}


# ---------------------------------------------------------------------------- choices
def choices(u: Any, v: View, seat: int, state: Any = None) -> list[dict[str, Any]]:
    """The seat's legal actions (``v.legal``) as buttons for the page."""
    s = u.game_state if state is None else state
    names, colors, n = u.card_names, u.colors, v.num_players
    phase = v.phase
    out = []
    for a in v.legal:
        c: dict[str, Any] = {"id": a, "name": u.action_names[a], "card": None, "color": None}
        if a < A.DRAW:
            k = A.played_kind(a)
            c.update(type="play", card=names[k])
            verb = "Jump in with" if phase == JUMP else ("Stack" if phase == CHALLENGE else "Play")
            c["label"] = f"{verb} {names[k]}"
            if k >= C.NUM_COLORED:
                c["color"] = colors[A.played_color(a)]
                c["label"] += f" ({c['color']})"
        elif a == A.DRAW:
            c["type"] = "draw"
            if phase == CHALLENGE:
                c["label"] = f"Draw {v.pending}"
            elif phase == TURN and v.pending:
                c["label"] = ("Take the SEWERS draw" if PENDING_NAMES[v.pending_kind] == "sewers"
                              else f"Take {v.pending} cards")
            elif phase == DRAWN:
                c["label"] = "Draw instead"
            else:
                c["label"] = "Draw a card"
        elif a == A.PASS:
            c["type"] = "pass"
            c["label"] = {DRAWN: "Keep it", DISCARD: "Stop discarding", CATCH: "Don't catch",
                          JUMP: "Don't jump in", OFFER: "Offer nothing",
                          TAKE: "Take none (draw)"}.get(phase, "Pass")
        elif a == A.CHALLENGE:
            c.update(type="challenge", label="Challenge!")
        elif a == A.UNO:
            c.update(type="uno", label="UNO!")
        elif a == A.CATCH:
            c.update(type="catch", label=f"Catch player_{s.offender}!" if s.offender >= 0 else "Catch!")
        elif A.COLOR <= a < A.DISCARD:
            col = colors[a - A.COLOR]
            c.update(type="color", color=col, label=col.capitalize())
        elif A.DISCARD <= a < A.ASK:
            k = a - A.DISCARD
            c.update(type="discard", card=names[k], label=f"Discard {names[k]}")
        elif a == A.ASK:
            c.update(type="ask", label="Ask for a card")
        elif A.OFFER <= a < A.TAKE:
            k = a - A.OFFER
            c.update(type="offer", card=names[k], label=f"Offer {names[k]}")
        else:
            j = a - A.TAKE + 1
            k = v.opponents[j - 1].offer
            c.update(type="take", card=names[k] if k >= 0 else None,
                     label=f"Take player_{(seat + j) % n}'s {names[k] if k >= 0 else 'card'}")
            c["from"] = (seat + j) % n
        out.append(c)
    return out


def prompt(u: Any, v: View, seat: int, state: Any = None) -> str:
    """The question the seat must answer now, in words ("" while others decide):
    :func:`uno_env.tools.prompts.situation`, the terminal game's text."""
    if v.phase < 0:
        return ""
    names = u.card_names
    return situation(u.game_state if state is None else state, u.rules.uno_penalty,
                     names.__getitem__, lambda q: f"player_{q}")


# ---------------------------------------------------------------------------- views
def seat_view(u: Any, seat: int, specs: Sequence[str], state: Any = None,
              events: list[dict[str, Any]] | None = None, mode: str = "play") -> dict[str, Any]:
    """What ``seat`` may know, as the page's view (module doc)."""
    s = u.game_state if state is None else state
    v = _observe(u, seat, s)
    n = v.num_players
    table = seat_table(u, seat, s, v)
    names = u.card_names
    players = []
    for q in range(n):
        p = {"seat": q, "name": f"player_{q}", "spec": specs[q], "short": short_spec(specs[q]), "you": q == seat,
             "hand_size": table["hand_sizes"][q], "uno": table["uno"][q],
             "score": table["scores"][q], "known": [], "offer": None,
             "dealer": q == table["dealer"], "turn": q == table["turn"]}
        if q != seat:
            o = v.opponents[(q - seat) % n - 1]
            p["known"] = card_list(o.known, names)
            p["offer"] = names[o.offer] if o.offer >= 0 else None
        players.append(p)
    view = {
        "version": VIEW_VERSION, "mode": mode, "seat": seat, "num_players": n,
        "rules": {"name": u.rules.name, "options": u.rules.to_dict()},
        "colors": list(u.colors),
        "hand": card_list(v.hand, names),
        "legal_actions": [u.action_names[a] for a in v.legal],
        "choices": choices(u, v, seat, s),
        "phase": PHASE_NAMES[v.phase] if v.phase >= 0 else None,
        "prompt": prompt(u, v, seat, s),
        **table,
        "players": players,
        "events": list(events or []),
    }
    view.update(result(u, s))
    return view


def open_table(u: Any, state: Any = None) -> dict[str, Any]:
    """The whole table, every hand face up (a spectator's or a replay's)."""
    s = u.game_state if state is None else state
    names = u.card_names
    n = s.n
    return {
        "top": names[s.discard[-1]],
        "color": u.colors[s.color] if s.color >= 0 else None,
        "direction": DIRECTION_NAMES[s.direction],
        "pending": int(s.pending),
        "pending_kind": PENDING_NAMES[s.pending_kind] if s.pending_kind != NO_PENDING else None,
        "draw_size": len(s.draw_pile),
        "turn": int(s.turn),
        "actor": int(s.actor) if s.actor >= 0 else None,
        "phase": PHASE_NAMES[s.phase],
        "hand_sizes": [int(x) for x in s.hand_size],
        "uno": [bool(x) for x in s.uno_called],
        "scores": [int(x) for x in s.scores],
        "round": int(s.round) + (0 if s.game_over else 1),
        "dealer": int(s.dealer),
        "hands": [[names[k] for k in u.engine.hand_cards(s, q)] for q in range(n)],
    }


def open_view(u: Any, specs: Sequence[str], events: list[dict[str, Any]] | None = None,
              mode: str = "watch", state: Any = None) -> dict[str, Any]:
    """A spectator's view: every hand, the acting seat and its phase (no choices)."""
    s = u.game_state if state is None else state
    table = open_table(u, s)
    n = s.n
    players = [{"seat": q, "name": f"player_{q}", "spec": specs[q], "short": short_spec(specs[q]), "you": False,
                "hand_size": table["hand_sizes"][q], "uno": table["uno"][q],
                "score": table["scores"][q], "known": [], "offer": None,
                "dealer": q == table["dealer"], "turn": q == table["turn"],
                "cards": table["hands"][q]} for q in range(n)]
    view = {
        "version": VIEW_VERSION, "mode": mode, "seat": None, "num_players": n,
        "rules": {"name": u.rules.name, "options": u.rules.to_dict()},
        "colors": list(u.colors), "hand": [], "legal_actions": [], "choices": [],
        "prompt": "", **table, "players": players, "events": list(events or []),
    }
    view.update(result(u, s))
    return view


# ---------------------------------------------------------------------------- events
def event_dicts(u: Any, events: Sequence[Any], players: Sequence[str]) -> list[dict[str, Any]]:
    """Engine events (:class:`uno_env.game.events.Event`) as JSON dicts with their text."""
    names, colors = u.card_names, u.colors
    narrator = Narrator(names, colors, players)
    out = []
    for e in events:
        kind, seat, card, value = (int(x) for x in e)
        out.append({
            "kind": EVENT_NAMES[kind], "seat": seat if seat >= 0 else None,
            "card": names[card] if card >= 0 else None,
            "color": colors[value] if kind in _COLOR_VALUED and 0 <= value < len(colors) else None,
            "value": value,
            "text": narrator.sentence(e),
        })
    return out


def own_cards_event(u: Any, seat: int, before: Counter, after: Counter) -> dict[str, Any] | None:
    """The private event "you received ..." for the cards ``seat`` got in one decision."""
    got = after - before
    if not got:
        return None
    cards = sorted(got.elements())
    return {"kind": OWN_CARDS, "seat": seat, "card": None, "color": None, "value": len(cards),
            "cards": [u.card_names[k] for k in cards],
            "text": "you received " + ", ".join(u.card_names[k] for k in cards)}
