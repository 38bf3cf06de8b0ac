"""One scenario test per rule of RULES.md sections 2-5, 7 and 8, from stacked decks.

Every scenario goes through ``uno_env.raw_env`` and asserts on ``snapshot()``, the engine
state, the action masks and the observations. Seats: ``player_i`` is seat i; seat i+1 is
to the left of seat i; the player to the left of the dealer plays first.
"""

from __future__ import annotations

import glob
import json
import os
import random
from collections import Counter

import numpy as np
import pytest

import uno_env
from uno_env.game import cards as C
from uno_env.game import observation as O
from uno_env.game.rules import PRESET_DIR, PRESETS, Rules, make_rules, preset

from helpers import (CLASSIC_COLORS, TMNT_COLORS, P, act, assert_conserved, deck_cards, hand, legal_names,
                     opp_block, reset_stacked, stacked_deck)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def make(rules="classic", n=3, **overrides):
    """A raw env (not reset)."""
    return uno_env.raw_env(rules=rules, num_players=n, **overrides)


def counts_vector(env, cards_: list[str]) -> np.ndarray:
    v = np.zeros(C.NUM_KINDS, np.float32)
    for c in cards_:
        v[env.card_id(c)] += 1
    return v


def known_block(env, observer: int, target: int) -> np.ndarray:
    """Cards ``observer``'s observation says are known to be in ``target``'s hand."""
    return opp_block(env, observer, target)[O.OPP_KNOWN:O.OPP_OFFER]


def played_block(env, observer: int = 0) -> np.ndarray:
    return env.observe(P(observer))["observation"][O.PLAYED:O.PLAYED + C.NUM_KINDS]


def plays(names: set[str]) -> set[str]:
    return {a for a in names if a.startswith("play ")}


# ====================================================================== 2. Setup
def test_stacked_deck_helper_deals_the_requested_hands():
    for rules, n, dealer in (("classic", 2, 1), ("tmnt", 3, 0), ("tmnt", 10, 7), ("classic", 10, 9)):
        env = make(rules, n)
        colors = env.colors
        hands = {s: [f"{colors[s % 4]}-{1 + s // 4}", "wild" if s < 8 else "wild-draw4"]
                 for s in range(0, n, 2)}
        reset_stacked(env, dealer, hands, f"{colors[1]}-9", [f"{colors[2]}-8", f"{colors[3]}-7"])
        snap = env.snapshot()
        for s, cards_ in hands.items():
            assert not Counter(cards_) - hand(env, s)
        assert all(len(h) == 7 for h in snap["hands"].values())
        assert snap["top"] == f"{colors[1]}-9"
        assert snap["draw_pile"][:2] == [f"{colors[2]}-8", f"{colors[3]}-7"]
        assert snap["dealer"] == P(dealer)
        assert_conserved(env)


def test_deal_round_robin_from_left_of_dealer_then_first_card_then_draw_pile():
    env = make("classic", 4)
    deck = deck_cards("classic")
    random.Random(5).shuffle(deck)
    # make the card after the deal (index 28) a number card, so no first-card effect applies
    i = next(i for i in range(28, len(deck)) if deck[i].split("-")[-1].isdigit())
    deck[28], deck[i] = deck[i], deck[28]
    env.reset(seed=0, options={"deck": deck, "dealer": 2})
    snap = env.snapshot()
    for seat in range(4):
        # round r gives card 4r + j to the player j+1 seats left of the dealer (seat 2)
        expected = [deck[4 * r + (seat - 3) % 4] for r in range(7)]
        assert Counter(snap["hands"][P(seat)]) == Counter(expected)
    assert snap["discard_pile"] == [deck[28]]
    assert snap["draw_pile"] == deck[29:]
    assert snap["dealer"] == P(2)
    assert snap["current"] == P(3) and env.agent_selection == P(3)
    assert snap["direction"] == "clockwise"
    assert snap["phase"] == "turn"
    assert snap["color"] == deck[28].split("-")[0]


def test_dealer_chosen_by_seeded_rng_uniformly_and_fixed_by_option():
    env = make("classic", 4)
    dealers = Counter()
    for seed in range(80):
        env.reset(seed=seed)
        dealers[env.snapshot()["dealer"]] += 1
    assert set(dealers) == {P(i) for i in range(4)}
    assert min(dealers.values()) >= 8  # roughly uniform (expected 20 each)
    env.reset(seed=3)
    first = env.snapshot()
    env.reset(seed=3)
    assert env.snapshot() == first
    for d in range(4):
        env.reset(seed=3, options={"dealer": d})
        assert env.snapshot()["dealer"] == P(d)


def test_first_card_number_player_left_of_dealer_plays_clockwise():
    env = make("classic", 3)
    reset_stacked(env, 1, {2: ["red-3"]}, "red-9")
    snap = env.snapshot()
    assert snap["current"] == P(2) and snap["phase"] == "turn" and snap["color"] == "red"
    assert snap["pending_draw"] == 0
    assert all(len(h) == 7 for h in snap["hands"].values())
    act(env, "play red-3", P(2))
    assert env.agent_selection == P(0)


@pytest.mark.parametrize("n", [2, 3])
def test_first_card_draw_two_first_player_draws_two_and_is_skipped(n):
    env = make("classic", n)
    reset_stacked(env, 0, {}, "red-draw2", ["blue-7", "green-8", "yellow-9"])
    snap = env.snapshot()
    assert len(snap["hands"][P(1)]) == 9
    assert not Counter({"blue-7": 1, "green-8": 1}) - hand(env, 1)
    assert snap["draw_pile"][0] == "yellow-9"
    assert snap["pending_draw"] == 0
    assert snap["current"] == P(2 % n) and snap["phase"] == "turn"
    assert snap["top"] == "red-draw2" and snap["color"] == "red"
    assert_conserved(env)


def test_first_card_reverse_dealer_plays_first_and_play_goes_right():
    env = make("classic", 4)
    reset_stacked(env, 1, {1: ["red-5"], 0: ["red-6"]}, "red-reverse")
    snap = env.snapshot()
    assert snap["current"] == P(1)  # the dealer
    assert snap["direction"] == "counter-clockwise"
    assert all(len(h) == 7 for h in snap["hands"].values())
    act(env, "play red-5", P(1))
    assert env.agent_selection == P(0)
    act(env, "play red-6", P(0))
    assert env.agent_selection == P(3)


def test_first_card_reverse_two_players_skips_the_first_player():
    env = make("classic", 2)
    reset_stacked(env, 0, {0: ["red-5"], 1: ["red-6"]}, "red-reverse")
    snap = env.snapshot()
    # seat 1 (left of the dealer) is skipped: the dealer, seat 0, plays first
    assert snap["current"] == P(0) and snap["phase"] == "turn"
    assert all(len(h) == 7 for h in snap["hands"].values())
    act(env, "play red-5", P(0))
    assert env.agent_selection == P(1)


@pytest.mark.parametrize("n,expected", [(3, 2), (4, 2), (2, 0)])
def test_first_card_skip_first_player_is_skipped(n, expected):
    env = make("classic", n)
    reset_stacked(env, 0, {}, "green-skip")
    snap = env.snapshot()
    assert snap["current"] == P(expected) and snap["phase"] == "turn"
    assert snap["direction"] == "clockwise"
    assert all(len(h) == 7 for h in snap["hands"].values())


def test_first_card_wild_first_player_chooses_colour_then_plays_as_usual():
    env = make("classic", 3)
    p1 = ["green-3", "red-3", "blue-skip", "yellow-9", "red-1", "blue-2", "yellow-4"]
    reset_stacked(env, 0, {1: p1}, "wild")
    snap = env.snapshot()
    assert snap["phase"] == "color" and snap["current"] == P(1) and snap["color"] is None
    assert legal_names(env) == {f"color {c}" for c in CLASSIC_COLORS}
    for other in (P(0), P(2)):
        assert not env.observe(other)["action_mask"].any()
    act(env, "color green", P(1))
    snap = env.snapshot()
    assert snap["phase"] == "turn" and snap["current"] == P(1) and snap["color"] == "green"
    assert hand(env, 1) == Counter(p1)  # no card drawn or played by the colour choice
    # after a wild only the chosen colour matches
    assert legal_names(env) == {"play green-3", "draw"}
    act(env, "play green-3", P(1))
    assert env.agent_selection == P(2)


@pytest.mark.parametrize("seed", range(12))
def test_first_card_wild_draw4_returned_to_deck_reshuffled_and_new_card_turned(seed):
    env = make("classic", 3)
    deck = stacked_deck(env.rules, 3, 0, {}, "wild-draw4", ["red-5", "red-6", "red-7"])
    env.reset(seed=seed, options={"deck": deck, "dealer": 0})
    snap = env.snapshot()
    assert snap["top"] != "wild-draw4"
    assert len(snap["discard_pile"]) == 1
    if snap["top"].split("-")[-1].isdigit():  # no further first-card effect
        assert len(snap["draw_pile"]) == 108 - 21 - 1
        assert snap["current"] == P(1) and snap["phase"] == "turn"
    assert Counter(snap["draw_pile"])["wild-draw4"] == 4  # it went back into the DRAW pile
    assert snap["draw_pile"] != deck[22:] and snap["draw_pile"][:3] != ["red-5", "red-6", "red-7"]
    assert snap["pending_draw"] == 0
    assert_conserved(env)
    # only the new first card counts as played
    expected = np.zeros(C.NUM_KINDS, np.float32)
    expected[env.card_id(snap["top"])] = 1
    assert (played_block(env) == expected).all()
    # same seed, same reshuffle
    env.reset(seed=seed, options={"deck": deck, "dealer": 0})
    assert env.snapshot() == snap


def test_first_card_team_attack_first_player_chooses_colour_without_villain_discard():
    env = make("tmnt", 3)
    p1 = ["blue-1", "orange-2", "red-3", "purple-1", "orange-9", "red-8", "purple-7"]
    reset_stacked(env, 0, {1: p1}, "team-attack")
    assert env.snapshot()["phase"] == "color"
    assert legal_names(env) == {f"color {c}" for c in TMNT_COLORS}
    act(env, "color purple", P(1))
    snap = env.snapshot()
    assert snap["phase"] == "turn" and snap["current"] == P(1) and snap["color"] == "purple"
    assert snap["top"] == "team-attack" and snap["discard_pile"] == ["team-attack"]
    assert hand(env, 1) == Counter(p1)
    assert not any(a.startswith("discard") for a in legal_names(env))
    assert plays(legal_names(env)) == {"play purple-1", "play purple-7"}


# ====================================================================== 3. A turn
MATCH_HAND = ["red-9", "blue-5", "green-skip", "yellow-2", "green-0", "wild", "yellow-draw2"]


def test_match_by_colour_or_number_and_wild_always_playable():
    env = make("classic", 3)
    reset_stacked(env, 2, {0: MATCH_HAND}, "red-5")
    wilds = {f"play wild {c}" for c in CLASSIC_COLORS}
    assert legal_names(env) == {"play red-9", "play blue-5", "draw"} | wilds


def test_match_by_symbol():
    env = make("classic", 3)
    p2 = ["green-skip", "blue-5", "yellow-reverse", "green-draw2", "blue-1", "yellow-9", "green-0"]
    reset_stacked(env, 2, {0: ["red-skip"], 2: p2}, "red-5")
    act(env, "play red-skip", P(0))
    assert env.agent_selection == P(2)
    assert legal_names(env) == {"play green-skip", "draw"}


def test_after_a_played_wild_only_the_chosen_colour_matches():
    env = make("classic", 3)
    p1 = ["red-5", "red-1", "yellow-5", "yellow-skip", "blue-2", "blue-3", "green-9"]
    reset_stacked(env, 2, {0: ["wild"], 1: p1}, "red-5")
    act(env, "play wild yellow", P(0))
    snap = env.snapshot()
    assert snap["color"] == "yellow" and snap["top"] == "wild" and snap["current"] == P(1)
    assert legal_names(env) == {"play yellow-5", "play yellow-skip", "draw"}


@pytest.mark.parametrize("bluff", [True, False])
def test_wild_draw4_legal_without_a_card_of_the_current_colour(bluff):
    """Matching numbers and action cards do not make a Draw Four illegal."""
    env = make("classic", 3, wd4_bluff=bluff)
    p0 = ["wild-draw4", "blue-5", "green-skip", "yellow-9", "blue-1", "green-2", "yellow-3"]
    draw = ["blue-7", "green-8", "yellow-6", "green-1", "yellow-1"]
    reset_stacked(env, 2, {0: p0}, "red-5", draw)
    assert {f"play wild-draw4 {c}" for c in CLASSIC_COLORS} <= legal_names(env)
    act(env, "play wild-draw4 green", P(0))
    snap = env.snapshot()
    assert snap["top"] == "wild-draw4" and snap["color"] == "green"
    assert snap["current"] == P(1) and snap["phase"] == "challenge" and snap["pending_draw"] == 4
    assert legal_names(env) == {"challenge", "draw"}
    before = hand(env, 1)
    act(env, "draw", P(1))  # accept: draw four and lose the turn
    assert hand(env, 1) == before + Counter(draw[:4])
    snap = env.snapshot()
    assert snap["current"] == P(2) and snap["phase"] == "turn"
    assert snap["color"] == "green" and snap["pending_draw"] == 0


def test_wild_draw4_bluff_is_legal_with_wd4_bluff():
    env = make("classic", 3)  # wd4_bluff defaults to on
    p0 = ["wild-draw4", "red-9", "blue-1", "green-2", "yellow-3", "blue-7", "green-8"]
    reset_stacked(env, 2, {0: p0}, "red-5")
    assert {f"play wild-draw4 {c}" for c in CLASSIC_COLORS} <= legal_names(env)


def test_wild_draw4_bluff_is_masked_without_wd4_bluff():
    env = make("classic", 3, wd4_bluff=False)
    p0 = ["wild-draw4", "red-9", "blue-1", "green-2", "yellow-3", "blue-7", "green-8"]
    reset_stacked(env, 2, {0: p0}, "red-5")
    assert not any("wild-draw4" in a for a in legal_names(env))
    assert legal_names(env) == {"play red-9", "draw"}
    with pytest.raises(ValueError, match="play wild-draw4 blue"):
        act(env, "play wild-draw4 blue")


def test_wild_draw4_challenged_guilty_player_draws_four_challenger_plays():
    env = make("classic", 3)
    p0 = ["wild-draw4", "red-9", "blue-1", "green-2", "yellow-3", "blue-7", "green-8"]
    p1 = ["blue-3", "blue-4", "yellow-6", "green-6", "yellow-7", "green-7", "yellow-8"]
    draw = ["green-4", "green-5", "yellow-4", "yellow-5", "blue-9", "blue-8"]
    reset_stacked(env, 2, {0: p0, 1: p1}, "red-5", draw)
    act(env, "play wild-draw4 blue", P(0))
    shown = p0[1:]  # p0's hand at the challenge
    act(env, "challenge", P(1))
    snap = env.snapshot()
    assert hand(env, 0) == Counter(shown) + Counter(draw[:4])  # the offender draws 4
    assert hand(env, 1) == Counter(p1)  # the challenger draws nothing
    assert snap["current"] == P(1) and snap["phase"] == "turn"  # and takes its turn as usual
    assert snap["color"] == "blue" and snap["top"] == "wild-draw4"  # the colour stands
    assert snap["pending_draw"] == 0
    assert plays(legal_names(env)) == {"play blue-3", "play blue-4"}
    # the challenger alone sees the challenged hand
    assert (known_block(env, 1, 0) == counts_vector(env, shown)).all()
    assert not known_block(env, 2, 0).any()
    for observer in range(3):
        for target in range(3):
            if target != observer and (observer, target) != (1, 0):
                assert not known_block(env, observer, target).any()


def test_wild_draw4_challenged_innocent_challenger_draws_six_and_loses_turn():
    env = make("classic", 3)
    # blue-5 matches the top's number, not its colour: the Draw Four is legal
    p0 = ["wild-draw4", "blue-5", "green-skip", "yellow-9", "blue-1", "green-2", "yellow-3"]
    draw = ["blue-7", "green-8", "yellow-6", "green-1", "yellow-1", "blue-9", "blue-8"]
    reset_stacked(env, 2, {0: p0}, "red-5", draw)
    before1 = hand(env, 1)
    act(env, "play wild-draw4 green", P(0))
    act(env, "challenge", P(1))
    snap = env.snapshot()
    assert hand(env, 1) == before1 + Counter(draw[:6])
    assert hand(env, 0) == Counter(p0[1:])
    assert snap["current"] == P(2) and snap["phase"] == "turn"
    assert snap["color"] == "green" and snap["pending_draw"] == 0
    assert snap["draw_pile"][0] == "blue-8"
    assert (known_block(env, 1, 0) == counts_vector(env, p0[1:])).all()
    assert not known_block(env, 2, 0).any()
    assert not known_block(env, 0, 1).any() and not known_block(env, 0, 2).any()


def test_challenge_off_the_victim_draws_four_without_a_decision():
    env = make("classic", 3, challenge=False)
    p0 = ["wild-draw4", "blue-5", "green-skip", "yellow-9", "blue-1", "green-2", "yellow-3"]
    draw = ["blue-7", "green-8", "yellow-6", "green-1"]
    reset_stacked(env, 2, {0: p0}, "red-5", draw)
    before1 = hand(env, 1)
    act(env, "play wild-draw4 yellow", P(0))
    assert hand(env, 1) == before1 + Counter(draw)
    snap = env.snapshot()
    assert snap["current"] == P(2) and snap["phase"] == "turn" and snap["color"] == "yellow"


NOTHING_ON_RED_5 = ["blue-1", "green-2", "yellow-3", "blue-7", "green-8", "yellow-9", "blue-0"]


def test_draw_a_playable_card_then_play_it():
    env = make("classic", 3)
    reset_stacked(env, 2, {0: NOTHING_ON_RED_5}, "red-5", ["red-7"])
    assert legal_names(env) == {"draw"}
    act(env, "draw", P(0))
    snap = env.snapshot()
    assert snap["phase"] == "drawn" and snap["current"] == P(0)
    assert legal_names(env) == {"play red-7", "pass"}
    act(env, "play red-7", P(0))
    snap = env.snapshot()
    assert snap["top"] == "red-7" and hand(env, 0) == Counter(NOTHING_ON_RED_5)
    assert snap["current"] == P(1) and snap["phase"] == "turn"


def test_draw_a_playable_card_then_keep_it():
    env = make("classic", 3)
    reset_stacked(env, 2, {0: NOTHING_ON_RED_5}, "red-5", ["red-7"])
    act(env, "draw", P(0))
    act(env, "pass", P(0))
    snap = env.snapshot()
    assert hand(env, 0) == Counter(NOTHING_ON_RED_5 + ["red-7"])
    assert snap["top"] == "red-5" and snap["current"] == P(1) and snap["phase"] == "turn"


def test_draw_an_unplayable_card_ends_the_turn():
    env = make("classic", 3)
    reset_stacked(env, 2, {0: NOTHING_ON_RED_5}, "red-5", ["blue-9"])
    act(env, "draw", P(0))
    snap = env.snapshot()
    assert hand(env, 0) == Counter(NOTHING_ON_RED_5 + ["blue-9"])
    assert snap["current"] == P(1) and snap["phase"] == "turn"


def test_voluntary_draw_with_a_playable_card_in_hand():
    env = make("classic", 3)
    p0 = ["red-9"] + NOTHING_ON_RED_5[:6]
    reset_stacked(env, 2, {0: p0}, "red-5", ["yellow-5", "green-9"])
    assert legal_names(env) == {"play red-9", "draw"}
    act(env, "draw", P(0))
    # the drawn card only may be played, not the playable card already in hand
    assert legal_names(env) == {"play yellow-5", "pass"}
    act(env, "pass", P(0))
    assert env.agent_selection == P(1)
    assert hand(env, 0) == Counter(p0 + ["yellow-5"])


def test_drawn_wild_may_be_played_with_any_colour():
    env = make("classic", 3)
    reset_stacked(env, 2, {0: NOTHING_ON_RED_5}, "red-5", ["wild"])
    act(env, "draw", P(0))
    assert legal_names(env) == {f"play wild {c}" for c in CLASSIC_COLORS} | {"pass"}
    act(env, "play wild blue", P(0))
    assert env.snapshot()["color"] == "blue" and env.agent_selection == P(1)


def test_draw_rule_until_playable_draws_until_a_playable_card():
    env = make("classic", 3, draw_rule="until_playable")
    reset_stacked(env, 2, {0: NOTHING_ON_RED_5}, "red-5", ["blue-9", "green-4", "red-8", "yellow-2"])
    act(env, "draw", P(0))
    snap = env.snapshot()
    assert hand(env, 0) == Counter(NOTHING_ON_RED_5 + ["blue-9", "green-4", "red-8"])
    assert snap["phase"] == "drawn" and snap["draw_pile"][0] == "yellow-2"
    assert legal_names(env) == {"play red-8", "pass"}


@pytest.mark.parametrize("bluff", [True, False])
def test_drawn_wild_draw4_playable_only_as_allowed_bluff(bluff):
    env = make("classic", 3, wd4_bluff=bluff)
    p0 = ["red-9"] + NOTHING_ON_RED_5[:6]  # holds the current colour: a Draw Four is a bluff
    reset_stacked(env, 2, {0: p0}, "red-5", ["wild-draw4"])
    act(env, "draw", P(0))
    if bluff:
        assert legal_names(env) == {f"play wild-draw4 {c}" for c in CLASSIC_COLORS} | {"pass"}
    else:
        assert env.snapshot()["phase"] == "turn" and env.agent_selection == P(1)
        assert hand(env, 0)["wild-draw4"] == 1


# ====================================================================== 4. Action cards
def test_draw_two_next_player_draws_two_and_loses_turn():
    env = make("classic", 3)
    reset_stacked(env, 2, {0: ["red-draw2"]}, "red-5", ["blue-7", "green-8", "yellow-9"])
    before1 = hand(env, 1)
    act(env, "play red-draw2", P(0))
    snap = env.snapshot()
    assert hand(env, 1) == before1 + Counter(["blue-7", "green-8"])
    assert snap["current"] == P(2) and snap["phase"] == "turn"
    assert snap["pending_draw"] == 0 and snap["top"] == "red-draw2" and snap["color"] == "red"
    assert snap["draw_pile"][0] == "yellow-9"


def test_reverse_changes_direction_with_three_or_more_players():
    env = make("classic", 4)
    reset_stacked(env, 3, {0: ["red-reverse"], 3: ["red-6"], 2: ["red-reverse"], 1: ["red-8"]}, "red-5")
    act(env, "play red-reverse", P(0))
    assert env.snapshot()["direction"] == "counter-clockwise"
    assert env.agent_selection == P(3)
    act(env, "play red-6", P(3))
    assert env.agent_selection == P(2)
    act(env, "play red-reverse", P(2))  # reverses back
    assert env.snapshot()["direction"] == "clockwise"
    assert env.agent_selection == P(3)


def test_reverse_with_two_players_acts_as_skip():
    env = make("classic", 2)
    reset_stacked(env, 1, {0: ["red-reverse", "red-6"]}, "red-5")
    act(env, "play red-reverse", P(0))
    snap = env.snapshot()
    assert snap["current"] == P(0) and snap["phase"] == "turn"
    act(env, "play red-6", P(0))
    assert env.agent_selection == P(1)


@pytest.mark.parametrize("n,expected", [(2, 0), (3, 2), (5, 2)])
def test_skip_next_player_loses_turn(n, expected):
    env = make("classic", n)
    reset_stacked(env, n - 1, {0: ["red-skip"]}, "red-5")
    before = {s: hand(env, s) for s in range(n)}
    act(env, "play red-skip", P(0))
    assert env.agent_selection == P(expected)
    assert all(hand(env, s) == before[s] for s in range(1, n))


def test_team_attack_villain_discards_up_to_three_under_the_team_attack():
    env = make("tmnt", 3)
    p0 = ["team-attack", "blue-1", "orange-2", "red-3", "purple-1", "orange-9", "red-8"]
    reset_stacked(env, 2, {0: p0}, "blue-5")
    act(env, "play team-attack red", P(0))
    snap = env.snapshot()
    assert snap["phase"] == "discard" and snap["current"] == P(0) and snap["color"] == "red"
    assert legal_names(env) == {"discard blue-1", "discard orange-2", "discard red-3",
                                "discard purple-1", "pass"}
    for card in ("blue-1", "orange-2", "red-3"):
        act(env, f"discard {card}", P(0))
    snap = env.snapshot()  # three discards: the phase ends by itself
    assert snap["discard_pile"] == ["blue-5", "blue-1", "orange-2", "red-3", "team-attack"]
    assert snap["top"] == "team-attack" and snap["color"] == "red"
    assert hand(env, 0) == Counter(["purple-1", "orange-9", "red-8"])
    assert snap["current"] == P(1) and snap["phase"] == "turn"
    played = played_block(env, 1)
    for card in ("blue-5", "blue-1", "orange-2", "red-3", "team-attack"):
        assert played[env.card_id(card)] == 1
    assert_conserved(env)


def test_team_attack_pass_stops_discarding():
    env = make("tmnt", 3)
    p0 = ["team-attack", "blue-1", "orange-2", "red-3", "purple-1", "orange-9", "red-8"]
    reset_stacked(env, 2, {0: p0}, "blue-5")
    act(env, "play team-attack orange", P(0))
    act(env, "discard purple-1", P(0))
    assert env.snapshot()["phase"] == "discard"
    act(env, "pass", P(0))
    snap = env.snapshot()
    assert snap["discard_pile"] == ["blue-5", "purple-1", "team-attack"]
    assert len(snap["hands"][P(0)]) == 5
    assert snap["current"] == P(1) and snap["phase"] == "turn" and snap["color"] == "orange"


def test_team_attack_without_villains_has_no_discard_phase():
    env = make("tmnt", 3)
    p0 = ["team-attack", "blue-4", "orange-5", "red-6", "purple-7", "orange-9", "red-8"]
    reset_stacked(env, 2, {0: p0}, "blue-5")
    act(env, "play team-attack purple", P(0))
    snap = env.snapshot()
    assert snap["current"] == P(1) and snap["phase"] == "turn" and snap["color"] == "purple"


def test_team_attack_villain_faces_option_changes_the_villains():
    env = make("tmnt", 3, villain_faces=["9", "skip"])
    p0 = ["team-attack", "blue-1", "orange-2", "red-9", "purple-skip", "orange-9", "red-8"]
    reset_stacked(env, 2, {0: p0}, "blue-5")
    act(env, "play team-attack red", P(0))
    assert legal_names(env) == {"discard red-9", "discard orange-9", "discard purple-skip", "pass"}


def test_team_attack_going_out_by_villain_discards_wins_the_round():
    env = make("tmnt", 3, hand_size=3)
    reset_stacked(env, 2, {0: ["team-attack", "blue-1", "orange-2"],
                           1: ["blue-9", "wild", "red-skip"], 2: ["orange-0", "purple-7", "team-attack"]},
                  "blue-5")
    act(env, "play team-attack red", P(0))
    act(env, "discard blue-1", P(0))
    assert env.snapshot()["phase"] == "discard"
    act(env, "discard orange-2", P(0))
    snap = env.snapshot()
    assert snap["phase"] == "over" and snap["winner"] == P(0)
    assert snap["hands"][P(0)] == []
    assert snap["discard_pile"][-1] == "team-attack"
    assert snap["scores"][P(0)] == (9 + 50 + 20) + (0 + 7 + 50)
    assert env.terminations[P(0)] and env.rewards[P(0)] == 1.0


def test_team_attack_as_last_card_ends_the_round_without_discards():
    env = make("tmnt", 3, hand_size=1)
    reset_stacked(env, 2, {0: ["team-attack"], 1: ["blue-1"], 2: ["orange-2"]}, "blue-5")
    act(env, "play team-attack red", P(0))
    snap = env.snapshot()
    assert snap["phase"] == "over" and snap["winner"] == P(0)
    assert snap["scores"][P(0)] == 3


# ====================================================================== 7. Calling UNO
UNO_HANDS = {0: ["red-6", "red-7"], 1: ["blue-1", "blue-2"], 2: ["green-1", "green-2"],
             3: ["yellow-1", "yellow-2"]}


def explicit_uno_env(n=3, **overrides):
    env = make("classic", n, uno_call="explicit", hand_size=2, **overrides)
    reset_stacked(env, n - 1, {s: UNO_HANDS[s] for s in range(n)}, "red-5",
                  ["blue-9", "green-9", "yellow-9", "blue-8", "green-8"])
    return env


def test_uno_explicit_only_offered_with_two_cards():
    env = make("classic", 3, uno_call="explicit")
    reset_stacked(env, 2, {}, "red-5")
    assert "uno" not in legal_names(env)
    env = explicit_uno_env()
    assert "uno" in legal_names(env)


def test_uno_explicit_called_then_no_catch_window():
    env = explicit_uno_env()
    act(env, "uno", P(0))
    snap = env.snapshot()
    assert snap["uno_called"][P(0)] and snap["current"] == P(0) and snap["phase"] == "turn"
    assert "uno" not in legal_names(env)
    # seat 0 is two seats to seat 1's left: opponent slot 1; field 3 is "UNO called"
    assert env.observe(P(1))["observation"][O.OPPONENTS + 1 * O.OPP_FIELDS + 3] == 1.0
    act(env, "play red-6", P(0))
    snap = env.snapshot()
    assert snap["current"] == P(1) and snap["phase"] == "turn"
    assert hand(env, 0) == Counter(["red-7"])


@pytest.mark.parametrize("penalty", [2, 4])
def test_uno_explicit_missed_and_caught_draws_penalty(penalty):
    env = explicit_uno_env(n=4, uno_penalty=penalty)
    act(env, "play red-6", P(0))
    # every other player is asked, in seat order from the next player
    snap = env.snapshot()
    assert snap["phase"] == "catch" and snap["current"] == P(1)
    assert legal_names(env) == {"catch", "pass"}
    assert not env.observe(P(0))["action_mask"].any()
    act(env, "catch", P(1))
    assert env.snapshot()["phase"] == "catch"
    act(env, "pass", P(2))
    act(env, "pass", P(3))
    snap = env.snapshot()
    assert hand(env, 0) == Counter(["red-7"] + ["blue-9", "green-9", "yellow-9", "blue-8"][:penalty])
    assert snap["current"] == P(1) and snap["phase"] == "turn"


def test_uno_catch_answers_hidden_from_later_players():
    observations = []
    for first_answer in ("catch", "pass"):
        env = explicit_uno_env(n=4)
        act(env, "play red-6", P(0))
        act(env, first_answer, P(1))
        assert env.agent_selection == P(2)
        observations.append([env.observe(P(i))["observation"] for i in range(4)])
    for seat in range(4):
        assert (observations[0][seat] == observations[1][seat]).all()


def test_uno_explicit_missed_and_not_caught():
    env = explicit_uno_env()
    act(env, "play red-6", P(0))
    act(env, "pass", P(1))
    act(env, "pass", P(2))
    snap = env.snapshot()
    assert hand(env, 0) == Counter(["red-7"])
    assert snap["current"] == P(1) and snap["phase"] == "turn"


def test_uno_auto_mode_has_no_uno_action_and_no_catch_window():
    env = make("classic", 3, hand_size=2)  # uno_call defaults to auto
    reset_stacked(env, 2, {s: UNO_HANDS[s] for s in range(3)}, "red-5")
    assert legal_names(env) == {"play red-6", "play red-7", "draw"}
    act(env, "play red-6", P(0))
    snap = env.snapshot()
    assert snap["current"] == P(1) and snap["phase"] == "turn"
    assert hand(env, 0) == Counter(["red-7"])
    assert "catch" not in legal_names(env) and "uno" not in legal_names(env)


# ====================================================================== 8. End and scoring
def test_last_card_draw_two_next_player_still_draws_and_it_counts():
    env = make("classic", 3, hand_size=1)
    reset_stacked(env, 2, {0: ["red-draw2"], 1: ["green-3"], 2: ["yellow-4"]}, "red-5",
                  ["blue-9", "wild", "green-7"])
    act(env, "play red-draw2", P(0))
    snap = env.snapshot()
    assert snap["phase"] == "over" and snap["winner"] == P(0) and snap["current"] is None
    assert hand(env, 1) == Counter(["green-3", "blue-9", "wild"])
    assert snap["scores"] == {P(0): 3 + 9 + 50 + 4, P(1): 0, P(2): 0}
    assert snap["pending_draw"] == 0
    assert env.infos[P(0)]["round_points"] == 66


def test_last_card_wild_draw4_next_player_draws_four_without_challenge():
    env = make("classic", 3, hand_size=1)
    reset_stacked(env, 2, {0: ["wild-draw4"], 1: ["green-3"], 2: ["yellow-4"]}, "red-5",
                  ["blue-9", "wild", "green-7", "red-skip"])
    act(env, "play wild-draw4 green", P(0))
    snap = env.snapshot()
    assert snap["phase"] == "over" and snap["winner"] == P(0)
    assert hand(env, 1) == Counter(["green-3", "blue-9", "wild", "green-7", "red-skip"])
    assert snap["scores"][P(0)] == 3 + 9 + 50 + 7 + 20 + 4


def _draw_until_draw_pile_empty(env) -> None:
    while env.snapshot()["draw_pile"]:
        act(env, "draw")
        if env.snapshot()["phase"] == "drawn":
            act(env, "pass")


def test_reshuffle_discard_except_top_when_draw_pile_runs_out():
    env = make("classic", 2)
    reset_stacked(env, 1, {0: ["red-1", "red-2"], 1: ["red-6", "red-7"]}, "red-5")
    for seat, card in ((0, "red-1"), (1, "red-6"), (0, "red-2"), (1, "red-7")):
        act(env, f"play {card}", P(seat))
    assert env.snapshot()["discard_pile"] == ["red-5", "red-1", "red-6", "red-2", "red-7"]
    _draw_until_draw_pile_empty(env)
    played = played_block(env)
    assert played.sum() == 5 and all(played[env.card_id(c)] == 1
                                     for c in ("red-5", "red-1", "red-6", "red-2", "red-7"))
    drawer = int(env.agent_selection[-1])
    before = hand(env, drawer)
    act(env, "draw")
    snap = env.snapshot()
    drawn = hand(env, drawer) - before
    assert sum(drawn.values()) == 1
    assert snap["discard_pile"] == ["red-7"]  # the top card stays
    assert Counter(snap["draw_pile"]) + drawn == Counter(["red-5", "red-1", "red-6", "red-2"])
    # every drawn card is red, so playable on red-7: keep it
    assert snap["phase"] == "drawn"
    act(env, "pass")
    expected = np.zeros(C.NUM_KINDS, np.float32)
    expected[env.card_id("red-7")] = 1
    for seat in range(2):
        assert (played_block(env, seat) == expected).all()  # played counts restart
    assert_conserved(env)


def test_reshuffle_mid_penalty_draws_draw_pile_then_rest_from_reshuffled_discard():
    # a 41-card deck (one of each number per colour, one Wild Draw Four): 2 x 19 dealt, one
    # turned, so DRAW holds exactly the two cards placed on it
    env = make("classic", 2, hand_size=19, count_zero=1, count_number=1, count_draw2=0,
               count_reverse=0, count_skip=0, count_wild=0, count_wild_draw4=1)
    reset_stacked(env, 1, {0: ["wild-draw4", "red-1", "red-3"], 1: ["red-2", "red-4"]}, "red-5",
                  ["blue-9", "green-9"])
    for seat, card in ((0, "red-1"), (1, "red-2"), (0, "red-3"), (1, "red-4")):
        act(env, f"play {card}", P(seat))
    act(env, "play wild-draw4 green", P(0))
    under_top = Counter(["red-5", "red-1", "red-2", "red-3", "red-4"])
    assert Counter(env.snapshot()["discard_pile"][:-1]) == under_top
    before = hand(env, 1)
    act(env, "draw", P(1))  # the penalty of 4 with 2 cards in DRAW
    drawn = hand(env, 1) - before
    snap = env.snapshot()
    assert sum(drawn.values()) == 4 and drawn["blue-9"] == drawn["green-9"] == 1
    assert snap["discard_pile"] == ["wild-draw4"]  # the top card stays
    assert len(snap["draw_pile"]) == 3  # 5 reshuffled, 2 of them drawn
    assert Counter(snap["draw_pile"]) + drawn - Counter(["blue-9", "green-9"]) == under_top
    assert snap["current"] == P(0) and snap["phase"] == "turn" and snap["pending_draw"] == 0
    assert_conserved(env)


def test_both_piles_empty_draw_draws_nothing_and_turn_passes():
    env = make("classic", 2)
    reset_stacked(env, 1, {0: ["red-draw2"], 1: ["red-draw2"]}, "red-5")
    _draw_until_draw_pile_empty(env)
    snap = env.snapshot()
    assert snap["draw_pile"] == [] and snap["discard_pile"] == ["red-5"]
    seat = int(env.agent_selection[-1])
    other = 1 - seat
    sizes = {s: len(h) for s, h in enumerate(snap["hands"].values())}
    assert sum(sizes.values()) == 107
    assert env.observe(P(seat))["observation"][O.DRAW_SIZE] == 0
    before_seat = snap["hands"][P(seat)]
    act(env, "draw", P(seat))
    snap = env.snapshot()
    assert snap["hands"][P(seat)] == before_seat
    assert snap["current"] == P(other) and snap["phase"] == "turn"
    # a Draw Two: DISCARD except the Draw Two (red-5) is reshuffled into DRAW; the victim
    # draws it, then both piles are empty and the second card is not drawn; still skipped
    act(env, "play red-draw2", P(other))
    snap = env.snapshot()
    assert hand(env, seat) - Counter(before_seat) == Counter(["red-5"])
    assert snap["draw_pile"] == [] and snap["discard_pile"] == ["red-draw2"]
    assert snap["current"] == P(other) and snap["pending_draw"] == 0
    assert_conserved(env)


def test_card_points_number_face_value_actions_twenty_wilds_fifty():
    for colors in (CLASSIC_COLORS, TMNT_COLORS):
        names = C.card_names(colors)
        for k, name in enumerate(names):
            face = name.split("-")[-1]
            expected = int(face) if face.isdigit() else (20 if face in ("draw2", "reverse", "skip") else 50)
            assert C.card_points(k) == expected, name


SCORING_HANDS = {0: ["red-1", "red-2"], 1: ["blue-reverse", "wild"], 2: ["green-skip", "wild-draw4"]}
SCORING_DRAW = ["yellow-9", "blue-draw2"]
P1_LEFT = 20 + 50 + 9
P2_LEFT = 20 + 50 + 20


def play_scoring_round(env) -> None:
    """Seat 0 goes out; seat 1 is left with 79 points and seat 2 with 90."""
    act(env, "play red-1", P(0))
    act(env, "draw", P(1))  # yellow-9: not playable on red-1
    act(env, "draw", P(2))  # blue-draw2: not playable
    act(env, "play red-2", P(0))


def scoring_env(**overrides):
    env = make("classic", 3, hand_size=2, **overrides)
    reset_stacked(env, 2, SCORING_HANDS, "red-5", SCORING_DRAW)
    return env


def test_scoring_winner_gets_the_points_left_in_other_hands():
    env = scoring_env()
    play_scoring_round(env)
    snap = env.snapshot()
    assert snap["phase"] == "over" and snap["winner"] == P(0)
    assert hand(env, 1) == Counter(["blue-reverse", "wild", "yellow-9"])
    assert hand(env, 2) == Counter(["green-skip", "wild-draw4", "blue-draw2"])
    assert snap["scores"] == {P(0): P1_LEFT + P2_LEFT, P(1): 0, P(2): 0}
    assert [env.infos[P(i)]["round_points"] for i in range(3)] == [P1_LEFT + P2_LEFT, 0, 0]


@pytest.mark.parametrize("sewers_points", [None, 7])
def test_scoring_team_attack_and_sewers_left_in_hand_score_fifty_or_sewers_points(sewers_points):
    env = make("tmnt", 3, hand_size=1)
    reset_stacked(env, 2, {0: ["blue-1"], 1: ["team-attack"], 2: ["orange-5"]}, "blue-5")
    act(env, "play blue-1", P(0))
    assert env.snapshot()["phase"] == "over" and env.snapshot()["winner"] == P(0)
    assert env.snapshot()["scores"] == {P(0): 50 + 5, P(1): 0, P(2): 0}

    extra = {} if sewers_points is None else {"sewers_points": sewers_points}
    env = make("house", 3, hand_size=1, jump_in=False, seven_slap=False, giving=False, **extra)
    reset_stacked(env, 2, {0: ["red-1"], 1: ["from-the-sewers"], 2: ["green-5"]}, "red-5")
    act(env, "play red-1", P(0))
    assert env.snapshot()["phase"] == "over" and env.snapshot()["winner"] == P(0)
    points = 50 if sewers_points is None else sewers_points
    assert env.snapshot()["scores"] == {P(0): points + 5, P(1): 0, P(2): 0}
    assert env.infos[P(0)]["round_points"] == points + 5


def test_game_episode_round_end_deals_a_new_round_and_keeps_scores():
    env = scoring_env(episode="game")
    play_scoring_round(env)
    snap = env.snapshot()
    assert snap["round"] == 1 and snap["phase"] != "over" and snap["winner"] is None
    assert snap["scores"][P(0)] == P1_LEFT + P2_LEFT < 500
    assert snap["dealer"] == P(0)  # the deal passes left
    assert not any(env.terminations.values()) and not any(env.truncations.values())
    assert all(r == 0 for r in env.rewards.values())
    assert env.infos[P(0)]["round_points"] == P1_LEFT + P2_LEFT
    assert_conserved(env)
    assert len(snap["discard_pile"]) == 1


def test_game_episode_ends_when_a_player_reaches_500():
    env = scoring_env(episode="game")
    env.game_state.scores[0] = 400
    play_scoring_round(env)
    snap = env.snapshot()
    assert snap["phase"] == "over" and snap["winner"] == P(0)
    assert snap["scores"][P(0)] == 400 + P1_LEFT + P2_LEFT
    assert env.rewards == {P(0): 1.0, P(1): -0.5, P(2): -0.5}


def test_game_episode_small_target_score_override():
    env = scoring_env(episode="game", target_score=100)
    play_scoring_round(env)
    assert env.snapshot()["winner"] == P(0) and env.snapshot()["round"] == 1


@pytest.mark.parametrize("seed", range(3))
def test_game_episode_to_500_with_random_play(seed):
    env = make("classic", 2, episode="game", max_steps=10**6)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    rounds = 0
    while not env.game_state.game_over:
        legal = env.legal_actions()
        env.step(legal[rng.integers(len(legal))])
        if env.game_state.round != rounds and not env.game_state.game_over:
            rounds = env.game_state.round
            assert max(env.game_state.scores) < 500
            assert env.rewards == {P(0): 0.0, P(1): 0.0}
    snap = env.snapshot()
    winner = int(snap["winner"][-1])
    assert snap["scores"][snap["winner"]] >= 500 and env.game_state.round_winner == winner
    assert env.game_state.scores[1 - winner] < 500
    assert env.rewards[snap["winner"]] == 1.0 and env.rewards[P(1 - winner)] == -1.0


def test_alternative_scoring_keeps_tallies_and_lowest_tally_wins():
    env = scoring_env(episode="game", scoring="alternative")
    play_scoring_round(env)
    snap = env.snapshot()
    assert snap["phase"] != "over" and snap["round"] == 1
    assert snap["scores"] == {P(0): 0, P(1): P1_LEFT, P(2): P2_LEFT}
    assert [env.infos[P(i)]["round_points"] for i in range(3)] == [0, P1_LEFT, P2_LEFT]

    env = scoring_env(episode="game", scoring="alternative")
    env.game_state.scores[:] = [300, 430, 100]
    play_scoring_round(env)
    snap = env.snapshot()
    assert snap["scores"] == {P(0): 300, P(1): 430 + P1_LEFT, P(2): 100 + P2_LEFT}
    assert snap["phase"] == "over"
    assert snap["winner"] == P(2)  # p1 reached 500; the lowest tally wins
    assert env.rewards == {P(0): -0.5, P(1): -0.5, P(2): 1.0}


# ====================================================================== episode end, API rules
def test_step_limit_truncates_the_episode_with_zero_reward():
    env = make("classic", 2, max_steps=3)
    env.reset(seed=1)
    for _ in range(3):
        assert not any(env.truncations.values())
        env.step(env.legal_actions()[0])
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.snapshot()["steps"] == 3
    assert not env.observe(env.agent_selection)["action_mask"].any()
    seen = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert trunc and not term
        seen[agent] = reward
        env.step(None)
    assert seen == {P(0): 0.0, P(1): 0.0}


def test_step_limit_counts_decisions_over_the_whole_episode_not_per_round():
    """README: truncation after ``max_steps`` decisions in an episode; the count is not reset
    when a new round is dealt."""
    env = make("classic", 3, hand_size=2, episode="game", max_steps=6)
    reset_stacked(env, 2, {0: ["red-1", "red-2"], 1: ["red-3", "green-1"], 2: ["red-4", "green-2"]},
                  "red-5")
    for seat, card in ((0, "red-1"), (1, "red-3"), (2, "red-4"), (0, "red-2")):
        act(env, f"play {card}", P(seat))
    snap = env.snapshot()
    assert snap["round"] == 1 and snap["phase"] != "over" and snap["steps"] == 4  # round 2 dealt
    assert not any(env.truncations.values())
    # with 2-card hands and 3 players nobody can go out in two decisions: round 2 is cut
    # after 2 decisions of its own
    env.step(env.legal_actions()[0])
    assert not any(env.truncations.values())
    env.step(env.legal_actions()[0])
    snap = env.snapshot()
    assert snap["steps"] == 6 and snap["round"] == 1
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env.rewards == {P(i): 0.0 for i in range(3)}


@pytest.mark.parametrize("wrapped", [False, True])
@pytest.mark.parametrize("n", [2, 4])
def test_rewards_winner_plus_one_others_share_minus_one_through_last(wrapped, n):
    env = (uno_env.env if wrapped else uno_env.raw_env)(rules="classic", num_players=n, hand_size=1)
    reset_stacked(env, n - 1, {0: ["red-3"]}, "red-5")
    env.step(env.unwrapped.action_id("play red-3"))
    got = {}
    for agent in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        assert term and not trunc and agent not in got
        got[agent] = reward
        env.step(None)
    assert got == {P(i): (1.0 if i == 0 else -1.0 / (n - 1)) for i in range(n)}
    assert env.agents == []


def test_illegal_action_raises_value_error_naming_action_and_phase_and_changes_nothing():
    env = make("classic", 3)
    p0 = ["wild-draw4", "red-9", "blue-1", "green-2", "yellow-3", "blue-7", "green-8"]
    reset_stacked(env, 2, {0: p0}, "red-5")

    def frozen():
        return (json.dumps(env.snapshot()), env.agent_selection, list(env.history),
                [env.observe(P(i))["observation"].tobytes() for i in range(3)],
                [env.observe(P(i))["action_mask"].tobytes() for i in range(3)])

    before = frozen()
    with pytest.raises(ValueError, match=r"play blue-9.*'turn'"):
        act(env, "play blue-9")
    with pytest.raises(ValueError, match=r"challenge.*'turn'"):
        act(env, "challenge")
    with pytest.raises(ValueError):
        env.step(10_000)
    assert frozen() == before
    act(env, "play wild-draw4 green", P(0))
    before = frozen()
    with pytest.raises(ValueError, match=r"play red-5.*'challenge'"):
        act(env, "play red-5")
    with pytest.raises(ValueError, match=r"pass.*'challenge'"):
        act(env, "pass")
    assert frozen() == before
    act(env, "draw", P(1))  # still works


def test_wrong_deck_is_value_error():
    env = make("classic", 3)
    deck = deck_cards("classic")
    env.reset(seed=0, options={"deck": deck, "dealer": 0})  # the right deck is accepted
    bad_decks = {
        "missing": deck[:-1],
        "extra": deck + ["red-5"],
        "swapped": ["red-6" if c == "red-5" else c for c in deck],
        "unknown": deck[:-1] + ["pink-5"],
        "other deck colours": ["orange-5" if c == "yellow-5" else c for c in deck],
        "tmnt deck": deck_cards("tmnt"),
    }
    for label, bad in bad_decks.items():
        with pytest.raises(ValueError):
            env.reset(seed=0, options={"deck": bad, "dealer": 0})
    with pytest.raises(ValueError, match="pink-5"):
        env.reset(seed=0, options={"deck": bad_decks["unknown"], "dealer": 0})
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"deck": list(range(108)), "dealer": 0})
    with pytest.raises(ValueError):
        env.reset(seed=0, options={"deck": deck, "dealer": 3})
    tmnt = make("tmnt", 3)
    with pytest.raises(ValueError):
        tmnt.reset(seed=0, options={"deck": deck, "dealer": 0})  # classic deck for tmnt


@pytest.mark.parametrize("kwargs,name", [
    ({"bogus_rule": 1}, "bogus_rule"),
    ({"uno_call": "sometimes"}, "uno_call"),
    ({"wd4_bluff": "yes"}, "wd4_bluff"),
    ({"hand_size": 0}, "hand_size"),
    ({"target_score": "500"}, "target_score"),
    ({"draw_rule": "two"}, "draw_rule"),
    ({"episode": "forever"}, "episode"),
    ({"scoring": "weird"}, "scoring"),
    ({"villain_faces": ["11"]}, "villain_faces"),
    ({"uno_penalty": -1}, "uno_penalty"),
])
def test_unknown_rule_key_or_bad_value_is_value_error_naming_it(kwargs, name):
    with pytest.raises(ValueError, match=name):
        make("classic", 3, **kwargs)
    with pytest.raises(ValueError, match=name):
        make_rules({"preset": "tmnt", **kwargs})


def test_bad_preset_or_player_count_is_value_error():
    with pytest.raises(ValueError, match="no_such_preset"):
        make("no_such_preset", 3)
    for n in (1, 11, 0, "3", 2.0):
        with pytest.raises(ValueError):
            make("classic", n)
    with pytest.raises(ValueError, match="render_mode"):
        uno_env.raw_env(render_mode="rgb")


def test_yaml_rule_configs_load(tmp_path):
    paths = sorted(glob.glob(os.path.join(PRESET_DIR, "*.yaml")))
    names = {os.path.basename(p) for p in paths}
    assert {"classic.yaml", "tmnt.yaml", "house.yaml"} <= names
    assert sorted(PRESETS) == sorted(n[:-5] for n in names)
    for path in paths:
        rules = make_rules(path)
        assert isinstance(rules, Rules)
        env = uno_env.raw_env(rules=path, num_players=3)
        env.reset(seed=0)
        assert_conserved(env)
    assert make_rules(os.path.join(PRESET_DIR, "classic.yaml")) == Rules() == preset("classic")
    assert make_rules(os.path.join(PRESET_DIR, "tmnt.yaml")) == preset("tmnt")
    good = tmp_path / "mine.yaml"
    good.write_text("preset: tmnt\nuno_call: explicit\ntarget_score: 200\n")
    r = make_rules(str(good))
    assert (r.colors, r.count_team_attack, r.uno_call, r.target_score) == ("tmnt", 4, "explicit", 200)
    bad = tmp_path / "bad.yaml"
    bad.write_text("preset: classic\nnot_a_rule: 3\n")
    with pytest.raises(ValueError, match="not_a_rule"):
        make_rules(str(bad))
    bad.write_text("preset: classic\nstacking: maybe\n")
    with pytest.raises(ValueError, match="stacking"):
        make_rules(str(bad))


def test_first_card_wild_draw4_stays_when_only_wild_draw4s_are_left_to_turn():
    """RULES 2.4: a first Wild Draw Four is returned and a new card turned; with nothing but
    Wild Draw Fours left in DRAW the deal must still end (no endless reshuffle)."""
    env = uno_env.raw_env(rules="classic", num_players=3, hand_size=35)
    deck = stacked_deck(env.rules, 3, 0, {}, "wild-draw4", ["wild-draw4", "wild-draw4"])
    env.reset(seed=0, options={"deck": deck, "dealer": 0})
    snap = env.snapshot()
    assert snap["top"] == "wild-draw4" and snap["phase"] == "color"
    assert snap["current"] == "player_1"
    act(env, "color red")
    after = env.snapshot()
    # the first player takes the Draw Four: only the two cards left in DRAW; the turn passes
    assert len(after["hands"]["player_1"]) == 37 and after["draw_pile"] == []
    assert after["current"] == "player_2" and after["color"] == "red"


def test_engine_refuses_a_dealer_that_is_not_an_integer_seat():
    from uno_env.game.engine import Engine

    engine = Engine(make_rules("classic"), 3)
    for dealer in (1.5, "1", True, -1, 3):
        with pytest.raises(ValueError, match="dealer must be an integer seat"):
            engine.new_state(np.random.default_rng(0), dealer=dealer)
    assert engine.new_state(np.random.default_rng(0), dealer=np.int64(2)).dealer == 2
