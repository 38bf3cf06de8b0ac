"""uno_env.game.decks: the ruleset's deck as card strings and the stacked deck that deals a
chosen position (RULES.md 2.2); its refusals name the problem. (The deal itself, through an
env's reset, is checked in test_engine_rules.py.)"""
from collections import Counter

import numpy as np
import pytest

import uno_env
from uno_env.game.decks import deck_cards, stacked_deck
from uno_env.game.rules import make_rules


@pytest.mark.parametrize("preset", ["classic", "tmnt", "house"])
def test_deck_cards_is_the_rulesets_deck_in_card_kind_order(preset):
    rules = make_rules(preset)
    cards = deck_cards(rules)
    assert len(cards) == rules.deck_size()
    assert Counter(cards) == Counter(deck_cards(preset))  # a preset name reads the same rules


def test_stacked_deck_deals_the_hands_the_first_card_and_the_draw_top_through_reset():
    env = uno_env.raw_env(rules="classic", num_players=3)
    hands = {0: ["wild-draw4", "red-5"], 2: ["blue-skip"]}
    deck = stacked_deck("classic", 3, 1, hands, "green-7", ["yellow-2"])
    assert Counter(deck) == Counter(deck_cards("classic"))
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    snap = env.snapshot()
    for seat, cards in hands.items():
        assert not Counter(cards) - Counter(snap["hands"][f"player_{seat}"])
    assert snap["top"] == "green-7" and snap["draw_pile"][0] == "yellow-2"


def test_stacked_deck_does_not_depend_on_any_random_state():
    np.random.seed(1)
    one = stacked_deck("tmnt", 4, 2, {1: ["purple-3"]}, "blue-9")
    np.random.seed(2)
    assert stacked_deck("tmnt", 4, 2, {1: ["purple-3"]}, "blue-9") == one


@pytest.mark.parametrize("args, message", [
    (("classic", 2, 0, {0: ["red-5"] * 3}, "red-9"), "placed too often"),
    (("classic", 2, 0, {0: ["purple-5"]}, "red-9"), "'purple-5'"),
    (("classic", 2, 0, {5: ["red-5"]}, "red-9"), "seats [5]"),
    (("classic", 2, 0, {0: ["red-1"] * 2 + ["red-2"] * 2 + ["red-3"] * 2 + ["red-4"] * 2}, "red-9"),
     "given 8 cards"),
    (("classic", 11, 0, {}, "red-9"), "num_players 11"),
    (("classic", 2, 2, {}, "red-9"), "dealer 2"),
])
def test_stacked_deck_refuses_an_impossible_position_naming_it(args, message):
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("]", r"\]")):
        stacked_deck(*args)
