"""Game 4, Name the character, rule by rule on stacked decks (docs/TMNT-BATTLE.md: N1-N5)."""

from __future__ import annotations

import pytest

from uno_env.battle.game import make_encoder
from uno_env.battle.game.names import GUESS

from battle_helpers import act, card_set, character, deal, engine_of, kinds, legal_names, names_of

CARDS = card_set([character(x, 1) for x in "ABCD"])  # four names, one card each
SAY = ["say A", "say B", "say C", "say D"]


@pytest.mark.parametrize("guess, right_goes", [("right_discards", "middle"), ("wrong_discards", "pile")])
def test_the_guess_decides_where_the_shown_card_goes(guess, right_goes):
    e = engine_of("names", 2, cards=CARDS, guess=guess)
    s = deal(e, {0: ["A", "B"], 1: ["C", "D"]}, first=0)
    assert s.phase == GUESS and s.actor == 0 and legal_names(e, s) == SAY
    act(e, s, "say A")  # right
    assert kinds(e, s)[-1] == "guessed" and s.events[-1].value == 0
    assert names_of(e, s.middle) == (["A"] if right_goes == "middle" else [])
    assert names_of(e, list(s.piles[0])) == (["B"] if right_goes == "middle" else ["B", "A"])
    act(e, s, "say B")  # seat 1: C, wrong
    assert names_of(e, s.middle) == (["A"] if right_goes == "middle" else ["C"])


def test_a_shown_card_put_back_is_known_to_everyone_when_it_comes_up_again():
    e = engine_of("names", 2, cards=card_set([character(x, 1) for x in "ABC"] + [character("D", 1, copies=3)]))
    enc = make_encoder(e)
    s = deal(e, {0: ["A", "D", "D"], 1: ["B", "C", "D"]}, first=0)
    act(e, s, "say B")  # wrong: A goes back under seat 0's pile, shown
    assert list(s.shown[0]) == [False, False, True]
    for q in (0, 1):
        slot = 0 if q == 0 else 1
        obs = enc.encode(s, q)
        assert enc.layout.get(obs, "known").reshape(2, 4)[slot].tolist() == [1, 0, 0, 0]
        assert enc.layout.get(obs, "top_known")[slot] == 0  # D is on top, unseen
    s.piles[0].rotate(-2)  # (as if two more turns had passed) A is on top again
    s.shown[0].rotate(-2)
    obs = enc.encode(s, 1)
    assert enc.layout.get(obs, "top_known")[1] == 1 and enc.layout.get(obs, "top_name")[4:8].tolist() == [1, 0, 0, 0]


def test_no_name_twice_in_a_row_and_none_said_by_another_in_this_round():
    e = engine_of("names", 2, cards=card_set([character(x, 1, copies=2) for x in "ABCD"]))
    s = deal(e, {0: ["B", "C", "D"], 1: ["C", "D", "A"]}, first=0)
    act(e, s, "say A")  # wrong
    assert legal_names(e, s) == ["say B", "say C", "say D"]  # seat 1: A was said in this round
    act(e, s, "say B")
    assert s.rounds == 1 and s.said == []  # a new round begins with the first player
    assert legal_names(e, s) == ["say B", "say C", "say D"]  # seat 0 said A last turn; B is free again
    act(e, s, "say C")
    assert legal_names(e, s) == ["say A", "say D"]  # seat 1 said B last turn, seat 0 said C in this round


def test_in_a_row_last_bans_the_name_just_said_across_the_round_boundary():
    e = engine_of("names", 2, cards=card_set([character(x, 1, copies=2) for x in "ABCD"]), in_a_row="last")
    enc = make_encoder(e)
    s = deal(e, {0: ["B", "C", "D"], 1: ["C", "D", "A"]}, first=0)
    act(e, s, "say A")
    assert legal_names(e, s) == ["say B", "say C", "say D"]  # seat 1: A was just said (and in this round)
    act(e, s, "say B")
    assert s.rounds == 1 and s.said == []
    assert legal_names(e, s) == ["say A", "say C", "say D"]  # seat 0: B was just said; its own A is free
    assert enc.layout.get(enc.encode(s, 0), "just_said").tolist() == [0, 1, 0, 0]
    e_own = engine_of("names", 2, cards=card_set([character(x, 1, copies=2) for x in "ABCD"]))
    s_own = deal(e_own, {0: ["B", "C", "D"], 1: ["C", "D", "A"]}, first=0)
    act(e_own, s_own, "say A")
    act(e_own, s_own, "say B")
    assert "say B" in legal_names(e_own, s_own)  # the default (own): the name just said may be repeated


def test_without_restrictions_every_name_may_be_said():
    e = engine_of("names", 2, cards=CARDS, restrictions=False)
    s = deal(e, {0: ["B", "A"], 1: ["C", "D"]}, first=0)
    act(e, s, "say A")
    assert legal_names(e, s) == SAY
    act(e, s, "say A")
    assert legal_names(e, s) == SAY


def test_the_first_player_without_cards_wins_at_once():
    e = engine_of("names", 2, cards=CARDS)
    s = deal(e, {0: ["A", "B"], 1: ["C", "D"]}, first=0)
    act(e, s, "say A")
    act(e, s, "say D")  # wrong: C back under seat 1's pile
    act(e, s, "say B")
    assert s.game_over and s.winners == [0] and e.returns(s) == [1.0, -1.0]


def test_the_round_limit_lets_the_fewest_cards_win():
    e = engine_of("names", 2, cards=CARDS, max_rounds=1)
    s = deal(e, {0: ["A", "B"], 1: ["C", "D"]}, first=0)
    act(e, s, "say A")  # right: seat 0 keeps 1 card
    act(e, s, "say B")  # wrong: seat 1 keeps 2
    assert s.game_over and s.winners == [0] and kinds(e, s)[-2:] == ["limit", "game_over"]
