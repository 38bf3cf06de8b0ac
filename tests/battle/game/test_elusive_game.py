"""Game 6, Elusive bonus, rule by rule on stacked decks (docs/TMNT-BATTLE.md: E1-E7)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from uno_env.battle.game import make_encoder
from uno_env.battle.game.elusive import SHOUT, SHOUT_IT, SILENT, WATCH

from battle_helpers import card_set, character, deal, engine_of, kinds, names_of

CARDS = card_set([character(x, 1) for x in "ABCD"], bonuses=[("Bon", "skill", 4)])  # 8 cards, 4 bonus


def game(n=2, piles=None, deal_=4, **overrides):
    e = engine_of("elusive", n, cards=CARDS, deal=deal_, **overrides)
    return e, deal(e, piles or {0: ["A", "Bon", "B", "Bon"], 1: ["Bon", "C", "Bon", "D"]}, first=0)


@pytest.mark.parametrize("n, each, aside", [(2, 20, 4), (3, 14, 2), (4, 11, 0)])
def test_twenty_cards_each_or_as_many_as_divide_equally_the_rest_aside(n, each, aside):
    e = engine_of("elusive", n)
    s = e.new_state(np.random.default_rng(0), first=0)
    assert [len(p) for p in s.piles] == [each] * n and len(s.aside) == aside and s.unseen == [each] * n


@pytest.mark.parametrize("n, each, aside", [(2, 10, 24), (3, 6, 26), (4, 5, 24)])
def test_deal_to_all_deals_twenty_cards_in_all_shared_equally(n, each, aside):
    e = engine_of("elusive", n, deal_to="all")
    s = e.new_state(np.random.default_rng(0), first=0)
    assert [len(p) for p in s.piles] == [each] * n and len(s.aside) == aside


def test_a_right_call_goes_on_and_a_wrong_one_takes_the_cards_of_the_round():
    e, s = game()
    assert s.phase == SHOUT and s.actor == 0
    e.step(s, SILENT)  # A: right
    assert names_of(e, s.table) == ["A"] and s.actor == 1
    e.step(s, SILENT)  # Bon without a shout: wrong, seat 1 takes A and Bon
    assert kinds(e, s)[-2:] == ["laid", "took_pile"] and not s.table
    assert names_of(e, list(s.piles[1])) == ["C", "Bon", "D", "A", "Bon"] and s.unseen[1] == 3
    e.step(s, SHOUT_IT)  # seat 0: Bon, right
    assert kinds(e, s)[-2:] == ["shouted", "laid"] and names_of(e, s.table) == ["Bon"]
    e.step(s, SHOUT_IT)  # seat 1: C, wrong
    assert names_of(e, list(s.piles[1]))[-2:] == ["Bon", "C"]


@pytest.mark.parametrize("take", ["round", "table"])
def test_the_cards_of_a_round_without_a_mistake_leave_the_game_or_stay_on_the_table(take):
    e, s = game(take=take)
    e.step(s, SILENT)  # A
    e.step(s, SHOUT_IT)  # Bon: right; the round ends
    if take == "round":
        assert not s.table and kinds(e, s)[-1] == "cleared" and len(s.cleared) == 2
    else:
        assert names_of(e, s.table) == ["A", "Bon"]
    e.step(s, SILENT)  # seat 0: Bon without a shout: it takes the table
    assert names_of(e, list(s.piles[0])) == (["B", "Bon", "Bon"] if take == "round" else
                                             ["B", "Bon", "A", "Bon", "Bon"])


def test_a_player_whose_pile_is_empty_after_a_right_call_wins():
    e, s = game(piles={0: ["A"], 1: ["B"]}, deal_=1)
    e.step(s, SILENT)
    assert s.game_over and s.winners == [0] and e.returns(s) == [1.0, -1.0]


def test_the_round_limit_lets_the_fewest_cards_win():
    e, s = game(max_rounds=1)
    e.step(s, SILENT)  # A: right
    e.step(s, SILENT)  # Bon: wrong, seat 1 takes 2
    assert s.game_over and s.winners == [0] and kinds(e, s)[-2:] == ["limit", "game_over"]


def test_taken_cards_are_known_to_everyone_when_they_come_up():
    e, s = game(piles={0: ["A", "B", "C", "D"], 1: ["Bon", "Bon", "Bon", "Bon"]})
    enc = make_encoder(e)
    e.step(s, SHOUT_IT)  # A with a shout: wrong, A goes under seat 0's pile, seen by all
    assert s.unseen == [3, 4]
    for _ in range(3):
        e.step(s, SHOUT_IT)  # seat 1: Bon, right
        e.step(s, SILENT)  # seat 0: B, C, D, right
    assert names_of(e, list(s.piles[0])) == ["A"] and s.unseen == [0, 1]
    obs = enc.encode(s, 1)  # seat 1's view: seat 0 is slot 1
    assert enc.layout.get(obs, "top_known").tolist() == [0, 1] and enc.layout.get(obs, "top_bonus").tolist() == [0, 0]
    assert enc.layout.get(obs, "unseen_all")[0] * 8 == pytest.approx(1)  # only seat 1's last card is unseen
    assert enc.layout.get(obs, "unseen_bonus")[0] * 8 == pytest.approx(1)


def test_in_the_variant_the_others_shout_a_bonus_makes_the_layer_take_the_cards():
    e, s = game(3, {0: ["A", "B"], 1: ["Bon", "C"], 2: ["D", "Bon"]}, deal_=2, shout="others")
    assert s.phase == WATCH and s.queue == [1, 2]  # seat 0 lays; the others may shout
    e.step(s, SILENT)
    e.step(s, SILENT)  # nobody shouts: A is laid, nothing happens
    assert names_of(e, s.table) == ["A"] and s.layer == 1 and s.queue == [2, 0]
    e.step(s, SILENT)
    e.step(s, SHOUT_IT)  # seat 0 shouts before seat 1's Bon: seat 1 takes the cards
    assert kinds(e, s)[-3:] == ["shouted", "laid", "took_pile"] and s.events[-1].seat == 1


@pytest.mark.parametrize("unshouted, taker", [("free", None), ("layer", 1)])
def test_in_the_variant_a_bonus_card_nobody_shouts_at_is_free_or_the_layers_mistake(unshouted, taker):
    e, s = game(3, {0: ["A", "B"], 1: ["Bon", "C"], 2: ["D", "Bon"]}, deal_=2, shout="others", unshouted=unshouted)
    for _ in range(4):  # nobody shouts before A, then before seat 1's Bon
        e.step(s, SILENT)
    assert names_of(e, s.table) == ([] if taker else ["A", "Bon"]) and s.layer == 2
    took = [ev.seat for ev, kind in zip(s.events, kinds(e, s)) if kind == "took_pile"]
    assert took == ([taker] if taker else [])
    assert names_of(e, list(s.piles[1])) == (["C", "A", "Bon"] if taker else ["C"])


@pytest.mark.parametrize("race", ["random", "seat"])
def test_in_the_variant_a_wrong_shout_takes_the_cards_the_first_shouter_by_race(race):
    takers = set()
    for seed in range(30):
        e = engine_of("elusive", 3, cards=CARDS, deal=2, shout="others", race=race)
        s = deal(e, {0: ["A", "B"], 1: ["Bon", "C"], 2: ["D", "Bon"]}, first=0, seed=seed)
        e.step(s, SHOUT_IT)
        e.step(s, SHOUT_IT)  # both shout before A
        takers.add(s.events[-1].seat)
    assert takers == ({1, 2} if race == "random" else {1})


def test_in_the_variant_the_shouts_stay_hidden_until_all_have_answered():
    e, s = game(3, {0: ["A", "B"], 1: ["Bon", "C"], 2: ["D", "Bon"]}, deal_=2, shout="others")
    enc = make_encoder(e)
    one, other = copy.deepcopy(s), copy.deepcopy(s)
    e.step(one, SHOUT_IT)
    e.step(other, SILENT)
    for q in range(3):
        assert np.array_equal(enc.encode(one, q), enc.encode(other, q))
