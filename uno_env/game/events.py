"""Public events: what every player at the table sees happen, as the engine records it.

The engine records events only when asked (``Engine(rules, n, record_events=True)``; off by
default, so training pays nothing): each decision appends zero or more :class:`Event` to
``state.events``. Readers (the terminal game, game logs, replays, the browser table, golden
playthroughs) take the events after an index they remember, instead of diffing states.

Events are **public information only**: a draw says how many cards, never which; the answers
given inside a catch / jump-in / offer window appear only through their public outcome (a
catch penalty, the jump-in that was played, the offers shown when the window closes); a hand
shown to a challenger alone is not an event (the challenge's outcome is).

An event is ``Event(kind, seat, card, value)``; unused fields are -1.

=============  ===========  ========  ==================================================
kind           seat         card      value
=============  ===========  ========  ==================================================
DEALT          dealer       first     round number (1 = first round)
                            card
PLAYED         player       card      colour index after the play
JUMPED_IN      player       card      colour index after the play
DREW           player       -1        cards drawn by a turn's draw (draw rule)
PENALTY        player       -1        cards drawn as a penalty: a Draw Two / Draw Four /
                                      SEWERS taken, a lost challenge, a SEVEN slap
CAUGHT         offender     -1        cards drawn for not calling UNO
ESCAPED        offender     -1        -1 (a catch window closed and nobody caught them)
UNO            player       -1        -1 (a public UNO call, or auto mode's call)
CHALLENGED     challenger   -1        1: the Wild Draw Four was illegal, 0: it was legal
COLOR_CHOSEN   player       -1        colour index (colour of a first-card wild)
DISCARDED      player       card      -1 (a villain discarded after a Team Attack)
SKIPPED        player       -1        -1 (that player loses its turn)
REVERSED       -1           -1        new direction: +1 clockwise, -1 counter-clockwise
ASKED          player       -1        -1 (asked the others for a card)
OFFERED        player       card      -1 (an offer, shown when the offer window closes)
TOOK           player       card      seat of the giver
REVEALED       player       card      -1 (a card shown to everyone: SEWERS draws)
RESHUFFLED     -1           -1        cards in the new DRAW pile
ROUND_OVER     winner       -1        points left in the other hands at the round's end
GAME_OVER      winner       -1        -1
=============  ===========  ========  ==================================================
"""

from __future__ import annotations

from typing import NamedTuple

EVENT_NAMES = ("dealt", "played", "jumped_in", "drew", "penalty", "caught", "uno", "challenged",
               "color_chosen", "discarded", "skipped", "reversed", "asked", "offered",
               "took", "revealed", "reshuffled", "round_over", "game_over", "escaped")
(DEALT, PLAYED, JUMPED_IN, DREW, PENALTY, CAUGHT, UNO, CHALLENGED, COLOR_CHOSEN, DISCARDED,
 SKIPPED, REVERSED, ASKED, OFFERED, TOOK, REVEALED, RESHUFFLED, ROUND_OVER, GAME_OVER,
 ESCAPED) = range(len(EVENT_NAMES))
NUM_EVENT_KINDS = len(EVENT_NAMES)


class Event(NamedTuple):
    """One public event (see the module table for what each field means per kind)."""

    kind: int
    seat: int = -1
    card: int = -1
    value: int = -1

    def to_dict(self) -> dict:
        """JSON-able form with the kind's name (card and colour stay indices)."""
        return {"kind": EVENT_NAMES[self.kind], "seat": self.seat, "card": self.card, "value": self.value}
