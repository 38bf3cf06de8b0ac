"""Game 5, Bonus battle, rule by rule on stacked decks (docs/TMNT-BATTLE.md: O1-O6)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from uno_env.battle.game import make_encoder
from uno_env.battle.game.bonus import LEAD, RESPOND

from battle_helpers import act, card_set, deal, engine_of, kinds, legal_names

CARDS = card_set(bonuses=[("Ing", "ingenuity", 3), ("Dex", "dexterity", 3), ("Str", "strength", 2),
                          ("Ski", "skill", 2)])
HANDS = {0: ["Ing", "Ski", "Ski", "Dex", "Str"], 1: ["Ing", "Ing", "Dex", "Dex", "Str"]}  # seat 1 has no skill


def game(n=2, hands=HANDS, cards=CARDS, **overrides):
    e = engine_of("bonus", n, cards=cards, **overrides)
    return e, deal(e, hands, first=0)


def sizes(s):
    return [int(h.sum()) for h in s.hands]


def test_only_bonus_cards_are_dealt_and_a_lead_names_its_own_characteristic():
    e = engine_of("bonus", 2)
    assert len(e.deck) == 16 and all(e.cards.types[t].is_bonus for t in e.deck)
    e, s = game()
    assert s.phase == LEAD and legal_names(e, s) == ["lead Ing as ingenuity", "lead Dex as dexterity",
                                                     "lead Str as strength", "lead Ski as skill"]


def test_the_responder_must_answer_with_the_named_characteristic_and_the_leader_takes_both():
    e, s = game(answered="leader")
    act(e, s, "lead Ing as ingenuity")
    assert s.phase == RESPOND and s.actor == 1 and legal_names(e, s) == ["answer Ing"]
    act(e, s, "answer Ing")
    assert kinds(e, s)[-3:] == ["led", "answered", "revealed"] and sizes(s) == [6, 4]
    assert s.leader == 1 and s.actor == 1 and s.phase == LEAD  # "and vice versa"


def test_answered_out_takes_both_cards_out_of_the_game():
    e, s = game()  # the default (O7)
    act(e, s, "lead Ing as ingenuity")
    act(e, s, "answer Ing")
    assert sizes(s) == [4, 4] and [e.bonus_ids[b] for b in s.gone] == [e.card_names.index("Ing")] * 2
    assert s.leader == 1 and not s.known.any()


def test_without_the_characteristic_the_responder_takes_the_card():
    e, s = game()
    act(e, s, "lead Ski as skill")
    assert legal_names(e, s) == ["take"]
    act(e, s, "take")
    assert sizes(s) == [4, 6] and s.known[0, 1].tolist() == [0, 0, 0, 1]  # everyone saw what was named


def test_with_more_players_the_lead_passes_left():
    e, s = game(3, {0: ["Ing", "Dex", "Str"], 1: ["Ing", "Dex", "Ski"], 2: ["Ing", "Dex", "Str"]})
    act(e, s, "lead Str as strength")
    assert s.actor == 1
    act(e, s, "take")
    assert s.leader == 1 and s.actor == 1
    act(e, s, "lead Ski as skill")
    assert s.actor == 2


@pytest.mark.parametrize("no_repeat", [True, False])
def test_no_repeat_bans_the_characteristic_led_last_time(no_repeat):
    e, s = game(no_repeat=no_repeat, answered="leader")  # seat 0 gets its Ing back
    act(e, s, "lead Ing as ingenuity")
    act(e, s, "answer Ing")
    act(e, s, "lead Str as strength")  # seat 1 leads
    act(e, s, "answer Str")  # seat 0 answers: it leads again
    assert ("lead Ing as ingenuity" in legal_names(e, s)) == (not no_repeat)


def test_no_repeat_allows_the_same_characteristic_when_it_is_all_a_player_holds():
    cards = card_set(bonuses=[("Ing", "ingenuity", 4), ("Dex", "dexterity", 4)])
    e, s = game(hands={0: ["Ing", "Ing", "Ing", "Dex"], 1: ["Ing", "Dex", "Dex", "Dex"]}, cards=cards)
    act(e, s, "lead Ing as ingenuity")
    act(e, s, "answer Ing")  # seat 0 takes both
    act(e, s, "lead Dex as dexterity")
    act(e, s, "answer Dex")  # seat 0 answers with its only dexterity: it holds ingenuity alone
    assert s.last_named[0] == 0 and legal_names(e, s) == ["lead Ing as ingenuity"]


def test_with_bluff_any_characteristic_may_be_named_and_the_responder_may_challenge():
    e, s = game(bluff=True)
    assert len(legal_names(e, s)) == 4 * 4
    act(e, s, "lead Ing as skill")
    assert legal_names(e, s) == ["take", "challenge"]  # seat 1 holds no skill
    e, s = game(bluff=True)
    act(e, s, "lead Ski as dexterity")
    assert legal_names(e, s) == ["answer Dex", "challenge"]  # answering a bluff is allowed


def test_a_caught_bluff_returns_the_card_and_costs_the_leader_cards_from_the_challenger():
    e, s = game(bluff=True)
    act(e, s, "lead Ing as skill")
    act(e, s, "challenge")
    assert kinds(e, s)[-2:] == ["challenged", "gave"] and s.events[-2].value == 1
    assert sizes(s) == [6, 4]  # the card back, and one card of seat 1
    assert s.leader == 1


def test_an_honest_lead_challenged_costs_the_challenger_the_card_and_cards_from_the_leader():
    e, s = game(bluff=True, challenge_cost=2)
    act(e, s, "lead Ski as skill")
    act(e, s, "challenge")
    assert s.events[kinds(e, s).index("challenged")].value == 0 and kinds(e, s).count("gave") == 2
    assert sizes(s) == [2, 8]


def test_challenge_cost_zero_moves_only_the_led_card():
    e, s = game(bluff=True, challenge_cost=0)
    act(e, s, "lead Ski as skill")
    act(e, s, "challenge")
    assert "gave" not in kinds(e, s) and sizes(s) == [4, 6]


def test_the_first_player_without_cards_wins():
    cards = card_set(bonuses=[("Ing", "ingenuity", 1), ("Dex", "dexterity", 3)])
    e, s = game(hands={0: ["Ing", "Dex"], 1: ["Dex", "Dex"]}, cards=cards)
    act(e, s, "lead Ing as ingenuity")
    act(e, s, "take")
    act(e, s, "lead Dex as dexterity")
    act(e, s, "answer Dex")  # seat 0 answers with its last card
    assert s.game_over and s.winners == [0] and e.returns(s) == [1.0, -1.0]


def test_the_round_limit_lets_the_fewest_cards_win():
    e, s = game(max_rounds=1)
    act(e, s, "lead Ski as skill")
    act(e, s, "take")
    assert s.game_over and s.winners == [0] and kinds(e, s)[-2:] == ["limit", "game_over"]


def test_with_bluff_a_card_taken_face_down_stays_unknown_to_the_others():
    e, s = game(3, {0: ["Ing", "Dex", "Str"], 1: ["Ing", "Dex", "Ski"], 2: ["Ing", "Dex", "Str"]}, bluff=True)
    enc = make_encoder(e)
    one, other = copy.deepcopy(s), copy.deepcopy(s)
    act(e, one, "lead Str as strength")  # honest
    act(e, other, "lead Ing as strength")  # a bluff
    act(e, one, "take")
    act(e, other, "take")
    assert np.array_equal(enc.encode(one, 2), enc.encode(other, 2))  # seat 2 cannot tell them apart
    assert one.known[0, 1].tolist() == [0, 0, 1, 0] and other.known[0, 1].tolist() == [1, 0, 0, 0]
    assert not one.known[2].any()
