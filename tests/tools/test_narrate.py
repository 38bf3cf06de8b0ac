"""The one narrator of events (:mod:`uno_env.tools.narrate`): both of its forms word every event
kind; a sentence names the seat, card and colour; an unknown kind is an error, never a guess.
(The table narration of whole games is tested through the terminal game, ``test_play.py``;
the sentences through the golden playthroughs, ``test_golden.py``.)"""

from __future__ import annotations

import pytest

from uno_env.game import cards as C
from uno_env.game import events as E
from uno_env.tools.narrate import SENTENCES, Narrator

COLORS = C.COLOR_SETS["classic"]
NAMES = C.card_names(COLORS)
PLAYERS = [f"player_{i}" for i in range(3)]


def test_every_event_kind_has_a_sentence_and_a_line():
    assert set(SENTENCES) == set(range(E.NUM_EVENT_KINDS))
    narrator = Narrator(NAMES, COLORS, PLAYERS)
    for kind in range(E.NUM_EVENT_KINDS):
        text = narrator.sentence(E.Event(kind, 1, 0, 1))
        assert text and "?" not in text and "{" not in text, (E.EVENT_NAMES[kind], text)
        if kind != E.REVEALED:  # a shown card is told with the penalty that drew it
            assert Narrator(NAMES, COLORS, PLAYERS).lines([E.Event(kind, 1, 0, 1)]), E.EVENT_NAMES[kind]


@pytest.mark.parametrize("event,text", [
    (E.Event(E.PLAYED, 1, 5, 0), "player_1 plays red-5"),
    (E.Event(E.PLAYED, 2, C.WILD, 3), f"player_2 plays {NAMES[C.WILD]} (colour {COLORS[3]})"),
    (E.Event(E.CHALLENGED, 0, -1, 0), "player_0 challenges the Wild Draw Four: it was legal"),
    (E.Event(E.TOOK, 0, 5, 2), "player_0 takes red-5 from player_2"),
    (E.Event(E.REVERSED, -1, -1, -1), "play turns counter-clockwise"),
    (E.Event(E.DREW, 1, -1, 1), "player_1 draws 1 card"),
    (E.Event(E.COLOR_CHOSEN, 7, -1, 9), "? chooses ?"),
])
def test_a_sentence_names_the_seat_the_card_and_the_colour(event, text):
    assert Narrator(NAMES, COLORS, PLAYERS).sentence(event) == text


def test_an_unknown_event_kind_is_an_error():
    narrator = Narrator(NAMES, COLORS, PLAYERS)
    with pytest.raises(ValueError, match="unknown event kind 99"):
        narrator.sentence(E.Event(99))
    with pytest.raises(ValueError, match="unknown event kind 99"):
        narrator.lines([E.Event(99)])
