"""Game 2, Catch the dragon!, rule by rule on stacked decks (docs/TMNT-BATTLE.md: D1-D5)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from uno_env.battle.game import make_encoder
from uno_env.battle.game.dragon import COVER, COVER_IT, WAIT

from battle_helpers import card_set, character, deal, engine_of, kinds, names_of

DRAGON = [{"name": "Dragon", "ingenuity": 1, "dexterity": 1, "strength": 1, "skill": 1, "copies": 2}]
SMALL = card_set([character(x, 1) for x in "ABCDEF"], DRAGON)  # 8 cards


def answer_all(e, s, answers):
    """Answer the cover window: ``answers`` maps seats to WAIT / COVER_IT (default WAIT)."""
    assert s.phase == COVER
    for _ in range(len(s.queue)):  # one window: the next one opens when it closes
        e.step(s, answers.get(s.actor, WAIT))


def test_players_turn_their_top_cards_onto_the_pile_in_seat_order():
    e = engine_of("dragon", 3, cards=SMALL)
    s = deal(e, {0: ["A", "B"], 1: ["C", "D"], 2: ["E", "F"]}, first=1)
    assert names_of(e, s.common) == ["C"] and s.turner == 1 and kinds(e, s)[-1] == "turned"
    assert s.queue == [2, 0, 1]  # every player answers, the turner last
    answer_all(e, s, {})
    assert names_of(e, s.common) == ["C", "E"] and s.turner == 2


def test_the_first_to_cover_a_dragon_takes_the_pile_under_its_cards_and_turns_next():
    e = engine_of("dragon", 2, cards=SMALL)
    s = deal(e, {0: ["A", "B", "C", "D"], 1: ["Dragon", "E", "F", "Dragon"]}, first=0)
    answer_all(e, s, {})  # A
    assert names_of(e, s.common) == ["A", "Dragon"]
    answer_all(e, s, {0: COVER_IT})
    assert kinds(e, s)[-3:] == ["covered", "took_pile", "turned"]
    assert s.turner == 0 and names_of(e, s.common) == ["B"]
    assert names_of(e, list(s.piles[0])[-2:]) == ["A", "Dragon"]  # the pile, in the order it was laid


def test_a_dragon_nobody_covers_stays_and_the_next_player_turns():
    e = engine_of("dragon", 2, cards=SMALL)
    s = deal(e, {0: ["Dragon", "A"], 1: ["B", "C"]}, first=0)
    answer_all(e, s, {})
    assert names_of(e, s.common) == ["Dragon", "B"] and s.turner == 1


@pytest.mark.parametrize("race", ["random", "seat"])
def test_of_several_who_cover_the_first_is_drawn_at_random_or_the_nearest_left(race):
    takers = set()
    for seed in range(30):
        e = engine_of("dragon", 4, cards=SMALL, race=race)
        s = deal(e, {0: ["Dragon"]}, first=0, seed=seed)
        answer_all(e, s, {0: COVER_IT, 1: COVER_IT, 3: COVER_IT})
        takers.add(next(ev.seat for ev in s.events if ev.kind == 8))  # TOOK_PILE
    assert takers == ({0, 1, 3} if race == "random" else {1})  # seat: from the turner's left, the turner last


@pytest.mark.parametrize("false_cover, moved", [("burn", True), ("none", False)])
def test_covering_no_dragon_costs_the_top_card_under_the_common_pile_or_nothing(false_cover, moved):
    e = engine_of("dragon", 2, cards=SMALL, false_cover=false_cover)
    s = deal(e, {0: ["A", "B", "C", "D"], 1: ["E", "F", "Dragon", "Dragon"]}, first=0)
    answer_all(e, s, {1: COVER_IT})
    if moved:
        assert names_of(e, s.common) == ["E", "A", "F"] and kinds(e, s).count("burned") == 1
        assert len(s.piles[1]) == 2
    else:
        assert names_of(e, s.common) == ["A", "E"] and "burned" not in kinds(e, s)


def test_a_player_without_cards_cannot_pay_a_false_cover_and_the_game_ends():
    e = engine_of("dragon", 2, cards=card_set([character("A", 1)], [dict(DRAGON[0], copies=1)]))
    s = deal(e, {0: ["A"], 1: ["Dragon"]}, first=0)
    answer_all(e, s, {0: COVER_IT})  # seat 0 has no cards left: its cover is not free
    assert "burned" not in kinds(e, s)
    assert s.game_over and s.winners == [1] and names_of(e, s.common) == ["A"]


def test_a_player_without_cards_may_still_cover_a_dragon_and_win_the_pile_back():
    e = engine_of("dragon", 2, cards=card_set([character("A", 1)], [dict(DRAGON[0], copies=1)]))
    s = deal(e, {0: ["A"], 1: ["Dragon"]}, first=0)
    answer_all(e, s, {})  # seat 0 turned its last card; seat 1 turns the dragon
    answer_all(e, s, {0: COVER_IT})
    assert not s.game_over and s.turner == 0 and names_of(e, s.common) == ["A"] and len(s.piles[0]) == 1


def test_a_player_who_pays_its_last_card_for_a_false_cover_plays_on():
    e = engine_of("dragon", 2, cards=SMALL)
    s = deal(e, {0: ["A", "B", "C", "D"], 1: ["E", "F", "Dragon", "Dragon"]}, first=0)
    for _ in range(4):
        answer_all(e, s, {})
    assert names_of(e, s.piles[0]) == ["D"]
    answer_all(e, s, {0: COVER_IT})  # seat 0 covers its own C: it pays with D, its last card
    assert not s.game_over and len(s.piles[0]) == 0 and kinds(e, s).count("burned") == 1
    assert names_of(e, s.common) == ["D", "A", "E", "B", "F", "C", "Dragon"]


def test_at_the_end_the_turner_is_still_who_turned_the_top_card():
    e = engine_of("dragon", 2, cards=SMALL)
    s = deal(e, {0: ["A", "B", "C", "D"], 1: ["E", "F", "Dragon", "Dragon"]}, first=0)
    for _ in range(8):
        answer_all(e, s, {})
    assert s.game_over and s.turner == 1 and names_of(e, s.common)[-1] == "Dragon"  # seat 0 had none to turn
    assert "turned by player_1" in e.describe(s, 0)
    enc = make_encoder(e)
    assert enc.layout.get(enc.encode(s, 0), "turner").tolist() == [0, 1]  # slot 1: seat 1


def test_the_game_ends_when_the_player_who_must_turn_has_none_and_the_most_cards_win():
    e = engine_of("dragon", 2, cards=SMALL)
    s = deal(e, {0: ["A", "B", "C", "D"], 1: ["E", "F", "Dragon", "Dragon"]}, first=0)
    for _ in range(8):
        answer_all(e, s, {})
    assert s.game_over and s.winners == [0, 1] and e.scores(s) == [0, 0]  # nobody holds a card: shared
    e = engine_of("dragon", 2, cards=SMALL)
    s = deal(e, {0: ["A", "B", "C", "D"], 1: ["Dragon", "E", "F", "Dragon"]}, first=0)
    answer_all(e, s, {})
    answer_all(e, s, {1: COVER_IT})  # seat 1 takes A, Dragon
    while not s.game_over:
        answer_all(e, s, {})
    assert s.winners == [1] and e.returns(s) == [-1.0, 1.0]


def test_the_round_limit_counts_the_cards():
    e = engine_of("dragon", 2, cards=SMALL, max_rounds=1)
    s = deal(e, {0: ["A", "B", "C", "D"], 1: ["E", "F", "Dragon", "Dragon"]}, first=0)
    answer_all(e, s, {})
    assert s.game_over and kinds(e, s)[-2:] == ["limit", "game_over"] and s.winners == [1]  # 3 cards against 4


def test_the_cover_answers_stay_hidden_until_the_window_closes():
    e = engine_of("dragon", 3, cards=SMALL)
    enc = make_encoder(e)
    covered = deal(e, {0: ["Dragon"]}, first=0)
    waited = copy.deepcopy(covered)
    e.step(covered, COVER_IT)  # seat 1 covers in one game, waits in the other
    e.step(waited, WAIT)
    for q in range(3):  # nobody's observation tells the two apart
        assert np.array_equal(enc.encode(covered, q), enc.encode(waited, q))
    events = len(covered.events)
    e.step(covered, WAIT)
    assert len(covered.events) == events  # nothing public until the last answer
    e.step(covered, WAIT)
    assert enc.layout.get(enc.encode(covered, 2), "last_covers").tolist() == [0, 0, 1]  # seat 2's slot 2: seat 1
