"""The question a player must answer now, in words: one text for every front end.

:func:`situation` is what the terminal game (:mod:`uno_env.tools.play`) prints above the
numbered choices and what the browser table (:mod:`uno_env.tools.web.views`) shows as its
prompt. It reads the state only where the player may look (the top card, the pending
penalty, the card it drew, the open offers, who played a Wild Draw Four or forgot to call
UNO: all public, or its own), so a front end may pass the state of a seat's own decision.
"""

from __future__ import annotations

from typing import Any, Callable

from uno_env.game.engine import (CATCH, CHALLENGE, COLOR, DISCARD, DRAWN, JUMP, OFFER, PENDING_DRAW2,
                                 PENDING_DRAW4, PENDING_SEWERS, PHASE_NAMES, TAKE, TURN)

PENDING_TEXT = {PENDING_DRAW2: "Draw Two", PENDING_DRAW4: "Wild Draw Four", PENDING_SEWERS: "FROM THE SEWERS"}


def situation(s: Any, uno_penalty: int, card: Callable[[int], str], label: Callable[[int], str]) -> str:
    """What the actor of ``s`` is asked. ``card(kind)`` names a card, ``label(seat)`` a player."""
    ph = s.phase
    if ph == TURN:
        if s.pending:
            return (f"A penalty of +{s.pending} ({PENDING_TEXT.get(s.pending_kind, 'penalty')}) is on you: "
                    "stack a matching card or draw (take it all).")
        return "Your turn: play a card or draw."
    if ph == DRAWN:
        if s.drawn_from_offer:
            return f"You took {card(s.drawn)}: play it, or draw."
        return f"You drew {card(s.drawn)}: play it, or pass to keep it."
    if ph == CHALLENGE:
        who = label(s.wd4_player) if s.wd4_player >= 0 else "Someone"
        return f"{who} played a Wild Draw Four on you: challenge it, or draw {s.pending}."
    if ph == COLOR:
        return f"The first card is {card(s.discard[-1])}: choose the colour."
    if ph == DISCARD:
        return f"Team Attack: discard a villain card ({s.discards_left} more at most) or pass."
    if ph == CATCH:
        who = label(s.offender) if s.offender >= 0 else "A player"
        return f"{who} has one card left and did not call UNO: catch them (+{uno_penalty} cards for them) or pass."
    if ph == JUMP:
        return f"You hold the same card as the top card, {card(s.discard[-1])}: jump in or pass."
    if ph == OFFER:
        return f"{label(s.turn)} asks for a card: offer one of yours or pass."
    if ph == TAKE:
        offers = [f"take {k}: {label((s.actor + k) % s.n)}'s {card(s.offers[(s.actor + k) % s.n])}"
                  for k in range(1, s.n) if s.offers[(s.actor + k) % s.n] >= 0]
        return "Offers: " + "; ".join(offers) + ". Take one, or pass (draw)."
    return PHASE_NAMES[ph]
